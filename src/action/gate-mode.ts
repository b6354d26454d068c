/**
 * mode: gate — measure base and head on this runner, then publish. The measuring job needs no
 * write access: on a pull request from a fork its token is read-only, and the comment is left
 * to a workflow_run workflow in report mode.
 */
import * as core from '@actions/core';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openRunEnvironment } from '../compare/environment.js';
import { measureComparison, planComparison, resolveComparison } from '../compare/service.js';
import type { Shard } from '../compare/shard.js';
import type { Variant } from '../compare/variant.js';
import type { ProgressEvent } from '../engine/ports.js';
import { profiledScenarios } from '../engine/phases/profile.js';
import { restoreZeroX, saveZeroX } from '../engine/phases/zerox.js';
import { artifactPrefix } from '../github/artifacts.js';
import { createClient, type GitHubClient } from '../github/client.js';
import { formatRepo, type PullRequestInfo, pullRequestOf } from '../github/event.js';
import { serializeResults } from '../results/io.js';
import type { GitHubRecord, Results } from '../results/types.js';
import { isDroppedName } from '../engine/process/env.js';
import { culpritAnnotations } from './annotations.js';
import { uploadRunArtifacts } from './artifacts.js';
import type { RunContext } from './context.js';
import { hideFromEnviron } from './environ.js';
import { FileCommandLedger, type StepFiles, snapshotFileCommands } from './file-commands.js';
import { checkGateEvent, refuseWriteAccess, tokenCanWrite, writeAccessReasons } from './guard.js';
import { refuseIdToken } from './id-token.js';
import { type ActionInputs, resolveBase } from './inputs.js';
import { actionLogger } from './logger.js';
import { type Outcome, publish } from './publish.js';
import { announceBoundary } from './boundary.js';
import { type OwnFiles, restoreOwnFiles } from './own-files.js';
import { publishRecord } from './record-mode.js';
import { STATE_OUT_DIR, STATE_PID_FILE, STATE_REPO, STATE_RUN_MARKER } from './state.js';
import { actionToolCache } from './tool-cache.js';

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return 'github.com';
  }
}

const FORK_NOTICE =
  'it comes from a fork, and a fork\'s token is read-only. Post the comment from a workflow_run workflow with mode: report ' +
  '(example-workflows/perf-comment.yml; docs/permissions.md).';

/**
 * Measures as the variant says (compare/variant.ts: base and head side by side, a matrix shard's
 * part of that, a record, or head against a stored baseline), then publishes. `ownFiles`: the
 * action's files as the step started, put back once the pull request's code is stopped
 * (action/own-files.ts). Null: nothing was published (a record, which is stored as its artifact
 * instead).
 */
