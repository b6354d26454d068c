/**
 * mode: merge — the job of a sharded workflow that `needs:` the matrix (example-workflows/perf-shards.yml).
 * Like report mode it checks out nothing and runs no PR code: it downloads every shard's results
 * artifact of this run, checks each as report mode does (size, zip, schema, its record of the run
 * against GitHub's), refuses shards that are not one matrix, and publishes one decision: one
 * sticky comment, the job summary, the decision output. The statistics are compare/merge.ts's.
 */
import * as core from '@actions/core';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeShards, type MergedDecision, type ShardPart } from '../compare/merge.js';
import { ArtifactError, artifactPrefix, downloadRunArtifact, extractArtifactFile, listRunArtifacts, type RunArtifact } from '../github/artifacts.js';
import { createClient, describeApiError, type GitHubClient } from '../github/client.js';
import { upsertComment, workflowOfRef } from '../github/comments.js';
import { formatRepo, type Repo } from '../github/event.js';
import { checkDecisionAgainstRun, currentRunOf, failedStepsOfRun, pullRequestsOfRun, pullRequestWorkflowReason, pullRequestWorkflowWarning, type TriggeringRun, verifyResultsOrigin } from '../github/workflow-run.js';
import { COMMENT_LIMIT, commentMarker, renderReport, SUMMARY_LIMIT } from '../report/comment.js';
import { escapeMarkdown } from '../report/format.js';
import { readResults } from '../results/io.js';
import { validateResults } from '../results/validate.js';
import type { RunContext } from './context.js';
import { wantsNewComment } from './decision.js';
import { type ActionInputs, InputError } from './inputs.js';
import { actionLogger } from './logger.js';

/** As report mode: a results artifact over 64 MiB is not one perfgate wrote. */
const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

/** The shards' artifacts of this run attempt, by index, and their count (every name must agree on n). */
function shardArtifacts(artifacts: readonly RunArtifact[], id: string, attempt: number): { count: number; byIndex: Map<number, RunArtifact> } {
  const byIndex = new Map<number, RunArtifact>();
  const counts = new Set<number>();
  for (const artifact of artifacts) {
    const match = /-shard(\d+)of(\d+)/.exec(artifact.name);
    if (!match) continue;
    const shard = { index: Number(match[1]), count: Number(match[2]) };
    if (artifact.name !== artifactPrefix(id, attempt, shard)) continue;
    counts.add(shard.count);
    byIndex.set(shard.index, artifact);
  }
  if (counts.size > 1) {
    throw new ArtifactError(
      `Refusing to merge: this run has shard artifacts of matrices of ${[...counts].sort().join(' and ')} shards (${[...byIndex.values()].map((a) => a.name).join(', ')}). Give every shard the same n.`,
    );
  }
  return { count: counts.values().next().value ?? 0, byIndex };
}

export interface MergeOutcome {
  merged: MergedDecision;
}

