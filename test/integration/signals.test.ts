import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

const service = { 'server.js': { copy: 'services/echo-server.js' } };

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  test(`${signal} during a compare: services stopped, worktrees removed, exit ${code}`, async () => {
    const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /]') }, { 'README.md': 'x' });
    const out = join(repo, '.out');
    const running = runCli(['compare', '--base', 'main', '--out', out, '--pairs', '60'], repo);
    // after the services are up (the run takes far longer than this)
    await new Promise((r) => setTimeout(r, 3000));
    process.emit(signal, signal);
    const run = await running;
    assert.equal(run.code, code, run.stderr);
    assert.match(run.stderr, /Cancelled/);
    assert.equal(existsSync(join(out, 'trees', 'base')), false, 'the base worktree is removed');
  });
}
