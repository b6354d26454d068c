import * as core from '@actions/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/load.js';
import { PerfgateError } from '../engine/errors.js';
import { ProcessTracker } from '../engine/process.js';
import { runCompare } from '../engine/run.js';
import { compareResults } from '../gate/compare.js';
import { renderMarkdown } from '../report/markdown.js';
import { configLoader, secretsFrom } from '../shell/gate.js';
import { buildOverrides } from '../shell/overrides.js';
import { VERSION } from '../version.js';
import { InputError, readInputs, resolveBase } from './inputs.js';
import { STATE_PID_FILE } from './state.js';


/**
 * The action: inputs → engine → job summary, outputs, and the one setFailed. A regression is
 * a verdict (setFailed with the report's headline); a setup problem is an error whose message
 * says what to fix.
 */
export async function run(): Promise<void> {
  try {
    const inputs = readInputs();
    const env = process.env;
    const event = resolveBase(env.GITHUB_EVENT_NAME ?? '', env.GITHUB_EVENT_PATH, inputs.base);
    const workspace = env.GITHUB_WORKSPACE ?? process.cwd();
    const outDir = join(env.RUNNER_TEMP ?? workspace, `perfgate-${env.GITHUB_RUN_ID ?? 'local'}-${env.GITHUB_RUN_ATTEMPT ?? '1'}`);
    mkdirSync(outDir, { recursive: true });
    const pidFile = join(outDir, 'pids');
    core.saveState(STATE_PID_FILE, pidFile);
    const tracker = new ProcessTracker(pidFile);
    const { results, resultsPath } = await runCompare(
      {
        repoDir: workspace,
        baseRef: event.baseRef,
        baseLabel: event.baseLabel,
        mergeBase: event.mergeBase,
        headRef: null,
        outDir,
        loadConfig: configLoader(inputs.configFile, buildOverrides(inputs.flat), 'action inputs'),
        tracker,
        toolVersion: VERSION,
      },
      {
        logger: { info: core.info, warn: core.warning, debug: core.debug },
        progress: (e) => {
          if (e.phase === 'measure') {
            if (e.pair === e.pairs || (e.pair ?? 0) % 10 === 0) core.info(`measured ${e.scenario}: pair ${e.pair}/${e.pairs}`);
          } else {
            core.info(`${e.phase}${e.side ? ` ${e.side}` : ''}${e.scenario ? ` · ${e.scenario}` : ''}${e.message ? `: ${e.message}` : ''}`);
          }
        },
        env,
        secrets: secretsFrom(env),
      },
    );
    const analysis = compareResults(results);
    const markdown = renderMarkdown(results, analysis);
    const reportPath = join(outDir, 'report.md');
    writeFileSync(reportPath, markdown);
    await core.summary.addRaw(markdown, true).write();
    core.setOutput('decision', analysis.decision);
    core.setOutput('regressions', String(analysis.regressions));
    core.setOutput('improvements', String(analysis.improvements));
    core.setOutput('results-path', resultsPath);
    core.setOutput('report-path', reportPath);
    for (const warning of analysis.warnings) core.warning(warning.message);
    if (analysis.decision === 'fail') {
      const what = analysis.failing
        .map((c) => `${c.metric} of ${c.scenario} ${(100 * c.change).toFixed(1)}% (limit ${(100 * c.limit).toFixed(0)}%)`)
        .join('; ');
      if (inputs.failOnRegression) core.setFailed(`perfgate: performance regression: ${what}`);
      else core.warning(`perfgate: performance regression (not failing: fail-on-regression is false): ${what}`);
    }
  } catch (e) {
    if (e instanceof PerfgateError || e instanceof ConfigError || e instanceof InputError) {
      const kept = (e as PerfgateError).resultsPath;
      if (kept) core.setOutput('results-path', kept);
      core.setFailed(`perfgate: ${e.message}${kept ? `\nThe pairs measured before the error are kept in ${kept}` : ''}`);
    } else {
      core.setFailed(`perfgate: unexpected error: ${(e as Error).stack ?? e}`);
    }
  }
}
