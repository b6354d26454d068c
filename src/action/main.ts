import * as core from '@actions/core';
import { ConfigError } from '../config/load.js';
import { keptResultsLine, PerfgateError } from '../engine/errors.js';
import { settleOwnProcesses } from '../engine/process/programs.js';
import { ArtifactError } from '../github/artifacts.js';
import { EventError } from '../github/event.js';
import { UntrustedResultsError } from '../github/workflow-run.js';
import { describeFailing } from '../assess/compare.js';
import { BaselineError } from '../results/baseline.js';
import { ResultsFileError } from '../results/io.js';
import { WriteError } from '../results/write-error.js';
import { readRunContext } from './context.js';
import { dropTokenVariables } from './environ.js';
import { runGate } from './gate-mode.js';
import { UnsafeSetupError } from './guard.js';
import { InputError, readInputs } from './inputs.js';
import { runMerge } from './merge-mode.js';
import { OwnFiles } from './own-files.js';
import { recordRun } from './record-mode.js';
import { runReport } from './report-mode.js';
import { storedBaselineRun } from './stored-baseline.js';
import { ShardMismatchError } from '../compare/merge.js';
import { SAME_RUNNER, shardOf } from '../compare/variant.js';

/** Errors whose message says what to fix: shown without a stack trace. */
const EXPECTED_ERRORS = [
  PerfgateError,
  WriteError,
  ConfigError,
  InputError,
  EventError,
  ArtifactError,
  UntrustedResultsError,
  ResultsFileError,
  UnsafeSetupError,
  BaselineError,
  ShardMismatchError,
];

/**
 * The action: inputs → gate (measure) or report (a measuring run's results) → summary,
 * outputs, comment → the one setFailed. A regression is a verdict (setFailed with the
 * failing metrics, in gate mode only: the measuring run's check is the gate); a setup problem
 * is an error whose message says what to fix.
 */
export async function run(): Promise<void> {
  // Before anything else, so before any of the pull request's code runs.
  settleOwnProcesses(process.env);
  const ownFiles = OwnFiles.take();
  try {
    const inputs = readInputs();
    const context = readRunContext(process.env);
    // The inputs and the context hold the token now: no child inherits it from process.env.
    dropTokenVariables(process.env);
    if (inputs.mode === 'report') {
      await runReport(inputs, context);
      return;
    }
    if (inputs.mode === 'merge') {
      const { merged } = await runMerge(inputs, context);
      // A missing shard fails the check whatever fail-on-regression says: nothing was decided.
      if (merged.missing.length > 0) core.setFailed(`perfgate: shard ${merged.missing.map((i) => `${i}/${merged.count}`).join(', ')} missing: the merge cannot pass without every shard.`);
      else if (merged.decision === 'fail') {
        const what = `performance regression in shard ${merged.failing.map((i) => `${i}/${merged.count}`).join(', ')}`;
        if (inputs.failOnRegression) core.setFailed(`perfgate: ${what}`);
        else core.warning(`perfgate: ${what} (not failing: fail-on-regression is false)`);
      }
      return;
    }
    if (inputs.mode === 'record') {
      await runGate(inputs, context, recordRun(inputs, context), ownFiles);
      return;
    }
    // Base and head on this runner (the whole comparison, or a matrix shard's part), or head against a stored record of base.
    const variant = inputs.baseline === 'stored' ? await storedBaselineRun(inputs, context) : (shardOf(inputs.settings, 'action inputs') ?? SAME_RUNNER);
    const outcome = await runGate(inputs, context, variant, ownFiles);
    if (outcome === null) return;
    const { analysis, final } = outcome;
    if (analysis.unfair?.length) {
      // An invalid run, as a setup error is: it fails the step whatever fail-on-regression says.
      core.setFailed(`perfgate: ${analysis.unfair.map((u) => u.message).join(' ')}`);
    } else if (final.decision === 'fail') {
      const what = describeFailing(analysis).join('; ');
      if (inputs.failOnRegression) core.setFailed(`perfgate: performance regression: ${what}`);
      else core.warning(`perfgate: performance regression (not failing: fail-on-regression is false): ${what}`);
    }
  } catch (e) {
    if (EXPECTED_ERRORS.some((type) => e instanceof type)) {
      const kept = (e as PerfgateError).resultsPath;
      if (kept) core.setOutput('results-path', kept);
      const line = keptResultsLine(e as PerfgateError);
      core.setFailed(`perfgate: ${(e as Error).message}${line ? `\n${line}` : ''}`);
    } else {
      core.setFailed(`perfgate: unexpected error: ${(e as Error).stack ?? e}`);
    }
  }
}
