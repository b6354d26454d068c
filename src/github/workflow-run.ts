/**
 * Fork-safe reporting: a workflow triggered by `workflow_run` (base repository, write token,
 * never the PR's code) reads the results artifact of the measuring run and comments on its pull
 * request. The artifact was uploaded by a job that ran the PR's code, so it is data to check,
 * never a source of truth: the pull request comes from GitHub's own records of the run, and the
 * artifact's record of where it came from must agree with them.
 */
import type { GitHubRecord } from '../results/types.js';
import type { GitHubClient } from './client.js';
import { EventError, type EventPayload, type Repo } from './event.js';

export interface TriggeringRun {
  id: number;
  attempt: number;
  /** The event of the measuring run: pull_request, push, workflow_dispatch. */
  event: string;
  headSha: string;
  headBranch: string | null;
  /** Owner of the repository the head commit lives in (the fork's owner for a fork PR). */
  headOwner: string | null;
  /** Pull requests GitHub lists on the run; empty for a pull request from a fork. */
  pullRequests: { number: number; headSha: string | null; baseRepoUrl: string | null; baseRepoName: string | null }[];
}

export class UntrustedResultsError extends Error {}

/** The measuring run a workflow_run event is about. */
export function triggeringRunOf(payload: EventPayload): TriggeringRun {
  const run = payload.workflow_run;
  if (typeof run?.id !== 'number' || typeof run.head_sha !== 'string' || typeof run.event !== 'string') {
    throw new EventError(
      'mode: report reads the run that triggered a workflow_run event, and this event has no workflow_run: ' +
        'run it in a workflow with `on: workflow_run` (see example-workflows/perf-comment.yml).',
    );
  }
  return {
    id: run.id,
    attempt: typeof run.run_attempt === 'number' && run.run_attempt > 0 ? run.run_attempt : 1,
    event: run.event,
    headSha: run.head_sha,
    headBranch: run.head_branch ?? null,
    headOwner: run.head_repository?.owner?.login ?? null,
    pullRequests: (run.pull_requests ?? []).flatMap((pr) =>
      typeof pr.number === 'number'
        ? [
            {
              number: pr.number,
              headSha: pr.head?.sha ?? null,
              baseRepoUrl: (pr.base?.repo as { url?: string } | undefined)?.url ?? null,
              baseRepoName: pr.base?.repo?.name ?? null,
            },
          ]
        : [],
    ),
  };
}

/**
 * The measuring job of this very run, for a report job in the same workflow (`needs:` the
 * measuring job, on a pull_request event): the run is this one, and the pull request is the
 * event's, both from the runner (this job runs no PR code, so they are as trusted as a
 * workflow_run event).
 */
export function currentRunOf(payload: EventPayload, runId: string | null, attempt: number, repo: Repo): TriggeringRun {
  const pr = payload.pull_request;
  const id = Number(runId);
  if (typeof pr?.number !== 'number' || typeof pr.head?.sha !== 'string' || !Number.isSafeInteger(id)) {
    throw new EventError(
      'mode: report reads a measuring run: in a workflow_run workflow (the run that triggered it), or in a later job of a pull_request ' +
        'workflow (this run). This event is neither (example-workflows/perf.yml).',
    );
  }
  return {
    id,
    attempt,
    event: 'pull_request',
    headSha: pr.head.sha,
    headBranch: pr.head.ref ?? null,
    headOwner: pr.head.repo?.owner?.login ?? null,
    pullRequests: [{ number: pr.number, headSha: pr.head.sha, baseRepoUrl: null, baseRepoName: repo.repo }],
  };
}

/**
 * The open pull requests of this repository whose head is the run's commit, from GitHub's data
 * only. Same-repository PRs are listed on the run; for a fork that list is empty, so the open
 * PRs from the run's head branch are asked for. A PR whose head moved on is not returned: its
 * newer run will report.
 */
export async function pullRequestsOfRun(client: GitHubClient, repo: Repo, run: TriggeringRun): Promise<number[]> {
  if (run.event !== 'pull_request') return [];
  // GitHub can list PRs of other repositories with the same branch name on a run: keep ours.
  const listed = run.pullRequests.filter(
    (pr) =>
      pr.headSha === run.headSha &&
      (pr.baseRepoUrl === null ? pr.baseRepoName === repo.repo : pr.baseRepoUrl.endsWith(`/repos/${repo.owner}/${repo.repo}`)),
  );
  if (listed.length > 0) return listed.map((pr) => pr.number);
  if (!run.headOwner || !run.headBranch) return [];
  const open = await client.paginate(client.rest.pulls.list, {
    ...repo,
    state: 'open',
    head: `${run.headOwner}:${run.headBranch}`,
    per_page: 100,
  });
  return open.filter((pr) => pr.head.sha === run.headSha).map((pr) => pr.number);
}

