/**
 * The sticky comment: found by its hidden marker (which names the gate and the workflow that
 * posts it) on any page of the pull request's comments, among the comments of the token's own
 * identity only, edited in place, created only when there
 * is none (and the caller wants one). Anyone can post a comment that starts with the marker; only
 * perfgate's own may be edited, or a forged one would be overwritten into a trusted verdict.
 */
import { type GitHubClient, statusOf } from './client.js';
import type { Repo } from './event.js';

/** Comments per page: GitHub's maximum, so a long discussion costs few requests. */
const PAGE_SIZE = 100;

export interface PostedComment {
  id: number;
  url: string;
  action: 'created' | 'updated';
}

/**
 * The identity the workflow's GITHUB_TOKEN comments as: the GitHub Actions app's bot user.
 * GitHub's docs, "Automatic token authentication": the token is a GitHub App installation token.
 */
export const ACTIONS_BOT = 'github-actions[bot]';

/**
 * The workflow file of GITHUB_WORKFLOW_REF ("owner/repo/.github/workflows/perf.yml@refs/…"):
 * ".github/workflows/perf.yml", or null when the runner did not say.
 */
export function workflowOfRef(ref: string | undefined): string | null {
  const match = /^[^/]+\/[^/]+\/(.+?)@/.exec(ref ?? '');
  return match ? match[1]! : null;
}

/**
 * Who the token comments as: the user of a personal token (GET /user), else the GitHub Actions
 * bot (an installation token gets 403 from GET /user, "Resource not accessible by integration").
 */
export async function commentAuthor(client: GitHubClient): Promise<string> {
  try {
    const { data } = await client.rest.users.getAuthenticated();
    return data.login;
  } catch (e) {
    if (statusOf(e) === 403) return ACTIONS_BOT;
    throw e;
  }
}

/**
 * The first comment by `author` whose body starts with `marker`, paging through all comments (oldest
 * first) and stopping at the page that has it. Quoting perfgate's comment does not match: a
 * reply starts with "> ", and rendered text never contains the HTML comment.
 */
export async function findComment(
  client: GitHubClient,
  repo: Repo,
  issue: number,
  marker: string,
  author: string,
): Promise<{ id: number; url: string } | null> {
  const pages = client.paginate.iterator(client.rest.issues.listComments, { ...repo, issue_number: issue, per_page: PAGE_SIZE });
  for await (const page of pages) {
    const found = page.data.find((c) => c.user?.login === author && (c.body === marker || c.body?.startsWith(`${marker}\n`)));
    if (found) return { id: found.id, url: found.html_url };
  }
  return null;
}

/**
 * Updates perfgate's comment, or creates it when `create` is true and there is none. Null when
 * nothing was posted (no comment exists and none was wanted).
 */
export async function upsertComment(
  client: GitHubClient,
  repo: Repo,
  issue: number,
  marker: string,
  body: string,
  create: boolean,
): Promise<PostedComment | null> {
  const existing = await findComment(client, repo, issue, marker, await commentAuthor(client));
  if (existing) {
    const { data } = await client.rest.issues.updateComment({ ...repo, comment_id: existing.id, body });
    return { id: data.id, url: data.html_url, action: 'updated' };
  }
  if (!create) return null;
  const { data } = await client.rest.issues.createComment({ ...repo, issue_number: issue, body });
  return { id: data.id, url: data.html_url, action: 'created' };
}
