/**
 * What both modes do with a results.json: verdicts, the accept label, artifacts, the job
 * summary and outputs (always), and the sticky comment (when there is a pull request to put it
 * on). GitHub failures here only warn: the decision never depends on whether GitHub answered.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@actions/core';
import { assessResults } from '../assess/compare.js';
import { describeApiError, type GitHubClient } from '../github/client.js';
import { upsertComment, workflowOfRef } from '../github/comments.js';
import { formatRepo } from '../github/event.js';
import { listLabels } from '../github/labels.js';
import { type ArtifactLink, commentMarker, type ReportOptions, renderComment, renderReport, SUMMARY_LIMIT } from '../report/comment.js';
import type { Assessment } from '../assess/types.js';
import type { Results } from '../results/types.js';
import { buildVerdicts, describeEntry } from '../assess/verdicts.js';
import { formatChange } from '../stats/format.js';
import type { RunArtifacts } from './artifacts.js';
import type { RunContext } from './context.js';
import { decide, type FinalDecision, wantsNewComment } from './decision.js';
import { directStepFiles, type StepFiles } from './file-commands.js';
import type { GitHubInputs } from './inputs.js';

export interface PublishRequest {
  results: Results;
  resultsPath: string;
  /** report.md is written here. */
  outDir: string;
  /** The pull request to comment on, from trusted event data; null: summary only. */
  pullRequest: number | null;
  /** Why this run must not comment on its pull request (a fork's read-only token); said as a notice. */
  noCommentReason?: string;
  /** Labels in the event payload: the fallback when the API cannot be read. */
  eventLabels: string[];
  /**
   * Decide on the event's labels only (gate mode): they were fixed before the PR's code ran,
   * which could otherwise add the accept label while it is measured.
   */
  labelsFromEvent?: boolean;
  /** Checks the analysis before anything is published (report mode: against GitHub's record of the run); throws to refuse. */
  checkAnalysis?(analysis: Assessment): void;
  /** Uploads or finds the run's artifacts; `report` renders the full report with the given links. */
  artifacts(report: (links: ArtifactLink[]) => string): Promise<RunArtifacts>;
}

export interface Outcome {
  analysis: Assessment;
  final: FinalDecision;
}

export async function publish(
  request: PublishRequest,
  inputs: GitHubInputs,
  context: RunContext,
  client: GitHubClient | null,
  files: StepFiles = directStepFiles,
): Promise<Outcome> {
  const { results, pullRequest } = request;
  const analysis = assessResults(results);
  request.checkAnalysis?.(analysis);
  const labels = analysis.decision === 'fail' ? await readLabels(request, client, context) : [];
  const final = decide(analysis, labels, inputs.acceptLabel);
  const server = context.serverUrl.replace(/\/+$/, '');
  const base: ReportOptions = {
    ...(final.acceptedBy !== null && { acceptedBy: final.acceptedBy }),
    // Only a pull request can carry the label.
    ...(pullRequest !== null && { acceptLabel: inputs.acceptLabel }),
    // Links to own code go to this server's repository (GHES too), never to one results.json names.
    ...(context.repo && { repositoryUrl: `${server}/${formatRepo(context.repo)}` }),
    ...(context.repo && context.runId && { runUrl: `${server}/${formatRepo(context.repo)}/actions/runs/${encodeURIComponent(context.runId)}` }),
  };

  const artifacts = await request.artifacts((links) =>
    renderReport(results, analysis, { ...base, artifacts: links, maxChars: Number.POSITIVE_INFINITY }),
  );
  const withLinks: ReportOptions = { ...base, artifacts: artifacts.links, ...(artifacts.fullReport && { fullReport: artifacts.fullReport }) };

  // The summary and report.md are the comment without its marker, under the summary's limit.
  const summary = renderReport(results, analysis, { ...withLinks, maxChars: SUMMARY_LIMIT });
  const reportPath = join(request.outDir, 'report.md');
  writeFileSync(reportPath, summary);
  if (context.env.GITHUB_STEP_SUMMARY) await files.appendSummary(summary);

  const verdicts = buildVerdicts(results, analysis);
  const verdictsPath = join(request.outDir, 'verdicts.json');
  writeFileSync(verdictsPath, `${JSON.stringify(verdicts, null, 2)}\n`);
  files.setOutput('decision', final.decision);
  files.setOutput('worst-change', verdicts.worst ? describeEntry(verdicts.worst, formatChange) : '');
  files.setOutput('verdicts-path', verdictsPath);
  files.setOutput('regressions', String(analysis.regressions));
  files.setOutput('improvements', String(analysis.improvements));
  files.setOutput('results-path', request.resultsPath);
  files.setOutput('report-path', reportPath);
  files.setOutput('results-artifact-url', artifacts.fullReport?.url ?? '');
  files.setOutput('results-digest', artifacts.resultsDigest ?? '');
  for (const warning of analysis.warnings) core.warning(warning.message);
  if (final.acceptedBy !== null) {
    core.warning(`perfgate: the gated regression is accepted by the label "${final.acceptedBy}" on pull request #${pullRequest}; remove the label to gate again.`);
  }

  const commentUrl = pullRequest === null ? null : await comment(request, inputs, context, client, analysis, withLinks);
  files.setOutput('comment-url', commentUrl ?? '');
  return { analysis, final };
}

/** The PR's labels now; the payload's labels when the API cannot be read (with a warning). */
async function readLabels(request: PublishRequest, client: GitHubClient | null, context: RunContext): Promise<string[]> {
  if (request.pullRequest === null) return [];
  if (request.labelsFromEvent || client === null || context.repo === null) return request.eventLabels;
  try {
    return await listLabels(client, context.repo, request.pullRequest);
  } catch (e) {
    core.warning(
      `perfgate: ${describeApiError(e, `read the labels of pull request #${request.pullRequest}`, 'pull-requests: read')} Using the labels the event listed.`,
    );
    return request.eventLabels;
  }
}

/** Creates or updates the sticky comment; returns its URL, or null when nothing was posted. */
async function comment(
  request: PublishRequest,
  inputs: GitHubInputs,
  context: RunContext,
  client: GitHubClient | null,
  analysis: Assessment,
  options: ReportOptions,
): Promise<string | null> {
  const pr = request.pullRequest!;
  if (inputs.comment === 'never') return null;
  if (request.noCommentReason) {
    core.notice(`perfgate: no comment on pull request #${pr}: ${request.noCommentReason}`);
    return null;
  }
  if (client === null || context.repo === null) {
    core.info('perfgate: no comment: no github-token (or GITHUB_REPOSITORY) was given.');
    return null;
  }
  const workflow = workflowOfRef(context.env.GITHUB_WORKFLOW_REF);
  const body = renderComment(request.results, analysis, inputs.id, options, workflow);
  try {
    const posted = await upsertComment(client, context.repo, pr, commentMarker(inputs.id, workflow), body, wantsNewComment(inputs.comment, analysis));
    if (posted === null) {
      core.info(`perfgate: no comment on pull request #${pr} (comment: ${inputs.comment}, and nothing to report)`);
      return null;
    }
    core.info(`perfgate: ${posted.action} the comment on pull request #${pr}: ${posted.url}`);
    return posted.url;
  } catch (e) {
    core.warning(`perfgate: ${describeApiError(e, `comment on pull request #${pr}`, 'pull-requests: write')}`);
    return null;
  }
}
