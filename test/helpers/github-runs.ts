/**
 * Stand-ins for a measuring run, for report-mode tests that exercise only the GitHub side: a
 * fabricated results.json (no load is run) uploaded as the run's artifact with the toolkit,
 * the pull request known to the fake API, and the workflow_run event that points at the run.
 */
import type { GitHubRecord, Results } from '../../src/results/types.js';
import type { ArtifactBackend, StoredArtifact } from './artifact-service.js';
import { type FakeGitHub, type FakeJob, OWNER, REPO } from './github-api.js';
import { workflowRunEvent } from './github-events.js';
import { resultsFromPairs } from './results.js';

export const BASE_SHA = 'a'.repeat(40);

/** A head commit sha per test, so runs never share one. */
export function headShaFor(n: number): string {
  return n.toString(16).padStart(8, '0').repeat(5);
}

/** Paired req/s where head is within ±1% of base: every gated verdict "unchanged". */
export function cleanPairs(count = 14): [number, number][] {
  return Array.from({ length: count }, (_, i) => {
    const base = 1000 + 10 * Math.sin(i);
    return [base, base * (1 + 0.004 * Math.cos(3 * i))];
  });
}

/** Paired req/s where head is 20% slower than base: a gated throughput regression. */
export function regressedPairs(count = 14): [number, number][] {
  return cleanPairs(count).map(([base, head]) => [base, head * 0.8]);
}

export interface MeasuredRunSpec {
  runId: number;
  pullRequest: number;
  headSha: string;
  /** owner/name of the head repository: another than acme/shop makes the PR a fork's. */
  headRepo?: string;
  headBranch?: string;
  results?: Results;
  /** Overrides of the artifact's record of where it came from (to forge one). */
  record?: Partial<GitHubRecord>;
  /** The measuring run's event (default pull_request). */
  event?: string;
  artifactName?: string;
  /** The measuring run's jobs as GitHub records them (none: an empty list). */
  jobs?: FakeJob[];
}

/** Results of the measuring run with the action's record of where they came from. */
export function recordedResults(spec: MeasuredRunSpec): Results {
  const results = spec.results ?? resultsFromPairs(cleanPairs());
  const event = spec.event ?? 'pull_request';
  results.github = {
    repository: `${OWNER}/${REPO}`,
    pullRequest: event === 'pull_request' ? spec.pullRequest : null,
    headSha: spec.headSha,
    baseSha: event === 'pull_request' ? BASE_SHA : null,
    runId: String(spec.runId),
    event,
    ...spec.record,
  };
  return results;
}

/**
 * Uploads the run's results artifact, registers its pull request with the fake API, and
 * returns the workflow_run event a report workflow would get for it.
 */
export async function stageMeasuredRun(
  { artifacts, github }: { artifacts: ArtifactBackend; github: FakeGitHub },
  spec: MeasuredRunSpec,
): Promise<{ event: object; artifact: StoredArtifact; results: Results }> {
  const results = recordedResults(spec);
  const headRepo = spec.headRepo ?? `${OWNER}/${REPO}`;
  const headBranch = spec.headBranch ?? `feature-${spec.pullRequest}`;
  const event = spec.event ?? 'pull_request';
  const artifact = await artifacts.upload(spec.runId, spec.artifactName ?? 'perfgate-default', {
    'results.json': JSON.stringify(results, null, 2),
    'report.md': '# report\n',
  });
  const fork = headRepo !== `${OWNER}/${REPO}`;
  if (spec.jobs) github.jobs.set(spec.runId, spec.jobs);
  if (event === 'pull_request' && !github.pulls.some((pr) => pr.number === spec.pullRequest)) {
    github.pulls.push({ number: spec.pullRequest, state: 'open', headSha: spec.headSha, headRef: headBranch, headRepo });
  }
  return {
    artifact,
    results,
    event: workflowRunEvent({
      runId: spec.runId,
      event,
      headSha: spec.headSha,
      headBranch,
      headRepo,
      // GitHub lists same-repository pull requests on the run, and none for a fork.
      pullRequests:
        event === 'pull_request' && !fork ? [{ number: spec.pullRequest, headSha: spec.headSha, headRef: headBranch, baseSha: BASE_SHA }] : [],
    }),
  };
}
