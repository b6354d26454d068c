/**
 * The runs `perfgate history --github` reads: the results artifacts perfgate uploaded on the
 * branch's completed workflow runs, newest first, through the REST API. A history reads only
 * what trusted measuring runs published: an artifact counts when its run was a push, manual or
 * scheduled run of this very repository on the branch (github/records.ts), and its results.json
 * measured the run's commit. Each archive is fetched to at most 64 MiB, checked against the
 * digest GitHub recorded at upload, unpacked by the strict zip reader, and validated exactly as
 * a file of a directory is (collect.ts). An artifact that does not pass is named and left out,
 * never fatal; only what stops every read (no token, no access, no such repository) is.
 *
 * Which artifacts: the gate's results artifact (`perfgate-<id>`, `-attempt<n>` on a re-run: its
 * results.json is the one report mode reads) and mode: record's records
 * (`perfgate-record-<id>-<sha>`). Both measure the run's commit as head; a commit measured by
 * both, or by several runs, counts once, by its latest run (series.ts). A sharded gate's
 * artifacts (`-shard<i>of<n>`) are each read as one part of its commit's measurement.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GitHubClient, statusOf } from '../github/client.js';
import type { Repo } from '../github/event.js';
import { type RunOrigin, untrustedRunReason } from '../github/records.js';
import { ArtifactError, extractZipFile, fetchArtifactZip, type ListedArtifact, listRunArtifactsWithExpired } from '../github/run-artifacts.js';
import { parseResults, ResultsFileError } from '../results/io.js';
import { validateResults } from '../results/validate.js';
import { type CollectedRun, MAX_RESULTS_BYTES, type SkippedFile } from './collect.js';

/** Runs looked at when --limit is not given: about a quarter of pushes, or a year of weekly runs. */
export const DEFAULT_RUN_LIMIT = 60;

/** A failure that stops the whole read; its message says what to do. */
export class HistorySourceError extends Error {}

export interface GitHubSource {
  client: GitHubClient;
  repo: Repo;
  /** For messages: where the API is. */
  apiUrl: string;
  /** null: the repository's default branch. */
  branch: string | null;
  /** A workflow's file name (perf.yml) or id; null: every workflow's runs. */
  workflow: string | null;
  limit: number;
  /** The gate's id (the action's `id` input). */
  id: string;
  /** Where to keep each results.json read, as <dir>/<run id>-<artifact>/results.json; null: nowhere. */
  saveDir: string | null;
  /** Progress lines (stderr). */
  log(line: string): void;
}

export interface GitHubRuns {
  runs: CollectedRun[];
  skipped: SkippedFile[];
  branch: string;
  /** Workflow runs looked at. */
  looked: number;
}

type ListedRun = RunOrigin & { run_attempt?: number };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The artifacts of a run that hold one of this gate's results: the latest attempt's results
 * artifact (an earlier attempt of the same run measured the same commit), of each shard when the
 * gate is sharded (each holds its part of the scenarios and benchmarks), and records.
 */
export function resultsArtifactsOf(artifacts: readonly ListedArtifact[], id: string): ListedArtifact[] {
  const gate = new RegExp(`^perfgate-${escapeRegExp(id)}(-shard\\d+of\\d+)?(?:-attempt(\\d+))?$`);
  const record = new RegExp(`^perfgate-record-${escapeRegExp(id)}-[0-9a-f]{40}$`);
  const latest = new Map<string, { artifact: ListedArtifact; attempt: number }>();
  for (const artifact of artifacts) {
    const match = gate.exec(artifact.name);
    if (!match) continue;
    const part = match[1] ?? '';
    const attempt = Number(match[2] ?? 1);
    if ((latest.get(part)?.attempt ?? 0) < attempt) latest.set(part, { artifact, attempt });
  }
  const parts = [...latest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v.artifact);
  return [...parts, ...artifacts.filter((a) => record.test(a.name))];
}

/** An API failure that stops the read, as a sentence naming the fix. */
function describeFailure(error: unknown, action: string, source: GitHubSource): string {
  const status = statusOf(error);
  const message = (error as Error)?.message ?? String(error);
  const repository = `${source.repo.owner}/${source.repo.repo}`;
  if ((status === 403 && /rate limit/i.test(message)) || status === 429) return `Could not ${action}: GitHub's rate limit is exhausted (${message}). Run again later.`;
  if (status === 401) return `Could not ${action}: ${source.apiUrl} refused the token (401 ${message}). Set GITHUB_TOKEN or GH_TOKEN to a valid token.`;
  if (status === 403) {
    return (
      `Could not ${action} (403: ${message}). The token needs read access to the repository's Actions: in a workflow, give the job ` +
      '`permissions: { actions: read }`; a fine-grained token needs "Actions: read" on the repository.'
    );
  }
  if (status === 404) return `Could not ${action} (404: ${message}): ${repository} does not exist at ${source.apiUrl}, or the token cannot see it.`;
  return `Could not ${action}: ${status === null ? '' : `${status} `}${message}`;
}

