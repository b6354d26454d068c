/**
 * The parts of GitHub's webhook payloads perfgate reads (the file at GITHUB_EVENT_PATH), typed
 * as optional because a payload is outside data: every reader narrows what it uses.
 */
import { readFileSync } from 'node:fs';

export interface Repo {
  owner: string;
  repo: string;
}

interface RepoPayload {
  id?: number;
  name?: string;
  full_name?: string;
  fork?: boolean;
  owner?: { login?: string };
}

interface PullRequestPayload {
  number?: number;
  head?: { ref?: string; sha?: string; repo?: RepoPayload | null };
  base?: { ref?: string; sha?: string; repo?: RepoPayload | null };
  labels?: { name?: string }[];
}

export interface WorkflowRunPayload {
  id?: number;
  run_attempt?: number;
  event?: string;
  head_sha?: string;
  head_branch?: string | null;
  head_repository?: RepoPayload | null;
  repository?: RepoPayload;
  pull_requests?: PullRequestPayload[];
}

export interface EventPayload {
  before?: string;
  after?: string;
  pull_request?: PullRequestPayload;
  workflow_run?: WorkflowRunPayload;
  repository?: RepoPayload;
}

export class EventError extends Error {}

/** The event payload; an empty object when the runner gave none (a local run). */
export function readEventPayload(path: string | undefined): EventPayload {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as EventPayload;
  } catch (e) {
    throw new EventError(`Cannot read the event payload ${path}: ${(e as Error).message}`);
  }
}

/** "owner/name" → { owner, repo }; null when it is not of that shape. */
export function parseRepo(fullName: string | undefined): Repo | null {
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(fullName ?? '');
  return match ? { owner: match[1]!, repo: match[2]! } : null;
}

export function formatRepo(repo: Repo): string {
  return `${repo.owner}/${repo.repo}`;
}

export interface PullRequestInfo {
  number: number;
  headSha: string | null;
  baseSha: string | null;
  baseRef: string | null;
  /** The head lives in another repository: the run's token is read-only and cannot comment. */
  fromFork: boolean;
  labels: string[];
}

/** The pull request of a pull_request event, or null for any other event. */
export function pullRequestOf(payload: EventPayload): PullRequestInfo | null {
  const pr = payload.pull_request;
  if (typeof pr?.number !== 'number') return null;
  const headRepo = pr.head?.repo?.full_name;
  const baseRepo = pr.base?.repo?.full_name ?? payload.repository?.full_name;
  return {
    number: pr.number,
    headSha: pr.head?.sha ?? null,
    baseSha: pr.base?.sha ?? null,
    baseRef: pr.base?.ref ?? null,
    // A deleted fork has no head repository; treat it as a fork (the token is read-only then too).
    fromFork: pr.head?.repo === null || (headRepo !== undefined && baseRepo !== undefined && headRepo !== baseRepo),
    labels: (pr.labels ?? []).map((l) => l.name).filter((n): n is string => typeof n === 'string'),
  };
}
