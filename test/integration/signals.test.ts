// lane: beside — it tests what SIGINT and SIGTERM leave behind; no verdict.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sleep } from '../../src/engine/process/processes.js';
import { readResults } from '../../src/results/io.js';
import { type CliRun, runCli } from '../helpers/cli.js';
import { processesIn } from '../helpers/processes.js';
import { ECHO_SCENARIO, ECHO_SERVICE, makeRepo, quickConfig } from '../helpers/repo.js';


/**
 * Resolves once results.json holds a measured pair (the services are up, the route answered, the
 * run is measuring); fails, with the run's exit and log, when the run ends before that.
 */
async function measuring(resultsPath: string, running: Promise<CliRun>): Promise<void> {
  let ended: CliRun | null = null;
  void running.then((run) => {
    ended = run;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = ended as CliRun | null;
    if (run) assert.fail(`the run ended (exit ${run.code}) before the signal could be sent:\n${run.stderr}`);
    if (existsSync(resultsPath) && readResults(resultsPath).scenarios[0]?.pairs.length) return;
    assert.ok(Date.now() < deadline, 'no pair was measured within 60 s');
    await sleep(100);
  }
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  test(`${signal} during a compare: services stopped, worktrees removed, exit ${code}`, async () => {
    const repo = makeRepo({ ...ECHO_SERVICE, 'perfgate.yml': quickConfig(ECHO_SCENARIO) }, { 'README.md': 'x' });
    const out = join(repo, '.out');
    const running = runCli(['compare', '--base', 'main', '--out', out, '--pairs', '60'], repo);
    await measuring(join(out, 'results.json'), running);
    process.emit(signal, signal);
    const run = await running;
    assert.equal(run.code, code, run.stderr);
    assert.match(run.stderr, /Cancelled/);
    assert.deepEqual(processesIn(repo), [], 'no service is left running');
    assert.equal(existsSync(join(out, 'trees', 'base')), false, 'the base worktree is removed');
  });
}