export async function runMerge(inputs: ActionInputs, context: RunContext): Promise<MergeOutcome> {
  const repo = context.repo;
  if (repo === null) throw new InputError('GITHUB_REPOSITORY is not set: mode: merge runs as a step of a GitHub workflow.');
  const run = currentRunOf(context.payload, context.runId, context.runAttempt, repo);
  const { token, id } = inputs.github;
  if (!token) {
    throw new InputError('mode: merge needs the github-token input (the default, github.token, works with permissions actions: read and pull-requests: write).');
  }
  const client = createClient(token, actionLogger);
  let artifacts: RunArtifact[];
  try {
    artifacts = await listRunArtifacts(client, repo, run.id);
  } catch (e) {
    throw new ArtifactError(describeApiError(e, `list the artifacts of run ${run.id}`, 'actions: read'));
  }
  const { count, byIndex } = shardArtifacts(artifacts, id, run.attempt);
  if (count === 0) {
    throw new ArtifactError(
      `Run ${run.id} has no shard artifact (${artifactPrefix(id, run.attempt, { index: 1, count: 3 }).replace('1of3', '<i>of<n>')}): did every shard fail before measuring, or do the shards run without the shard input, or with another id? Their logs say why.`,
    );
  }
  let candidates: number[];
  try {
    candidates = await pullRequestsOfRun(client, repo, run);
  } catch (e) {
    throw new ArtifactError(describeApiError(e, `find the pull request of run ${run.id}`, 'pull-requests: read'));
  }

  const outDir = join(context.tempDir, `perfgate-merge-${run.id}-${run.attempt}-${id}`);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const parts: ShardPart[] = [];
  let pullRequest: number | null = null;
  for (let index = 1; index <= count; index++) {
    const artifact = byIndex.get(index);
    if (!artifact) {
      parts.push({ index, results: null, missing: `no artifact ${artifactPrefix(id, run.attempt, { index, count })} (the shard's job failed or was cancelled before it uploaded one)` });
      continue;
    }
    const part = await readShard(token, repo, run, artifact, join(outDir, `shard${index}`), candidates);
    pullRequest ??= part.pullRequest;
    parts.push({ index, results: part.results, missing: part.results.status === 'complete' ? null : `its run is ${part.results.status}${part.results.error ? `: ${part.results.error}` : ''}` });
  }
  const merged = mergeShards(parts, count);
  if (merged.missing.length === 0) {
    // A shard's step fails on a regression: a failed step beside shards that all passed means an
    // artifact may not be what its shard measured (workflow-run.ts, failedStepsOfRun).
    let failedSteps: string[];
    try {
      failedSteps = await failedStepsOfRun(client, repo, run);
    } catch (e) {
      throw new ArtifactError(describeApiError(e, `list the jobs of run ${run.id}`, 'actions: read'));
    }
    checkDecisionAgainstRun(merged.decision, failedSteps, run.id);
  }
  const workflowReason = await pullRequestWorkflowReason(client, repo, run, pullRequest);
  const workflowWarning = workflowReason ? pullRequestWorkflowWarning(workflowReason).message : null;
  if (workflowWarning) core.warning(`perfgate: ${workflowWarning}`);
  await publishMerged(merged, inputs, context, client, { pullRequest, workflowWarning });
  return { merged };
}

/** One shard's artifact, downloaded and checked field by field, as report mode checks one. */
async function readShard(
  token: string,
  repo: Repo,
  run: TriggeringRun,
  artifact: RunArtifact,
  dir: string,
  candidates: number[],
): Promise<{ results: NonNullable<ShardPart['results']>; pullRequest: number | null }> {
  const source = `the artifact ${artifact.name} of run ${run.id}`;
  if (artifact.sizeBytes > MAX_RESULTS_BYTES) {
    throw new ArtifactError(`${source} is ${artifact.sizeBytes} bytes, more than a results file can be: refusing to read it.`);
  }
  mkdirSync(dir, { recursive: true });
  const archive = await downloadRunArtifact(token, repo, run.id, artifact, dir);
  const json = extractArtifactFile(archive, 'results.json', MAX_RESULTS_BYTES, source);
  // Written by a job that ran the pull request's code: checked field by field before use.
  const resultsPath = join(dir, 'results.json');
  writeFileSync(resultsPath, json);
  const results = validateResults(readResults(resultsPath, { maxBytes: MAX_RESULTS_BYTES }), source);
  const pullRequest = verifyResultsOrigin(results.github, { repository: formatRepo(repo), run, pullRequests: candidates });
  return { results, pullRequest };
}

/**
 * Whether to create the comment when the PR has none, as report mode decides (decision.ts): an
 * existing comment is updated whatever the mode, so it never shows a stale verdict.
 */
function wantsMergedComment(mode: ActionInputs['github']['comment'], merged: MergedDecision): boolean {
  // A missing shard is news in every mode that comments at all.
  return merged.shards.some((s) => (s.analysis === null ? mode !== 'never' : wantsNewComment(mode, s.analysis)));
}

