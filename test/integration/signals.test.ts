// lane: beside — it tests what a signal stops and removes, with no verdict drawn from the load.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { measuring, runCli } from '../helpers/cli.js';
import { processesIn } from '../helpers/processes.js';
import { ECHO_SCENARIO, ECHO_SERVICE, makeRepo, quickConfig } from '../helpers/repo.js';


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
