#!/usr/bin/env node
// Records the progress events of one real run, with the time each was emitted, for the time-left
// test (test/unit/progress.test.ts replays the recording through the terminal progress). The run
// is the demo's: examples/service with examples/regression/payload.js as head, every default
// load setting, through the same compare service the CLI runs (from the TypeScript source). A
// benchmark: run it on a quiet machine.
//
//   node bench/record-progress.mjs [--out test/fixtures/progress/example-service-regression.json]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';

register();
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'test/fixtures/progress/example-service-regression.json') } } });
const { resolveComparison, planComparison, runComparison } = await import('../src/compare/service.ts');
const { ProcessTracker } = await import('../src/engine/process/processes.ts');

const repo = mkdtempSync(join(tmpdir(), 'perfgate-progress-'));
const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@perfgate.invalid', ...args], { cwd: repo, stdio: 'pipe' });
const started = Date.now();
const events = [];
const tracker = new ProcessTracker();
try {
  cpSync(join(root, 'examples/service'), repo, { recursive: true });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'example service');
  git('checkout', '--quiet', '-b', 'slower-hello');
  cpSync(join(root, 'examples/regression/payload.js'), join(repo, 'src/payload.js'));
  git('commit', '--quiet', '-am', 'build the greeting the slow way');

  const checked = await resolveComparison({ repoDir: repo, baseRef: 'main', mergeBase: true, headRef: null, configFile: null, settings: {}, settingsSource: 'bench' });
  const planned = planComparison(checked.config);
  const logger = { info: (m) => process.stderr.write(`${m}\n`), warn: (m) => process.stderr.write(`! ${m}\n`), debug: () => {} };
  const { results } = await runComparison(
    { checked, planned, outDir: join(repo, '.out'), toolsDir: join(repo, '.tools'), tracker, signal: new AbortController().signal },
    { logger, progress: (event) => events.push({ t: Date.now() - started, event }), env: process.env },
  );
  const endMs = Date.now() - started;
  const taken = results.sequential?.taken.map((t) => t.decision).join(', ') ?? 'no looks';
  writeFileSync(
    values.out,
    `${JSON.stringify(
      {
        about: `Progress events of one real run, with the time each was emitted (ms after the recording started): the compare service on examples/service with examples/regression/payload.js as head, default load settings, recorded by bench/record-progress.mjs (Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}). Looks: ${taken}. The run ended (measurement done) at endMs.`,
        config: checked.config,
        endMs,
        events,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`recorded ${events.length} events over ${(endMs / 1000).toFixed(0)} s (looks: ${taken}) in ${values.out}`);
} finally {
  await tracker.killAll(0);
  rmSync(repo, { recursive: true, force: true });
}
