/**
 * Gate mode runs the pull request's code (install, build, service) on this runner, as this
 * runner's user. Before any of it runs, this guard refuses the setups where that code would
 * find a credential that can write: a git credential actions/checkout persisted, a token whose
 * write access GitHub tells, or a step configured to comment (which needs pull-requests: write).
 * The opt-out (allow-write-token: true) is for private repositories that accept the risk.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { type GitHubClient, rateLimited, statusOf } from '../github/client.js';
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
  '(mode: report; example-workflows/perf.yml and perf-comment.yml, docs/permissions.md). ' +
  'A private repository that accepts the risk can set allow-write-token: true.';

export class UnsafeSetupError extends Error {}

export function checkGateEvent(eventName: string): void {
  if (eventName === 'pull_request_target') {
    throw new InputError(
      "perfgate runs the pull request's code, and on pull_request_target that code would run with a write token. " +
        'Measure on pull_request and comment from a workflow_run workflow with mode: report (docs/permissions.md).',
    );
  }
  if (!(GATE_EVENTS as readonly string[]).includes(eventName)) {
    throw new InputError(
      `mode: gate does not run on "${eventName || 'no event'}" events: it measures on ${GATE_EVENTS.join(', ')}. ` +
        'A workflow_run workflow reports a measuring run with mode: report.',
    );
  }
}

/** Where the PR's code would look for a credential: the runner's environment as perfgate got it. */
export interface CredentialPlaces {
  workspace: string;
  runnerTemp: string | undefined;
  env: Record<string, string | undefined>;
  /** Host of GITHUB_SERVER_URL: credential helpers for other hosts hold no credential for this repository. */
  serverHost: string;
}

/**
 * Token values as GitHub writes them: personal (ghp_), OAuth (gho_), user-to-server (ghu_),
 * installation (ghs_), refresh (ghr_) and fine-grained (github_pat_) tokens, and the base64 of
 * "x-access-token:" that starts actions/checkout's extraheader credential.
 */
const TOKEN_VALUE = /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})|eC1hY2Nlc3MtdG9rZW46/;

interface ConfigEntry {
  scope: string;
  origin: string;
  key: string;
  value: string;
}

/**
 * Every git configuration entry the PR's code would see from the workspace: system, global
 * (GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME, HOME), local, worktree and command-line (GIT_CONFIG_COUNT)
 * scopes, with include and includeIf files followed. [] when git cannot be run.
 */
function gitConfigEntries(places: CredentialPlaces): ConfigEntry[] {
  let out: string;
  try {
    out = execFileSync('git', ['-C', places.workspace, 'config', '--show-origin', '--show-scope', '--includes', '--null', '--list'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: gitEnv(places.env),
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch {
    return [];
  }
  const fields = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, pair] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
    const newline = pair.indexOf('\n');
    entries.push({ scope, origin, key: (newline < 0 ? pair : pair.slice(0, newline)).toLowerCase(), value: newline < 0 ? '' : pair.slice(newline + 1) });
  }
  return entries;
}

/** The environment git reads its configuration places from, without the PR's or perfgate's overrides of the command. */
function gitEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !/^GIT_(DIR|WORK_TREE|INDEX_FILE|CEILING_DIRECTORIES)$/.test(k)) out[k] = v;
  return out;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function hasExtraheader(file: string): boolean {
  return /^\s*extraheader\s*=\s*\S/im.test(readText(file) ?? '');
}

/** A URL with a password, or with a user name that is a token ("https://ghp_…@github.com"). */
function urlCarriesCredential(url: string): boolean {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/@]*)@/i.exec(url.trim());
  if (!match) return TOKEN_VALUE.test(url);
  const [user, password] = match[1]!.split(':');
  return Boolean(password) || TOKEN_VALUE.test(decodeURIComponent(user ?? '')) || (user ?? '').length >= 30;
}

/** `file:<path>` of --show-origin as a path (relative ones are the repository's). */
function originFile(origin: string, workspace: string): string | null {
  if (!origin.startsWith('file:')) return null;
  const path = origin.slice('file:'.length);
  return isAbsolute(path) ? path : join(workspace, path);
}

/** The host a `credential.<url>.helper` key is scoped to; null for an unscoped `credential.helper`. */
function helperHost(key: string): string | null | undefined {
  if (key === 'credential.helper') return null;
  const match = /^credential\.(.+)\.helper$/.exec(key);
  if (!match) return undefined;
  try {
    return new URL(match[1]!.includes('://') ? match[1]! : `https://${match[1]}`).hostname.toLowerCase();
  } catch {
    return match[1]!.toLowerCase();
  }
}