/** The newest `limit` completed runs of the branch (of one workflow when given), in one call per 100. */
async function listRuns(source: GitHubSource, branch: string): Promise<ListedRun[]> {
  const { client, repo, workflow, limit } = source;
  const params = { ...repo, branch, status: 'completed' as const, exclude_pull_requests: true, per_page: Math.min(100, limit) };
  let seen = 0;
  const keep = (response: { data: unknown[] }, done: () => void) => {
    seen += response.data.length;
    if (seen >= limit) done();
    return response.data as ListedRun[];
  };
  try {
    const runs =
      workflow === null
        ? await client.paginate(client.rest.actions.listWorkflowRunsForRepo, params, keep)
        : await client.paginate(client.rest.actions.listWorkflowRuns, { ...params, workflow_id: workflow }, keep);
    return runs.slice(0, limit);
  } catch (e) {
    if (workflow !== null && statusOf(e) === 404) {
      throw new HistorySourceError(
        `No workflow ${workflow} in ${repo.owner}/${repo.repo} (404): --workflow takes a workflow's file name under .github/workflows (perf.yml) or its id.`,
      );
    }
    throw new HistorySourceError(describeFailure(e, `list the workflow runs of ${branch}`, source));
  }
}

/** One artifact read into a run, or why it is left out. */
async function readArtifact(source: GitHubSource, branch: string, run: ListedRun, artifact: ListedArtifact, label: string): Promise<CollectedRun | SkippedFile> {
  // A record names the commit it measured: its run must have run that commit.
  const recordSha = /^perfgate-record-.*-([0-9a-f]{40})$/.exec(artifact.name)?.[1];
  const untrusted = untrustedRunReason(run, source.repo, { branch, ...(recordSha && { sha: recordSha }) });
  if (untrusted) return { file: label, reason: untrusted };
  if (artifact.expired) return { file: label, reason: "the artifact has expired (artifacts are kept for the repository's retention period, 90 days by default)" };
  if (artifact.sizeBytes > MAX_RESULTS_BYTES) return { file: label, reason: `the artifact is ${artifact.sizeBytes} bytes, more than a results artifact can be (${MAX_RESULTS_BYTES})` };
  try {
    // The label starts the line these reasons are printed on: they name the part, not the artifact again.
    const zip = await fetchArtifactZip(source.client, source.repo, artifact, MAX_RESULTS_BYTES, 'the archive');
    const bytes = extractZipFile(zip, 'results.json', MAX_RESULTS_BYTES, 'the archive');
    const results = validateResults(parseResults(bytes.toString('utf8'), 'its results.json'), 'its results.json');
    if (results.sides.head.sha !== run.head_sha) {
      return { file: label, reason: `its results.json measured ${results.sides.head.sha}, but run ${run.id} ran ${run.head_sha}` };
    }
    if (source.saveDir) {
      const dir = join(source.saveDir, `${run.id}-${artifact.name}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'results.json'), bytes);
    }
    return { file: label, results };
  } catch (e) {
    if (e instanceof ArtifactError || e instanceof ResultsFileError) return { file: label, reason: e.message };
    const status = statusOf(e);
    if (status === 401 || status === 403) throw new HistorySourceError(describeFailure(e, `download ${label}`, source));
    return { file: label, reason: `the download failed: ${status === null ? '' : `${status} `}${(e as Error).message}` };
  }
}

/** Every readable run of the branch's recent history on GitHub, and each artifact left out with why. */
export async function collectGitHubRuns(source: GitHubSource): Promise<GitHubRuns> {
  const { client, repo } = source;
  let branch = source.branch;
  if (branch === null) {
    try {
      const { data } = await client.rest.repos.get({ ...repo });
      branch = data.default_branch || 'main';
    } catch (e) {
      throw new HistorySourceError(describeFailure(e, `read the repository ${repo.owner}/${repo.repo}`, source));
    }
  }
  const listed = await listRuns(source, branch);
  source.log(`perfgate: looking at the ${listed.length} newest completed run${listed.length === 1 ? '' : 's'} on ${branch} of ${repo.owner}/${repo.repo}${source.workflow ? ` (${source.workflow})` : ''}`);
  const runs: CollectedRun[] = [];
  const skipped: SkippedFile[] = [];
  for (const run of listed) {
    let artifacts: ListedArtifact[];
    try {
      artifacts = await listRunArtifactsWithExpired(client, repo, run.id);
    } catch (e) {
      const status = statusOf(e);
      if (status === 401 || status === 403) throw new HistorySourceError(describeFailure(e, `list the artifacts of run ${run.id}`, source));
      skipped.push({ file: `run ${run.id}`, reason: `its artifacts could not be listed: ${(e as Error).message}` });
      continue;
    }
    for (const artifact of resultsArtifactsOf(artifacts, source.id)) {
      const read = await readArtifact(source, branch, run, artifact, `run ${run.id} ${artifact.name}`);
      if ('results' in read) runs.push(read);
      else skipped.push(read);
    }
  }
  return { runs, skipped, branch, looked: listed.length };
}
