/**
 * Records of main's commits as workflow-run artifacts: `mode: record` uploads one per push under
 * a name made of the gate's id and the commit's sha, so that a pull request's run finds the
 * record of its base through one call, GET /repos/{owner}/{repo}/actions/artifacts?name=…
 * (GitHub's "List artifacts for a repository"; the name filter is exact), and takes the newest.
 *
 * Any workflow run can upload an artifact of any name, a pull request's run too, which runs the
 * pull request's code: a record is believed only when the run that uploaded it was a push (or a
 * manual or scheduled run) of this repository at that very sha.
 */
import type { GitHubClient } from './client.js';
import type { Repo } from './event.js';
import type { RunArtifact } from './run-artifacts.js';

/** An artifact that looks like a record, with the run that uploaded it. */
export interface RecordArtifact extends RunArtifact {
  runId: number;
  createdAt: string;
}

/** Events whose runs measure code someone with write access pushed or started: never a pull request's. */
const TRUSTED_EVENTS = new Set(['push', 'workflow_dispatch', 'schedule']);

/** The artifact name of the record of `sha` for the gate `id` (≤ 256 characters: ids are ≤ 64). */
export function recordArtifactName(id: string, sha: string): string {
  return `perfgate-record-${id}-${sha}`;
}

/** Every unexpired artifact named as the record of `sha`, newest first. */
export async function listRecords(client: GitHubClient, repo: Repo, id: string, sha: string): Promise<RecordArtifact[]> {
  const name = recordArtifactName(id, sha);
  const artifacts = await client.paginate(client.rest.actions.listArtifactsForRepo, { ...repo, name, per_page: 100 });
  return artifacts
    .filter((a) => !a.expired && a.name === name && a.workflow_run?.id)
    .map((a) => ({
      id: a.id,
      name: a.name,
      sizeBytes: a.size_in_bytes,
      digest: (a as { digest?: string | null }).digest ?? null,
      runId: a.workflow_run!.id!,
      createdAt: a.created_at ?? '',
    }))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
}

/** What GitHub says about a workflow run (GET …/actions/runs/{id}, or one run of a listing), as far as trusting its artifacts goes. */
export interface RunOrigin {
  id: number;
  event: string;
  head_sha: string;
  head_branch?: string | null;
  head_repository?: { full_name?: string | null } | null;
}

/**
 * Why a run's artifacts cannot be trusted as measurements of this repository's code, or null
 * when they can: the run checked out this repository's code (not a fork's), on an event only
 * someone with write access starts, and, when given, at `sha` and on `branch`.
 */
export function untrustedRunReason(run: RunOrigin, repo: Repo, expected: { sha?: string; branch?: string } = {}): string | null {
  const repository = `${repo.owner}/${repo.repo}`.toLowerCase();
  if (run.head_repository?.full_name?.toLowerCase() !== repository) {
    return `run ${run.id} ran the code of ${run.head_repository?.full_name ?? 'another repository'}, not of ${repository}`;
  }
  if (!TRUSTED_EVENTS.has(run.event)) {
    return `run ${run.id} was triggered by ${run.event}, whose code may be a pull request's; only push, workflow_dispatch and schedule runs are trusted`;
  }
  if (expected.sha !== undefined && run.head_sha !== expected.sha) return `run ${run.id} measured ${run.head_sha}, not ${expected.sha}`;
  if (expected.branch !== undefined && run.head_branch !== expected.branch) return `run ${run.id} ran on ${run.head_branch ?? 'no branch'}, not on ${expected.branch}`;
  return null;
}

/** Why the run that uploaded a record cannot be trusted with it (untrustedRunReason), or null when it can. */
export async function untrustedRecordReason(client: GitHubClient, repo: Repo, record: RecordArtifact, sha: string): Promise<string | null> {
  const { data: run } = await client.rest.actions.getWorkflowRun({ ...repo, run_id: record.runId });
  return untrustedRunReason({ ...run, id: record.runId }, repo, { sha });
}
