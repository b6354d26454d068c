/**
 * Gate mode runs the pull request's code (install, build, service) on this runner, as this
 * runner's user. Before any of it runs, this guard refuses the setups where that code would
 * find a credential that can write: a git credential actions/checkout persisted, a token whose
 * write access GitHub tells, or a step configured to comment (which needs pull-requests: write).
 * The opt-out (allow-write-token: true) is for private repositories that accept the risk.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { GitHubClient } from '../github/client.js';
import type { Repo } from '../github/event.js';
import { InputError } from './inputs.js';

/**
 * The events gate mode measures on. Each runs in a context whose token GitHub makes read-only
 * for forks (pull_request) or that only people with write access can start (push,
 * workflow_dispatch, schedule, merge_group). pull_request_target and workflow_run hand a
 * write token to a job in the base repository: the PR's code must never run there.
 */
export const GATE_EVENTS = ['pull_request', 'push', 'workflow_dispatch', 'schedule', 'merge_group'] as const;

const FIX =
  'Measure in a job with `permissions: { contents: read }` whose actions/checkout step has `persist-credentials: false`, and comment from a job that runs no PR code ' +
  '(mode: report; example-workflows/perf.yml and perf-comment.yml, README "Permissions and forks"). ' +
  'A private repository that accepts the risk can set allow-write-token: true.';

export class UnsafeSetupError extends Error {}

export function checkGateEvent(eventName: string): void {
  if (eventName === 'pull_request_target') {
    throw new InputError(
      "perfgate runs the pull request's code, and on pull_request_target that code would run with a write token. " +
        'Measure on pull_request and comment from a workflow_run workflow with mode: report (README, "Permissions and forks").',
    );
  }
  if (!(GATE_EVENTS as readonly string[]).includes(eventName)) {
    throw new InputError(
      `mode: gate does not run on "${eventName || 'no event'}" events: it measures on ${GATE_EVENTS.join(', ')}. ` +
        'A workflow_run workflow reports a measuring run with mode: report.',
    );
  }
}

/** `git config --local --get-regexp`, [] when there is no repository or no match. */
function gitConfig(dir: string, pattern: string): [string, string][] {
  try {
    const out = execFileSync('git', ['-C', dir, 'config', '--local', '--get-regexp', pattern], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const space = line.indexOf(' ');
        return [line.slice(0, space), line.slice(space + 1)] as [string, string];
      });
  } catch {
    return [];
  }
}

function hasExtraheader(file: string): boolean {
  try {
    return /^\s*extraheader\s*=\s*\S/im.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Where a git credential is persisted for the PR's code to read: checkout v4/v5's
 * `http.<url>.extraheader` in .git/config, checkout v6's `includeIf.gitdir:….path` entries
 * pointing at a credentials config file (which also reaches worktrees, `…/.git/worktrees/*`),
 * and such files left in RUNNER_TEMP (checkout v6 writes `git-credentials-<uuid>.config` there).
 * Returns what was found, as places (never the values).
 */
export function findPersistedCredentials(workspace: string, runnerTemp: string | undefined): string[] {
  const found: string[] = [];
  for (const [key] of gitConfig(workspace, '^http\\..*\\.extraheader$')) found.push(`${key} in ${workspace}/.git/config`);
  for (const [key, value] of gitConfig(workspace, '^includeif\\..*\\.path$')) {
    const file = isAbsolute(value) ? value : join(workspace, '.git', value);
    if (hasExtraheader(file)) found.push(`${key} → ${file}`);
  }
  if (runnerTemp) {
    let names: string[] = [];
    try {
      names = readdirSync(runnerTemp);
    } catch {
      // no RUNNER_TEMP: nothing there
    }
    for (const name of names) {
      const file = join(runnerTemp, name);
      if (/^git-credentials-.*\.config$/.test(name) && hasExtraheader(file) && !found.some((f) => f.endsWith(file))) found.push(file);
    }
  }
  return found;
}

/**
 * Whether GitHub says the token can write to the repository: a classic personal token lists its
 * scopes in `x-oauth-scopes` ("repo" or "public_repo" write), a user token gets
 * `permissions.push` on GET /repos/{owner}/{repo}. An installation token (GITHUB_TOKEN, "ghs_")
 * reports neither, so it is not asked: null (unknown). Docs: "Scopes for OAuth apps" and
 * "REST API endpoints for repositories", GitHub.
 */
export async function tokenCanWrite(client: GitHubClient, repo: Repo, token: string): Promise<boolean | null> {
  if (token.startsWith('ghs_')) return null;
  try {
    const response = await client.rest.repos.get({ ...repo });
    const scopes = String(response.headers['x-oauth-scopes'] ?? '')
      .split(',')
      .map((s) => s.trim());
    const permissions = (response.data as { permissions?: { push?: boolean; maintain?: boolean; admin?: boolean } }).permissions;
    if (scopes.some((s) => s === 'repo' || s === 'public_repo')) return true;
    if (permissions) return Boolean(permissions.push || permissions.maintain || permissions.admin);
    return null;
  } catch {
    return null;
  }
}

export interface GuardInput {
  workspace: string;
  runnerTemp: string | undefined;
  /** The step would comment on a same-repository pull request: its token needs pull-requests: write. */
  wouldComment: boolean;
  /** What GitHub says about the token (tokenCanWrite). */
  tokenWrites: boolean | null;
}

/** The reasons this gate must not run PR code; empty when it may. */
export function writeAccessReasons(input: GuardInput): string[] {
  const reasons = findPersistedCredentials(input.workspace, input.runnerTemp).map((where) => `a git credential is persisted (${where})`);
  if (input.tokenWrites === true) reasons.push('the github-token input can write to the repository (GitHub says so)');
  if (input.wouldComment) {
    reasons.push('this step would comment on the pull request, which needs a token with pull-requests: write in the job that runs its code (set comment: never here)');
  }
  return reasons;
}

export function refuseWriteAccess(reasons: string[]): void {
  if (reasons.length === 0) return;
  throw new UnsafeSetupError(
    `perfgate runs the pull request's code, and that code could reach a credential that writes: ${reasons.join('; ')}. ${FIX}`,
  );
}