/** A value from the artifact, quoted so a crafted one shows as text (and cannot start a log line). */
function quote(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * Checks the artifact's own record (results.github) against the workflow_run event and returns
 * the pull request to comment on: the one the record names, if GitHub's data lists it for the
 * run; null when the run has no open pull request (a push, or the PR moved on).
 * Throws UntrustedResultsError when they disagree: then the artifact is not reported at all.
 */
export function verifyResultsOrigin(
  record: GitHubRecord | undefined,
  expected: { repository: string; run: TriggeringRun; pullRequests: number[] },
): number | null {
  const { run } = expected;
  const source = `the results artifact of run ${run.id}`;
  if (record === undefined || record === null || typeof record !== 'object') {
    throw new UntrustedResultsError(
      `${source} has no record of the GitHub run that measured it ("github" in results.json): it was not written by the perfgate action. Refusing to report it.`,
    );
  }
  const mismatches: string[] = [];
  const check = (what: string, claimed: unknown, actual: unknown) => {
    if (claimed !== actual) mismatches.push(`${what}: the artifact says ${quote(claimed)}, the workflow_run event says ${quote(actual)}`);
  };
  check('repository', record.repository, expected.repository);
  check('run id', record.runId, String(run.id));
  check('event', record.event, run.event);
  check('head commit', record.headSha, run.headSha);
  if (run.event === 'pull_request') {
    if (expected.pullRequests.length > 0 && !expected.pullRequests.includes(record.pullRequest as number)) {
      mismatches.push(
        `pull request: the artifact says ${quote(record.pullRequest)}, GitHub lists ${expected.pullRequests.map((n) => `#${n}`).join(', ')} for the run's head commit`,
      );
    }
  } else {
    check('pull request', record.pullRequest, null);
  }
  if (mismatches.length > 0) {
    throw new UntrustedResultsError(
      `Refusing to report ${source}: it does not come from the run it was downloaded from (${mismatches.join('; ')}). ` +
        'The measuring job runs the pull request\'s code, which can upload artifacts; perfgate only trusts what GitHub says about the run.',
    );
  }
  return run.event === 'pull_request' && expected.pullRequests.length > 0 ? (record.pullRequest as number) : null;
}

/** Job conclusions that mean the job did not finish as written. */
const FAILED_JOB = new Set(['failure', 'cancelled', 'timed_out']);
/** Step conclusions that mean the step did not finish as written. */
const FAILED_STEP = new Set(['failure', 'cancelled']);

/**
 * Every failed or cancelled step of the measuring run's attempt that GitHub records, as
 * "job › step", whatever its name: on a pull request the workflow is the pull request's own, so
 * it chooses every step's and job's name. A step with no conclusion in a failed or cancelled job
 * (the step that was running when the job was cancelled) counts, and so does such a job with no
 * steps listed. Jobs still running (this very job, in report mode on a pull_request event) count
 * only by a step that already failed. Needs `actions: read`.
 */
export async function failedStepsOfRun(client: GitHubClient, repo: Repo, run: TriggeringRun): Promise<string[]> {
  const jobs = await client.paginate(client.rest.actions.listJobsForWorkflowRunAttempt, {
    ...repo,
    run_id: run.id,
    attempt_number: run.attempt,
    per_page: 100,
  });
  return jobs.flatMap((job) => {
    const jobFailed = FAILED_JOB.has(job.conclusion ?? '');
    const steps = (job.steps ?? []).filter((step) => FAILED_STEP.has(step.conclusion ?? '') || (jobFailed && step.conclusion === null));
    if (steps.length > 0) return steps.map((step) => `${quote(job.name)} › ${quote(step.name)} (${step.conclusion ?? 'no conclusion'})`);
    return jobFailed ? [`${quote(job.name)} (${job.conclusion})`] : [];
  });
}

/**
 * Refuses an artifact that says the gate passed when GitHub records a failed or cancelled step in
 * the measuring run: perfgate's step fails on a regression, and GitHub does not say which job
 * uploaded an artifact, so a failure anywhere in the run means the artifact may not be the one
 * perfgate measured (a process of the pull request's replaced it, or it was forged).
 */
export function checkDecisionAgainstRun(decision: 'pass' | 'fail', failedSteps: string[], runId: number): void {
  if (decision === 'fail' || failedSteps.length === 0) return;
  throw new UntrustedResultsError(
    `Refusing to report the results artifact of run ${runId}: it says the gate passed, but GitHub records failed or cancelled steps in that run (${failedSteps.join(', ')}). ` +
      "The measuring job runs the pull request's code, which can replace the artifact, and on a pull request the workflow (every step's name) is the pull request's own: " +
      'perfgate cannot tell which job uploaded the artifact, so it trusts a pass only from a run in which nothing failed. ' +
      'Keep the measuring job in a workflow of its own (example-workflows/perf.yml) so that other jobs cannot fail beside it.',
  );
}

/**
 * Why the measuring run's workflow was the pull request's own, or null when it was the base
 * repository's: a pull_request run of a fork, or of a pull request that changes
 * .github/workflows/ (a pull_request run uses the workflow files of the pull request's merge
 * commit). A listing that fails counts as a change: it cannot be ruled out.
 */
export async function pullRequestWorkflowReason(client: GitHubClient, repo: Repo, run: TriggeringRun, pullRequest: number | null): Promise<string | null> {
  if (run.event !== 'pull_request') return null;
  if (run.headOwner !== null && run.headOwner.toLowerCase() !== repo.owner.toLowerCase()) return `it comes from a fork (${run.headOwner})`;
  if (pullRequest === null) return null;
  try {
    const files = await client.paginate(client.rest.pulls.listFiles, { ...repo, pull_number: pullRequest, per_page: 100 });
    const changed = files.filter((f) => f.filename.startsWith('.github/workflows/') || f.previous_filename?.startsWith('.github/workflows/'));
    return changed.length > 0 ? `it changes ${changed.map((f) => f.filename).join(', ')}` : null;
  } catch (e) {
    return `perfgate could not list the files it changes (${(e as Error).message}), so a change to .github/workflows/ cannot be ruled out`;
  }
}

/** The warning that says the numbers were measured under a workflow the pull request wrote. */
export function pullRequestWorkflowWarning(reason: string): { code: 'pr-workflow'; message: string } {
  return {
    code: 'pr-workflow',
    message:
      `The measurement ran under the pull request's own workflow: ${reason}. Its workflow chose how perfgate was run ` +
      "(inputs, steps before and after it) and what its artifact holds: read these numbers as the pull request's own claim, not as a measurement the base repository's workflow made.",
  };
}