export async function runGate(inputs: ActionInputs, context: RunContext, variant: Variant, ownFiles: OwnFiles | null): Promise<Outcome | null> {
  checkGateEvent(context.eventName);
  const base = variant.oneCommit ? { baseRef: 'HEAD', mergeBase: false } : resolveBase(context.eventName, context.payload, inputs.base);
  // Refs and configuration are checked before anything is checked out or created.
  const resolved = await resolveComparison({
    repoDir: context.workspace,
    baseRef: base.baseRef,
    mergeBase: base.mergeBase,
    headRef: null,
    configFile: inputs.configFile,
    settings: inputs.settings,
    settingsSource: 'action inputs',
  });
  const checked = await variant.resolve(resolved);
  const { pr, client } = await refuseUnsafeRun(inputs, context);

  const { id } = inputs.github;
  const outDir = join(context.tempDir, `perfgate-${context.runId ?? 'local'}-${context.runAttempt}${id === 'default' ? '' : `-${id}`}`);
  mkdirSync(outDir, { recursive: true });
  const pidFile = join(outDir, 'pids');
  const marker = randomUUID();
  core.saveState(STATE_PID_FILE, pidFile);
  core.saveState(STATE_RUN_MARKER, marker);
  core.saveState(STATE_OUT_DIR, outDir);
  core.saveState(STATE_REPO, context.workspace);
  // 0x's install comes from the Actions cache now, while none of the pull request's code has run:
  // the cache's tar runs with the runner's cache token in its environment. It is saved after
  // that code is stopped (below).
  const toolsDir = join(context.tempDir, 'perfgate-tools');
  const toolCache = actionToolCache(context.env);
  const profiles = profiledScenarios(checked.config).length > 0;
  const zeroXInPlace = profiles && (await restoreZeroX(toolsDir, toolCache, actionLogger));
  const environment = openRunEnvironment({ boundary: 'wanted', pidFile, marker, env: context.env });
  announceBoundary(environment);
  const github = githubRecord(context, pr);

  // Taken after saveState: from here to the end of the step, only the PR's code writes them;
  // perfgate's own outputs and summary wait in the ledger until it is sealed.
  const fileCommands = new FileCommandLedger(snapshotFileCommands(context.env));
  try {
    const { results, resultsPath } = await measureComparison(
      {
        checked,
        planned: planComparison(checked.config, variant.looks?.design ?? null),
        baseLabel: base.baseLabel,
        outDir,
        // The same path every run: the Actions cache keys an entry on its paths, too.
        toolsDir,
        ...(github && { github }),
        variant,
        // The boundary takes what left the run's process groups; only then can perfgate's own
        // files be trusted to stay as they are put back.
        afterRun: async () => {
          await environment.close();
          const restored = restoreOwnFiles(ownFiles);
          if (restored) core.warning(`perfgate: ${restored.message}`);
          return restored ? [restored] : [];
        },
      },
      environment,
      { logger: actionLogger, progress: logProgress },
    );
    if (variant.kind === 'record') {
      await publishRecord(inputs, results, resultsPath, outDir, fileCommands);
      return null;
    }
    return await publishGate({ inputs, context, results, resultsPath, outDir, pr, client, shard: checked.shard?.shard, files: fileCommands });
  } finally {
    // The boundary goes first (the run has stopped every process in it), then the very end of
    // the step: nothing perfgate started runs any more, and nothing it writes follows.
    await environment.close();
    // Again on every way out: a run that failed or was cancelled ran the PR's code too.
    const restored = restoreOwnFiles(ownFiles);
    if (restored) core.warning(`perfgate: ${restored.message}`);
    if (profiles && !zeroXInPlace) await saveZeroX(toolsDir, toolCache);
    const tampered = fileCommands.seal();
    if (tampered.length > 0) {
      core.warning(
        `perfgate: the pull request's code wrote to the runner's file commands (${tampered.join(', ')}); perfgate put back what they held before it ran.`,
      );
    }
  }
}

interface GatePublication {
  inputs: ActionInputs;
  context: RunContext;
  results: Results;
  resultsPath: string;
  outDir: string;
  pr: PullRequestInfo | null;
  client: GitHubClient | null;
  /** A matrix shard's part; undefined for the whole comparison. */
  shard: Shard | undefined;
  files: StepFiles;
}

