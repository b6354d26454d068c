import { type EventPayload, parseRepo, type Repo, readEventPayload } from '../github/event.js';

/** What the runner tells a step about its run, read once from the environment. */
export interface RunContext {
  eventName: string;
  payload: EventPayload;
  /** GITHUB_REPOSITORY; null outside a runner. */
  repo: Repo | null;
  /** github.com, or the GHES host: artifact links point there. */
  serverUrl: string;
  runId: string | null;
  runAttempt: number;
  /** GITHUB_SHA: the commit the run checked out (a PR's merge commit). */
  sha: string | null;
  workspace: string;
  /** Where a run's files go (RUNNER_TEMP is emptied after each job). */
  tempDir: string;
  /** A copy of the step's environment as it started (process.env loses its tokens: dropTokenVariables). */
  env: Record<string, string | undefined>;
}

export function readRunContext(env: Record<string, string | undefined>): RunContext {
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd();
  const attempt = Number(env.GITHUB_RUN_ATTEMPT);
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload: readEventPayload(env.GITHUB_EVENT_PATH),
    repo: parseRepo(env.GITHUB_REPOSITORY),
    serverUrl: env.GITHUB_SERVER_URL || 'https://github.com',
    runId: env.GITHUB_RUN_ID || null,
    runAttempt: Number.isInteger(attempt) && attempt > 0 ? attempt : 1,
    sha: env.GITHUB_SHA || null,
    workspace,
    tempDir: env.RUNNER_TEMP ?? workspace,
    env: { ...env },
  };
}
