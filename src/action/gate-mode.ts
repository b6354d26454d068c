/**
 * mode: gate — measure base and head on this runner, then publish. The measuring job needs no
 * write access: on a pull request from a fork its token is read-only, and the comment is left
 * to a workflow_run workflow in report mode.
 */
import * as core from '@actions/core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessTracker } from '../engine/process.js';
import { runCompare } from '../engine/run.js';
import { artifactPrefix } from '../github/artifacts.js';
import { createClient } from '../github/client.js';
import { formatRepo, pullRequestOf } from '../github/event.js';
import type { GitHubRecord } from '../results/types.js';
import { buildOverrides, scenarioArgs } from '../config/options.js';
import { secretsFrom } from '../engine/env.js';
import { preflight } from '../engine/preflight.js';
import { interimLook } from '../gate/look.js';
import { VERSION } from '../version.js';
import { uploadRunArtifacts } from './artifacts.js';
import type { RunContext } from './context.js';
import { type ActionInputs, InputError, resolveBase } from './inputs.js';
import { actionLogger } from './logger.js';
import { type Outcome, publish } from './publish.js';
import { STATE_PID_FILE } from './state.js';

const FORK_NOTICE =
  'it comes from a fork, and a fork\'s token is read-only. Post the comment from a workflow_run workflow with mode: report ' +
  '(example-workflows/perf-fork-comment.yml; README, "Permissions and forks").';

export async function runGate(inputs: ActionInputs, context: RunContext): Promise<Outcome> {
  if (context.eventName === 'pull_request_target') {
    // pull_request_target gives a write token to a job that would run the PR's code here.
    throw new InputError(
      'perfgate runs the pull request\'s code, and on pull_request_target that code would run with a write token. ' +
        'Measure on pull_request and comment from a workflow_run workflow with mode: report (README, "Permissions and forks").',
    );
  }
  const base = resolveBase(context.eventName, context.payload, inputs.base);
  // Refs and configuration are checked before anything is checked out or created.
  const { config } = await preflight({
    repoDir: context.workspace,
    baseRef: base.baseRef,
    mergeBase: base.mergeBase,
    headRef: null,
    configFile: inputs.configFile,
    overrides: buildOverrides(inputs.settings),
    overridesSource: 'action inputs',
    scenarios: scenarioArgs(inputs.settings),
  });
  const pr = pullRequestOf(context.payload);
  const { id } = inputs.github;
  const outDir = join(context.tempDir, `perfgate-${context.runId ?? 'local'}-${context.runAttempt}${id === 'default' ? '' : `-${id}`}`);
  mkdirSync(outDir, { recursive: true });
  const pidFile = join(outDir, 'pids');
  core.saveState(STATE_PID_FILE, pidFile);
  const github: GitHubRecord | undefined = context.repo
    ? {
        repository: formatRepo(context.repo),
        pullRequest: pr?.number ?? null,
        headSha: pr ? pr.headSha : context.sha,
        baseSha: pr?.baseSha ?? null,
        runId: context.runId,
        event: context.eventName,
      }
    : undefined;

  const { results, resultsPath } = await runCompare(
    {
      repoDir: context.workspace,
      baseRef: base.baseRef,
      baseLabel: base.baseLabel,
      mergeBase: base.mergeBase,
      headRef: null,
      outDir,
      loadConfig: () => config,
      tracker: new ProcessTracker(pidFile),
      toolVersion: VERSION,
      look: interimLook,
      ...(github && { github }),
    },
    {
      logger: actionLogger,
      progress: (e) => {
        if (e.phase === 'measure') {
          if (e.pair === e.pairs || (e.pair ?? 0) % 10 === 0) core.info(`measured ${e.scenario}: pair ${e.pair}/${e.pairs}`);
        } else {
          core.info(`${e.phase}${e.side ? ` ${e.side}` : ''}${e.scenario ? ` · ${e.scenario}` : ''}${e.message ? `: ${e.message}` : ''}`);
        }
      },
      env: context.env,
      secrets: secretsFrom(context.env),
    },
  );

  // Only a pull request needs the API (labels, comment); a push writes the summary only.
  const client = pr && inputs.github.token ? createClient(inputs.github.token, actionLogger) : null;
  return publish(
    {
      results,
      resultsPath,
      outDir,
      pullRequest: pr?.number ?? null,
      ...(pr?.fromFork && { noCommentReason: FORK_NOTICE }),
      eventLabels: pr?.labels ?? [],
      artifacts: (report) =>
        uploadRunArtifacts({ outDir, results, resultsPath, prefix: artifactPrefix(id, context.runAttempt), context, report }),
    },
    inputs.github,
    context,
    client,
  );
}
