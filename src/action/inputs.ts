import * as core from '@actions/core';
import { readFileSync } from 'node:fs';
import type { FlatOptions } from '../shell/overrides.js';

export interface ActionInputs {
  configFile: string | null;
  base: string;
  failOnRegression: boolean;
  flat: FlatOptions;
}

/** Reads every input of action.yml once; empty inputs stay undefined so the config file decides. */
export function readInputs(): ActionInputs {
  const text = (name: string) => core.getInput(name) || undefined;
  const fail = (core.getInput('fail-on-regression') || 'true').toLowerCase();
  if (!['true', 'false'].includes(fail)) {
    throw new InputError(`Input fail-on-regression is "${fail}"; use true or false.`);
  }
  return {
    configFile: text('config') ?? null,
    base: core.getInput('base'),
    failOnRegression: fail === 'true',
    flat: {
      start: text('start'),
      install: text('install'),
      build: text('build'),
      cwd: text('working-directory'),
      readyPath: text('ready-path'),
      readyTimeout: text('ready-timeout'),
      scenarios: core.getMultilineInput('scenarios'),
      pairs: text('pairs'),
      blocks: text('blocks'),
      slice: text('slice'),
      warmup: text('warmup'),
      connections: text('connections'),
      throughputLimit: text('throughput-limit'),
      latencyP99Limit: text('latency-p99-limit'),
      seed: text('seed'),
    },
  };
}

export class InputError extends Error {}

export interface EventContext {
  eventName: string;
  /** The commit to compare against, and whether to take its merge-base with head. */
  baseRef: string;
  /** The name to show for the base (the PR's base branch), when baseRef is a sha. */
  baseLabel?: string;
  mergeBase: boolean;
  pullRequest: number | null;
}

/**
 * The base: an explicit `base` input (merge-base with head, like the CLI), else the PR's base
 * commit (the first parent of the merge commit actions/checkout checks out), else the commit
 * before a push.
 */
export function resolveBase(eventName: string, eventPath: string | undefined, baseInput: string): EventContext {
  let payload: Record<string, any> = {};
  if (eventPath) {
    try {
      payload = JSON.parse(readFileSync(eventPath, 'utf8'));
    } catch (e) {
      throw new InputError(`Cannot read the event payload ${eventPath}: ${(e as Error).message}`);
    }
  }
  const pullRequest = payload.pull_request?.number ?? null;
  if (baseInput) return { eventName, baseRef: baseInput, mergeBase: true, pullRequest };
  const prBase = payload.pull_request?.base?.sha;
  if (typeof prBase === 'string' && prBase) {
    return { eventName, baseRef: prBase, baseLabel: payload.pull_request?.base?.ref, mergeBase: false, pullRequest };
  }
  const before = payload.before;
  if (eventName === 'push' && typeof before === 'string' && !/^0+$/.test(before)) {
    return { eventName, baseRef: before, mergeBase: false, pullRequest: null };
  }
  throw new InputError(
    `No base to compare against on a "${eventName}" event: set the base input (a branch, tag or sha), ` +
      'or run perfgate on pull_request events.',
  );
}
