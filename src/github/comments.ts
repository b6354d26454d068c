/**
 * The sticky comment: found by its hidden marker on any page of the pull request's comments,
 * edited in place, created only when there is none (and the caller wants one).
 */
import type { GitHubClient } from './client.js';
import type { Repo } from './event.js';

/** Comments per page: GitHub's maximum, so a long discussion costs few requests. */
const PAGE_SIZE = 100;

export interface PostedComment {
  id: number;
  url: string;
  action: 'created' | 'updated';
}

/**
 * The first comment whose body starts with `marker`, paging through all comments (oldest
 * first) and stopping at the page that has it. Quoting perfgate's comment does not match: a
 * reply starts with "> ", and rendered text never contains the HTML comment.
 */
export async function findComment(
  client: GitHubClient,
  repo: Repo,
  issue: number,
  marker: string,
): Promise<{ id: number; url: string } | null> {
  const pages = client.paginate.iterator(client.rest.issues.listComments, { ...repo, issue_number: issue, per_page: PAGE_SIZE });
  for await (const page of pages) {
    const found = page.data.find((c) => c.body?.startsWith(marker));
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
  const existing = await findComment(client, repo, issue, marker);
  if (existing) {
    const { data } = await client.rest.issues.updateComment({ ...repo, comment_id: existing.id, body });
    return { id: data.id, url: data.html_url, action: 'updated' };
  }
  if (!create) return null;
  const { data } = await client.rest.issues.createComment({ ...repo, issue_number: issue, body });
  return { id: data.id, url: data.html_url, action: 'created' };
}
