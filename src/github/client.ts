/**
 * The octokit perfgate talks to GitHub with: the API URL of the runner (GITHUB_API_URL, so GHES
 * and tests work), server errors retried with back-off (plugin-retry), and rate limits waited
 * out when the wait is short (plugin-throttling).
 */
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { Logger } from '../engine/ports.js';

export type GitHubClient = ReturnType<typeof getOctokit>;

/** A rate limit that resets later than this fails the call instead of holding the job (seconds). */
const MAX_RATE_LIMIT_WAIT_S = 120;
/** Retries after a rate limit, per request. */
const RATE_LIMIT_RETRIES = 2;

/**
 * `baseUrl`: the API's address when it is not the runner's GITHUB_API_URL (the CLI reads it from
 * its own environment). `throttle: false` leaves out plugin-throttling, which spaces every write
 * of the process 1 s apart and every request that could notify 3 s apart: for requests that
 * create nothing (the guard's write probes), whose caller must then read a rate-limited answer
 * itself (rateLimited).
 */
export function createClient(token: string, logger: Logger, baseUrl?: string, options: { throttle?: boolean } = {}): GitHubClient {
  const onLimit =
    (kind: string) =>
    (retryAfter: number, options: { method?: string; url?: string }, _octokit: unknown, retryCount: number): boolean => {
      const request = `${options.method ?? ''} ${options.url ?? ''}`.trim();
      if (retryCount < RATE_LIMIT_RETRIES && retryAfter <= MAX_RATE_LIMIT_WAIT_S) {
        logger.info(`GitHub ${kind} on ${request}: retrying in ${retryAfter} s`);
        return true;
      }
      logger.warn(`GitHub ${kind} on ${request}: giving up (it resets in ${retryAfter} s)`);
      return false;
    };
  return getOctokit(
    token,
    {
      ...(baseUrl && { baseUrl: baseUrl.replace(/\/+$/, '') }),
      log: { debug: logger.debug, info: logger.debug, warn: logger.warn, error: logger.warn },
      // plugin-retry's defaults: 3 retries of 5xx and network errors, 1 s, 4 s, 9 s apart;
      // 4xx answers are final (a permission does not appear by retrying).
      retry: { retries: 3 },
      throttle: { enabled: options.throttle ?? true, onRateLimit: onLimit('rate limit'), onSecondaryRateLimit: onLimit('secondary rate limit') },
    },
    retry,
    throttling,
  );
}

/** The HTTP status of an octokit error, if it is one. */
export function statusOf(error: unknown): number | null {
  const status = (error as { status?: unknown })?.status;
  return typeof status === 'number' ? status : null;
}

/**
 * Whether an octokit error is GitHub's rate limit, not a refusal: 429, or a 403 whose message
 * says so (the primary and the secondary limits) or whose x-ratelimit-remaining is 0.
 */
export function rateLimited(error: unknown): boolean {
  const status = statusOf(error);
  if (status === 429) return true;
  if (status !== 403) return false;
  const message = (error as Error)?.message ?? '';
  const remaining = (error as { response?: { headers?: Record<string, string | undefined> } })?.response?.headers?.['x-ratelimit-remaining'];
  return /rate limit/i.test(message) || remaining === '0';
}

/**
 * A GitHub API failure as a sentence that says what to do: a 403/404 means the token lacks a
 * permission (`permission` names it), a 429 or a rate-limited 403 means waiting.
 */
export function describeApiError(error: unknown, action: string, permission: string): string {
  const status = statusOf(error);
  const message = (error as Error)?.message ?? String(error);
  if (rateLimited(error)) {
    return `Could not ${action}: GitHub's rate limit is exhausted (${message}). Run again later.`;
  }
  if (status === 403 || status === 404) {
    return (
      `Could not ${action} (${status}: ${message}). The workflow's token needs the \`${permission}\` permission: ` +
      `add \`permissions: { ${permission} }\` to the job (or pass a github-token that has it). ` +
      'On a pull request from a fork the token is read-only: post the comment from a workflow_run workflow with mode: report (docs/permissions.md).'
    );
  }
  return `Could not ${action}: ${status === null ? '' : `${status} `}${message}`;
}
