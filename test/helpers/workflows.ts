/** GitHub Actions workflow files as the tests read them: parsed with `yaml`, typed as far as they assert. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OWNER, REPO } from './github-api.js';
import { ROOT } from './repo.js';
import type { Contexts } from './workflow-expressions.js';

export interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
export interface Job {
  if?: string;
  needs?: string | string[];
  uses?: string;
  with?: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress'?: boolean };
  'timeout-minutes'?: number | string;
  outputs?: Record<string, string>;
  env?: Record<string, unknown>;
  steps: Step[];
}
export interface Workflow {
  name: string;
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: unknown;
  jobs: Record<string, Job>;
}

/** The workflow files of a directory of the repository: file name → text and parsed workflow. */
export function readWorkflows(dir: string): { dir: string; texts: Record<string, string>; workflows: Record<string, Workflow> } {
  const path = join(ROOT, dir);
  const files = readdirSync(path).filter((f) => f.endsWith('.yml'));
  const texts = Object.fromEntries(files.map((f) => [f, readFileSync(join(path, f), 'utf8')]));
  return { dir: path, texts, workflows: Object.fromEntries(files.map((f) => [f, parse(texts[f]!) as Workflow])) };
}

/** The steps that run perfgate's released action. */
export function perfgateSteps(job: Job): Step[] {
  return (job.steps ?? []).filter((s) => s.uses?.includes('/perfgate@'));
}

/** action.yml's inputs, with their defaults. */
export function actionInputs(): Record<string, { default?: string }> {
  return (parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }> }).inputs;
}

/** A reusable workflow's `on.workflow_call`. */
export interface WorkflowCall {
  inputs: Record<string, { type: 'string' | 'boolean' | 'number'; default?: string | boolean | number }>;
  secrets?: unknown;
  outputs: Record<string, { value: string }>;
}

export function workflowCall(workflow: Workflow): WorkflowCall {
  return workflow.on.workflow_call as WorkflowCall;
}

/**
 * The contexts a reusable workflow's jobs see when a pull_request workflow named "perf" calls it:
 * the caller's event, the called workflow's input defaults under the caller's `with:`, and the
 * results of the jobs a job needs.
 */
export function callContexts(called: Workflow, event: object, callerInputs: Record<string, unknown> = {}, needs: Contexts = {}): Contexts {
  const defaults = Object.entries(workflowCall(called).inputs).map(([name, input]) => [name, input.default ?? '']);
  return {
    github: { event_name: 'pull_request', event, repository: `${OWNER}/${REPO}`, workflow: 'perf', ref: 'refs/pull/1/merge' },
    inputs: { ...Object.fromEntries(defaults), ...callerInputs },
    needs,
  };
}
