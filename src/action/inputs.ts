import * as core from '@actions/core';
import type { EventPayload } from '../github/event.js';
import { GATE_ID_PATTERN } from '../report/comment.js';
import { OPTIONS, type OptionValues } from '../config/options.js';

export type Mode = 'gate' | 'report' | 'record' | 'merge';
/** What head is compared with: base measured beside it on this runner, or a stored record of base (docs/modes.md). */
export type BaselineSource = 'same-runner' | 'stored';
export type CommentMode = 'always' | 'on-change' | 'on-regression' | 'never';

export interface GitHubInputs {
  /** Empty when no token was given: then perfgate neither comments nor reads labels. */
  token: string;
  /** Tells this gate's comment and artifacts apart from other perfgate steps of the workflow. */
  id: string;
  /** What this step does about the comment, `auto` resolved (resolveComment). */
  comment: CommentMode;
  /** The comment input was left at auto (a gate then says why it posts none). */
  commentAuto: boolean;
  acceptLabel: string;
}

export interface ActionInputs {
  mode: Mode;
  baseline: BaselineSource;
  configFile: string | null;
  base: string;
  failOnRegression: boolean;
  /** The settings of the one table of options (config/options.ts), by name; empty ones undefined. */
  settings: OptionValues;
  /** Run the PR's code even where it could reach a credential that writes (action/guard.ts). */
  allowWriteToken: boolean;
  /** Run the PR's code even in a job that can request an OIDC token (action/id-token.ts). */
  allowIdToken: boolean;
  /** Report mode: the measuring step's results-digest output ("sha256:<hex>"), when given. */
  resultsDigest: string | null;
  github: GitHubInputs;
}

export class InputError extends Error {}

/** An input that must be one of `allowed`; the message lists them. */
function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const value = (core.getInput(name) || fallback).toLowerCase();
  if (!(allowed as readonly string[]).includes(value)) {
    const list = allowed.length === 2 ? allowed.join(' or ') : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
    throw new InputError(`Input ${name} is "${value}"; use ${list}.`);
  }
  return value as T;
}

/**
 * The comment mode `auto` (the default) stands for: report mode comments always (it runs no PR
 * code); gate mode comments only where the workflow accepted a write token next to the PR's code
 * (allow-write-token: true), and otherwise leaves the comment to a report job, so a one-job
 * workflow copied with the defaults measures, fails or passes the check and writes the job
 * summary instead of being refused for wanting pull-requests: write.
 */
export function resolveComment(requested: CommentMode | 'auto', mode: Mode, allowWriteToken: boolean): CommentMode {
  if (requested !== 'auto') return requested;
  return mode !== 'gate' || allowWriteToken ? 'always' : 'never';
}

/** The results-digest input: "sha256:" and 64 hex digits, or nothing. */
function readDigest(value: string): string | null {
  const digest = value.trim().toLowerCase();
  if (digest === '') return null;
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) {
    throw new InputError(`Input results-digest is "${value.slice(0, 80)}"; give the measuring step's results-digest output (sha256: and 64 hex digits), or leave it empty.`);
  }
  return digest;
}

/** Reads every input of action.yml once; empty inputs stay undefined so the config file decides. */
export function readInputs(): ActionInputs {
  const text = (name: string) => core.getInput(name) || undefined;
  const id = core.getInput('id') || 'default';
  if (!GATE_ID_PATTERN.test(id)) {
    throw new InputError(`Input id is "${id}"; use up to 64 letters, digits, ".", "_" or "-" (it names the comment and the artifacts).`);
  }
  const mode = choice('mode', ['gate', 'report', 'record', 'merge'] as const, 'gate');
  const baseline = choice('baseline', ['same-runner', 'stored'] as const, 'same-runner');
  if (baseline === 'stored' && mode !== 'gate') {
    throw new InputError(`Input baseline is "stored" with mode: ${mode}; a stored baseline is what a gate compares head with (mode: gate, on pull requests).`);
  }
  const allowWriteToken = choice('allow-write-token', ['true', 'false'] as const, 'false') === 'true';
  const comment = choice('comment', ['auto', 'always', 'on-change', 'on-regression', 'never'] as const, 'auto');
  return {
    mode,
    baseline,
    configFile: text('config') ?? null,
    base: core.getInput('base'),
    failOnRegression: choice('fail-on-regression', ['true', 'false'] as const, 'true') === 'true',
    settings: Object.fromEntries(
      OPTIONS.map((option) => [option.name, option.list ? core.getMultilineInput(option.name) : text(option.name)]),
    ),
    allowWriteToken,
    allowIdToken: choice('allow-id-token', ['true', 'false'] as const, 'false') === 'true',
    resultsDigest: readDigest(core.getInput('results-digest')),
    github: {
      token: core.getInput('github-token'),
      id,
      comment: resolveComment(comment, mode, allowWriteToken),
      commentAuto: comment === 'auto',
      acceptLabel: core.getInput('accept-label').trim() || 'perf-regression-accepted',
    },
  };
}

export interface BaseChoice {
  /** The commit to compare against, and whether to take its merge-base with head. */
  baseRef: string;
  /** The name to show for the base (the PR's base branch), when baseRef is a sha. */
  baseLabel?: string;
  mergeBase: boolean;
}

/**
 * The base: an explicit `base` input (merge-base with head, like the CLI), else the PR's base
 * commit (the first parent of the merge commit actions/checkout checks out), else the commit
 * before a push.
 */
export function resolveBase(eventName: string, payload: EventPayload, baseInput: string): BaseChoice {
  if (baseInput) return { baseRef: baseInput, mergeBase: true };
  const prBase = payload.pull_request?.base?.sha;
  if (typeof prBase === 'string' && prBase) {
    return { baseRef: prBase, baseLabel: payload.pull_request?.base?.ref, mergeBase: false };
  }
  const before = payload.before;
  if (eventName === 'push' && typeof before === 'string' && !/^0+$/.test(before)) {
    return { baseRef: before, mergeBase: false };
  }
  throw new InputError(
    `No base to compare against on a "${eventName}" event: set the base input (a branch, tag or sha), ` +
      'or run perfgate on pull_request events.',
  );
}