/**
 * "shard 2/3" rows: what each shard measured and decided, missing ones named; `workflowWarning`
 * under the verdict when the shards ran under the pull request's own workflow.
 */
function renderMerged(merged: MergedDecision, maxChars: number, workflowWarning: string | null): string {
  const { count } = merged;
  const verdict =
    merged.missing.length > 0
      ? `❌ **not complete**: shard ${merged.missing.map((i) => `${i}/${count}`).join(', ')} missing, so the merge cannot pass`
      : merged.decision === 'fail'
        ? `❌ **regression** in shard ${merged.failing.map((i) => `${i}/${count}`).join(', ')}`
        : '✅ **pass**: every shard passed';
  const alpha = merged.shards.find((s) => s.results?.shard)?.results?.shard?.familyAlpha;
  const lines = [
    `## perfgate: merge of ${count} shards`,
    '',
    verdict,
    '',
    workflowWarning ? `⚠️ ${escapeMarkdown(workflowWarning)}\n` : '',
    alpha === undefined
      ? ''
      : `Each shard gated its part at alpha ${alpha}/${count} (Holm inside, its own early stopping), so the merged false-fail rate is at most ${alpha} (docs/modes.md, "Shards").`,
    '',
    '| Shard | Scenarios | Benchmark files | Decision | Regressions |',
    '|---|---|---|---|---|',
    ...merged.shards.map((s) => {
      const shard = s.results?.shard;
      const names = (list: string[] | null | undefined) => (list?.length ? list.map((n) => escapeMarkdown(n)).join(', ') : '—');
      const decision = s.analysis ? (s.analysis.decision === 'fail' ? '❌ fail' : '✅ pass') : `⚠️ missing: ${escapeMarkdown(s.missing ?? '')}`;
      return `| ${s.index}/${count} | ${names(shard?.scenarios)} | ${names(shard?.benchmarks)} | ${decision} | ${s.analysis?.regressions ?? '—'} |`;
    }),
    '',
  ];
  const head = lines.join('\n');
  const present = merged.shards.filter((s) => s.analysis !== null);
  const share = Math.floor((maxChars - head.length) / Math.max(1, present.length)) - 80;
  const sections = present.map(
    (s) => `<details><summary>Shard ${s.index}/${count}</summary>\n\n${renderReport(s.results!, s.analysis!, { maxChars: Math.max(0, share) })}\n\n</details>`,
  );
  return [head, ...sections].join('\n');
}

async function publishMerged(
  merged: MergedDecision,
  inputs: ActionInputs,
  context: RunContext,
  client: GitHubClient,
  { pullRequest, workflowWarning }: { pullRequest: number | null; workflowWarning: string | null },
): Promise<void> {
  const summary = renderMerged(merged, SUMMARY_LIMIT, workflowWarning);
  if (context.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(summary).write();
  core.setOutput('decision', merged.decision);
  core.setOutput('regressions', String(merged.regressions));
  core.setOutput('improvements', String(merged.improvements));
  core.setOutput('missing-shards', merged.missing.join(','));
  let url = '';
  if (pullRequest !== null && inputs.github.comment !== 'never' && context.repo) {
    const workflow = workflowOfRef(context.env.GITHUB_WORKFLOW_REF);
    const marker = commentMarker(inputs.github.id, workflow);
    try {
      const posted = await upsertComment(client, context.repo, pullRequest, marker, `${marker}\n${renderMerged(merged, COMMENT_LIMIT - marker.length - 1, workflowWarning)}`, wantsMergedComment(inputs.github.comment, merged));
      if (posted) {
        core.info(`perfgate: ${posted.action} the merged comment on pull request #${pullRequest}: ${posted.url}`);
        url = posted.url;
      }
    } catch (e) {
      core.warning(`perfgate: ${describeApiError(e, `comment on pull request #${pullRequest}`, 'pull-requests: write')}`);
    }
  }
  core.setOutput('comment-url', url);
}