/** Files `git credential-store` reads: --file=<path>, else ~/.git-credentials and $XDG_CONFIG_HOME/git/credentials. */
function storeFiles(helper: string, places: CredentialPlaces): string[] {
  const file = /--file[= ]\s*("?)([^"\s]+)\1/.exec(helper)?.[2];
  if (file) return [file.replace(/^~(?=\/)/, places.env.HOME ?? '~')];
  return defaultStoreFiles(places);
}

function defaultStoreFiles(places: CredentialPlaces): string[] {
  const home = places.env.HOME;
  const xdg = places.env.XDG_CONFIG_HOME || (home ? join(home, '.config') : undefined);
  return [...(home ? [join(home, '.git-credentials')] : []), ...(xdg ? [join(xdg, 'git', 'credentials')] : [])];
}

/** gh's hosts.yml: GH_CONFIG_DIR, else $XDG_CONFIG_HOME/gh, else ~/.config/gh. */
function ghHostsFile(places: CredentialPlaces): string | null {
  const { GH_CONFIG_DIR, XDG_CONFIG_HOME, HOME } = places.env;
  const dir = GH_CONFIG_DIR || (XDG_CONFIG_HOME ? join(XDG_CONFIG_HOME, 'gh') : HOME ? join(HOME, '.config', 'gh') : null);
  return dir ? join(dir, 'hosts.yml') : null;
}

/** A credential-store file that holds an entry: a URL with a password or token in it. */
function storeHoldsCredential(file: string): boolean {
  return (readText(file) ?? '').split('\n').some((line) => urlCarriesCredential(line) || TOKEN_VALUE.test(line));
}

/**
 * Where a git or GitHub credential is left for the PR's code to read, as places (never the
 * values): an `http.<url>.extraheader` in any scope (actions/checkout v4/v5 writes one to
 * .git/config), include and includeIf files that hold one (checkout v6 points .git/config at
 * `git-credentials-<uuid>.config` in RUNNER_TEMP, conditioned on the gitdir, which the base and
 * head worktrees also match), remote URLs and `url.<base>.insteadOf` rules with a password or
 * token in them, credential helpers for this server (`store` with a file that has an entry,
 * `cache`, or any other program the PR's code could ask with `git credential fill`),
 * ~/.git-credentials on its own, gh's hosts.yml with a token, and a token value anywhere in
 * the configuration.
 */
export function findPersistedCredentials(places: CredentialPlaces): string[] {
  const found = new Set<string>();
  const where = (e: ConfigEntry) => `${redact(e.key)} in the ${e.scope} git config (${originFile(e.origin, places.workspace) ?? e.origin})`;
  for (const e of gitConfigEntries(places)) {
    const before = found.size;
    if (/^http\..*\.extraheader$/.test(e.key) || e.key === 'http.extraheader') {
      if (e.value.trim() !== '') found.add(where(e));
    } else if (/^remote\..*\.(url|pushurl)$/.test(e.key)) {
      if (urlCarriesCredential(e.value)) found.add(`a remote URL with a credential in it: ${where(e)}`);
    } else if (/^url\..*\.(insteadof|pushinsteadof)$/.test(e.key)) {
      // The rewritten-to URL is the key's middle part: url.<base>.insteadOf.
      const base = e.key.replace(/^url\./, '').replace(/\.(insteadof|pushinsteadof)$/, '');
      if (urlCarriesCredential(base) || urlCarriesCredential(e.value)) found.add(`an insteadOf rule that rewrites to a URL with a credential: ${where(e)}`);
    } else if (/^(include|includeif\..*)\.path$/.test(e.key)) {
      const file = isAbsolute(e.value) ? e.value : join(dirname(originFile(e.origin, places.workspace) ?? join(places.workspace, '.git', 'config')), e.value);
      // Whatever the condition: the worktrees the PR's code runs in may meet it where this one does not.
      if (hasExtraheader(file) || TOKEN_VALUE.test(readText(file) ?? '')) found.add(`${e.key} → ${file} (${e.scope} git config)`);
    } else {
      const host = helperHost(e.key);
      if (host !== undefined && e.value.trim() !== '' && (host === null || host === places.serverHost)) {
        const helper = e.value.trim();
        if (/^store\b/.test(helper)) {
          const files = storeFiles(helper, places).filter(storeHoldsCredential);
          if (files.length > 0) found.add(`credential.helper store with a credential in ${files.join(', ')} (${e.scope} git config)`);
        } else {
          found.add(`a credential helper the PR's code can ask for this server's credential (${where(e)}: ${helper.split(/\s/)[0]})`);
        }
      }
    }
    if (found.size === before && (TOKEN_VALUE.test(e.value) || TOKEN_VALUE.test(e.key))) found.add(`a token value in ${where(e)}`);
  }
  for (const file of defaultStoreFiles(places)) if (storeHoldsCredential(file)) found.add(`a git credential-store file with a credential (${file})`);
  const hosts = ghHostsFile(places);
  const hostsText = hosts ? readText(hosts) : null;
  if (hosts && hostsText !== null && (/^\s*oauth_token\s*:\s*\S/m.test(hostsText) || TOKEN_VALUE.test(hostsText))) found.add(`gh's hosts.yml with a token (${hosts})`);
  if (places.runnerTemp) {
    let names: string[] = [];
    try {
      names = readdirSync(places.runnerTemp);
    } catch {
      // no RUNNER_TEMP: nothing there
    }
    for (const name of names) {
      const file = join(places.runnerTemp, name);
      if (/^git-credentials-.*\.config$/.test(name) && hasExtraheader(file) && ![...found].some((f) => f.includes(file))) found.add(file);
    }
  }
  return [...found].map(redact);
}

