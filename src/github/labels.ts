import type { GitHubClient } from './client.js';
import type { Repo } from './event.js';

/**
 * The labels on a pull request now (not when the event fired: a label added while perfgate
 * measured still counts).
 */
export async function listLabels(client: GitHubClient, repo: Repo, issue: number): Promise<string[]> {
  const labels = await client.paginate(client.rest.issues.listLabelsOnIssue, { ...repo, issue_number: issue, per_page: 100 });
  return labels.map((label) => label.name);
}
