/**
 * mode: report — in a workflow triggered by workflow_run (a fork's pull request), or in a job of the
 * measuring workflow that `needs:` the measuring job (a same-repository pull request): download
 * the measuring run's results artifact, check it against what GitHub says about that run, and
 * publish it (comment on the run's pull request, summary, outputs). No checkout and no PR code:
 * only data is read here, so this job may hold the write token the measuring job must not.
 */
import * as core from '@actions/core';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactError, artifactPrefix, downloadRunArtifact, extractArtifactFile, listRunArtifacts, type RunArtifact } from '../github/artifacts.js';
import { createClient, describeApiError, type GitHubClient } from '../github/client.js';
import { formatRepo, type Repo } from '../github/event.js';
import { checkDecisionAgainstRun, currentRunOf, failedStepsOfRun, pullRequestsOfRun, pullRequestWorkflowReason, pullRequestWorkflowWarning, type TriggeringRun, triggeringRunOf, UntrustedResultsError, verifyResultsOrigin } from '../github/workflow-run.js';
import { ResultsFileError, readResults } from '../results/io.js';
import type { Results } from '../results/types.js';
import { validateResults } from '../results/validate.js';
import { linkRunArtifacts, resultsDigestOf } from './artifacts.js';
import type { RunContext } from './context.js';
import { type ActionInputs, InputError } from './inputs.js';
import { actionLogger } from './logger.js';
import { type Outcome, publish } from './publish.js';

/**
 * A results artifact (zipped) or results.json (unpacked) over 64 MiB is not one perfgate wrote:
 * do not spend the job on it. A run of 100,000 slices with every health field is about 40 MiB.
 */
const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

/** The measuring run's results, downloaded and checked, with where they are and the run's artifacts. */
interface FetchedResults {
  results: Results;
  resultsPath: string;
  resultsDigest: string;
  outDir: string;
  artifacts: RunArtifact[];
  prefix: string;
  /** The results file named for a message: "the results artifact of run 123". */
  source: string;
}

/**
 * Downloads the run's results artifact and checks it: its size, its digest against the one the
 * measuring step output, every field. Null when the run has no results artifact (it failed
 * before measuring): a warning and the summary say so.
 */
async function fetchResults(inputs: ActionInputs, context: RunContext, from: { client: GitHubClient; token: string; repo: Repo; run: TriggeringRun }): Promise<FetchedResults | null> {
  const { client, token, repo, run } = from;
  const { id } = inputs.github;
  const prefix = artifactPrefix(id, run.attempt);
  let artifacts: Awaited<ReturnType<typeof listRunArtifacts>>;
  try {
    artifacts = await listRunArtifacts(client, repo, run.id);
  } catch (e) {
    throw new ArtifactError(describeApiError(e, `list the artifacts of run ${run.id}`, 'actions: read'));
  }
  const resultsArtifact = artifacts.find((a) => a.name === prefix);
  if (!resultsArtifact) {
    const message = `perfgate: run ${run.id} has no artifact named ${prefix}, so there is nothing to report (did it fail before measuring? Its log says why).`;
    core.warning(message);
    if (context.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(`${message}\n`).write();
    return null;
  }
  if (resultsArtifact.sizeBytes > MAX_RESULTS_BYTES) {
    throw new ArtifactError(`Artifact ${prefix} of run ${run.id} is ${resultsArtifact.sizeBytes} bytes, more than a results file can be: refusing to read it.`);
  }

  const outDir = join(context.tempDir, `perfgate-report-${run.id}-${run.attempt}-${id}`);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const downloadDir = join(outDir, 'download');
  mkdirSync(downloadDir);
  const archive = await downloadRunArtifact(token, repo, run.id, resultsArtifact, downloadDir);
  const source = `the results artifact of run ${run.id}`;
  const resultsPath = join(outDir, 'results.json');
  const resultsJson = extractArtifactFile(archive, 'results.json', MAX_RESULTS_BYTES, source);
  const resultsDigest = resultsDigestOf(resultsJson);
  if (inputs.resultsDigest !== null && inputs.resultsDigest !== resultsDigest) {
    throw new UntrustedResultsError(
      `Refusing to report ${source}: its results.json has digest ${resultsDigest}, but the measuring step output ${inputs.resultsDigest} for the file it uploaded. ` +
        "It was replaced after perfgate measured (the measuring job runs the pull request's code, which can upload artifacts too).",
    );
  }
  writeFileSync(resultsPath, resultsJson);
  // Written by a job that ran the pull request's code: checked field by field before use.
  const results = validateResults(readResults(resultsPath, { maxBytes: MAX_RESULTS_BYTES }), source);

  return { results, resultsPath, resultsDigest, outDir, artifacts, prefix, source };
}

/** Null when the measuring run left no results to report (it failed before measuring). */
export async function runReport(inputs: ActionInputs, context: RunContext): Promise<Outcome | null> {
  const repo = context.repo;
  if (repo === null) throw new InputError('GITHUB_REPOSITORY is not set: mode: report runs as a step of a GitHub workflow.');
  // workflow_run: the run that triggered this workflow; pull_request: this run's measuring job.
  const run =
    context.eventName === 'pull_request'
      ? currentRunOf(context.payload, context.runId, context.runAttempt, repo)
      : triggeringRunOf(context.payload);
  const { token } = inputs.github;
  if (!token) {
    throw new InputError('mode: report needs the github-token input (the default, github.token, works with permissions actions: read and pull-requests: write).');
  }
  const client = createClient(token, actionLogger);
  const fetched = await fetchResults(inputs, context, { client, token, repo, run });
  if (fetched === null) return null;
  const { results, resultsPath, resultsDigest, outDir, artifacts, prefix, source } = fetched;

  let candidates: number[];
  try {
    candidates = await pullRequestsOfRun(client, repo, run);
  } catch (e) {
    throw new ArtifactError(describeApiError(e, `find the pull request of run ${run.id}`, 'pull-requests: read'));
  }
  const pullRequest = verifyResultsOrigin(results.github, { repository: formatRepo(repo), run, pullRequests: candidates });
  if (run.event === 'pull_request' && pullRequest === null) {
    core.info(
      `perfgate: no open pull request has head ${run.headSha} any more (closed, or a newer commit was pushed and its run will report): job summary only.`,
    );
  }

  let failedSteps: string[];
  try {
    failedSteps = await failedStepsOfRun(client, repo, run);
  } catch (e) {
    throw new ArtifactError(describeApiError(e, `list the jobs of run ${run.id}`, 'actions: read'));
  }
  const workflowReason = await pullRequestWorkflowReason(client, repo, run, pullRequest);
  if (workflowReason) {
    const warning = pullRequestWorkflowWarning(workflowReason);
    core.warning(`perfgate: ${warning.message}`);
    results.warnings.push(warning);
  }

  try {
    return await publish(
      {
        results,
        checkAnalysis: (analysis) => checkDecisionAgainstRun(analysis.decision, failedSteps, run.id),
        resultsPath,
        outDir,
        pullRequest,
        eventLabels: [],
        artifacts: async () => ({ ...linkRunArtifacts(artifacts, prefix, results, { serverUrl: context.serverUrl, repo, runId: run.id }), resultsDigest }),
      },
      inputs.github,
      context,
      client,
    );
  } catch (e) {
    // Valid fields can still combine into something no run produces; it is still the file's fault.
    if (e instanceof ArtifactError || e instanceof UntrustedResultsError) throw e;
    throw new ResultsFileError(
      `${source} could not be analysed (${(e as Error).message}): it was not written by this perfgate release, or was changed after the run.`,
    );
  }
}