/** A place as it may be shown: a URL's user information and any token value masked. */
function redact(text: string): string {
  return text.replace(/(:\/\/)[^/@\s]*@/g, '$1***@').replace(new RegExp(TOKEN_VALUE.source, 'g'), '***');
}

/**
 * Write requests that can never succeed (a required field is missing, so nothing is created)
 * and that need one write permission each: GitHub checks an installation token's permission
 * before the request's fields, answering 403 "Resource not accessible by integration" without
 * it and 422 (the missing field) with it.
 */
const WRITE_PROBES = [
  { permission: 'contents: write', route: 'POST /repos/{owner}/{repo}/git/refs', data: { ref: 'refs/perfgate-probe' } },
  { permission: 'pull-requests: write', route: 'POST /repos/{owner}/{repo}/pulls', data: { title: '' } },
  { permission: 'issues: write', route: 'POST /repos/{owner}/{repo}/issues', data: { body: '' } },
] as const;

/**
 * What an installation token (GITHUB_TOKEN, "ghs_") may write, which GitHub reports nowhere
 * but in the answer to a write: the permissions it has among those of WRITE_PROBES, [] when it
 * has none of them, null when an answer was neither a refusal nor a validation error (a rate
 * limit says nothing about the permission). The probes create nothing, so they go at once: the
 * client need not space them as it spaces writes (createClient's `throttle: false`).
 */
export async function installationTokenWrites(client: GitHubClient, repo: Repo): Promise<string[] | null> {
  const answers = await Promise.all(
    WRITE_PROBES.map(async (probe): Promise<'write' | 'refused' | 'unknown'> => {
      try {
        // Typed as a plain route: the probe leaves out on purpose the fields octokit's types require.
        await client.request(probe.route as string, { ...repo, ...probe.data });
        return 'unknown'; // created something from an incomplete request: not the API this was written for
      } catch (e) {
        const status = statusOf(e);
        if (status === 422 || status === 400) return 'write';
        return (status === 403 || status === 404) && !rateLimited(e) ? 'refused' : 'unknown';
      }
    }),
  );
  if (answers.includes('unknown')) return null;
  return WRITE_PROBES.flatMap((probe, i) => (answers[i] === 'write' ? [probe.permission] : []));
}

/**
 * Whether GitHub says the token can write to the repository: a classic personal token lists its
 * scopes in `x-oauth-scopes` ("repo" or "public_repo" write), a user token gets
 * `permissions.push` on GET /repos/{owner}/{repo}, an installation token is probed
 * (installationTokenWrites). Null when GitHub's answers do not tell. Docs: "Scopes for OAuth
 * apps" and "REST API endpoints for repositories", GitHub.
 */
export async function tokenCanWrite(client: GitHubClient, repo: Repo, token: string): Promise<boolean | null> {
  if (token.startsWith('ghs_')) {
    const writes = await installationTokenWrites(client, repo);
    return writes === null ? null : writes.length > 0;
  }
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
  places: CredentialPlaces;
  /** The step would comment on a same-repository pull request: its token needs pull-requests: write. */
  wouldComment: boolean;
  /** What GitHub says about the token (tokenCanWrite). */
  tokenWrites: boolean | null;
  /** An unknown answer counts as a write: a pull request's code runs next to the token. */
  refuseUnknownToken?: boolean;
}

/** The reasons this gate must not run PR code; empty when it may. */
export function writeAccessReasons(input: GuardInput): string[] {
  const reasons = findPersistedCredentials(input.places).map((where) => `a git credential is persisted (${where})`);
  if (input.tokenWrites === true) reasons.push('the github-token input can write to the repository (GitHub says so)');
  if (input.tokenWrites === null && input.refuseUnknownToken) {
    reasons.push(
      "GitHub's answers do not tell whether the github-token input can write to the repository (give the measuring job `permissions: { contents: read }`, or github-token: '' when it does not comment)",
    );
  }
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