/** The measured comparison published: summary, outputs, artifacts, the comment where this job may post it, and the culprits' annotations. */
async function publishGate({ inputs, context, results, resultsPath, outDir, pr, client, shard, files }: GatePublication): Promise<Outcome> {
  if (pr && inputs.github.commentAuto && inputs.github.comment === 'never') {
    core.notice(
      pr.fromFork
        ? `perfgate: no comment on pull request #${pr.number}: ${FORK_NOTICE}`
        : `perfgate: no comment on pull request #${pr.number} from this job: it runs the pull request's code, so it holds no token that writes (comment: auto). ` +
            'The report is in the job summary; a job with mode: report posts the comment (example-workflows/perf.yml, docs/permissions.md).',
    );
  }
  // What is published is what this process holds: the file in the run directory is the PR's to write too.
  const resultsJson = Buffer.from(serializeResults(results));

  // Only a pull request needs the API (the comment); a push writes the summary only.
  const outcome = await publish(
    {
      results,
      resultsPath,
      outDir,
      pullRequest: pr?.number ?? null,
      ...(pr?.fromFork && { noCommentReason: FORK_NOTICE }),
      eventLabels: pr?.labels ?? [],
      labelsFromEvent: true,
      artifacts: (report) =>
        uploadRunArtifacts({ outDir, results, resultsJson, prefix: artifactPrefix(inputs.github.id, context.runAttempt, shard), context, report }),
    },
    // A shard's part is one of several: the merge job posts the one comment (merge-mode.ts).
    shard ? { ...inputs.github, comment: 'never' } : inputs.github,
    context,
    pr ? client : null,
    files,
  );
  // On a pull request, GitHub shows these beside the culprit's line in the diff.
  if (pr) {
    for (const a of culpritAnnotations(results, outcome.analysis)) core.warning(a.message, { file: a.file, startLine: a.line, title: a.title });
  }
  return outcome;
}

/**
 * Everything the gate decides on is read from the event now, before any PR code runs: the pull
 * request, its fork status and its labels (a label the PR's code adds later cannot count). Then
 * the run is refused where the PR's code could write with the job's token or ask for an ID
 * token, and the token leaves this process's environment block.
 */
async function refuseUnsafeRun(inputs: ActionInputs, context: RunContext): Promise<{ pr: PullRequestInfo | null; client: GitHubClient | null }> {
  const pr = pullRequestOf(context.payload);
  const { token } = inputs.github;
  const client = token && context.repo ? createClient(token, actionLogger) : null;
  const wouldComment = pr !== null && !pr.fromFork && inputs.github.comment !== 'never' && client !== null;
  const reasons = writeAccessReasons({
    places: { workspace: context.workspace, runnerTemp: context.env.RUNNER_TEMP, env: context.env, serverHost: hostOf(context.serverUrl) },
    wouldComment,
    // The job's own token is probed on a pull request only: on the other events the code that
    // runs was pushed by someone who can write already.
    tokenWrites:
      client && context.repo && (pr !== null || !token.startsWith('ghs_')) ? await tokenCanWrite(createClient(token, actionLogger, undefined, { throttle: false }), context.repo, token) : null,
    refuseUnknownToken: client !== null && pr !== null,
  });
  if (inputs.allowWriteToken) {
    for (const reason of reasons) core.warning(`perfgate: allow-write-token is true, so the pull request's code runs although ${reason}.`);
  } else {
    refuseWriteAccess(reasons);
  }
  refuseIdToken(context.env, inputs.allowIdToken);
  // The token stays in this process's memory; its environment block no longer shows it (or the
  // runner's file-command paths) to the PR's code reading /proc/<this pid>/environ.
  const hidden = hideFromEnviron(isDroppedName);
  core.debug(`perfgate: hid ${hidden.length} variable(s) from /proc/${process.pid}/environ`);
  return { pr, client };
}

/** The action's record of the GitHub run, stored in results.json; none outside a repository's workflow. */
function githubRecord(context: RunContext, pr: PullRequestInfo | null): GitHubRecord | undefined {
  if (!context.repo) return undefined;
  return {
    repository: formatRepo(context.repo),
    pullRequest: pr?.number ?? null,
    headSha: pr ? pr.headSha : context.sha,
    baseSha: pr?.baseSha ?? null,
    runId: context.runId,
    event: context.eventName,
  };
}

/** The run's progress in the job log: every tenth measured pair, and each phase as it starts. */
function logProgress(e: ProgressEvent): void {
  if (e.phase === 'measure') {
    if (e.pair === e.pairs || (e.pair ?? 0) % 10 === 0) core.info(`measured ${e.scenario}: pair ${e.pair}/${e.pairs}`);
  } else {
    core.info(`${e.phase}${e.side ? ` ${e.side}` : ''}${e.scenario ? ` · ${e.scenario}` : ''}${e.message ? `: ${e.message}` : ''}`);
  }
}
