// lane: beside — its head spends 400 ms of CPU and 40 MB more at start against none, asserted as ≥ 300 ms and ≥ 30 MB; a neighbour slows both sides alike.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

const service = (busyMs: number, retainMb: number) => ({
  'server.js': { copy: 'services/slow-start-server.cjs' },
  'start-up.json': JSON.stringify({ busyMs, retainMb }),
});

test('every start tells its time to listen and its memory: a head that spends 400 ms and 40 MB more at start is caught for free', async () => {
  const config = quickConfig('scenarios: [GET /]\ngate: { startup_time: 20% }\n');
  const repo = makeRepo({ ...service(0, 0), 'perfgate.yml': config }, service(400, 40));
  const out = join(repo, '.out');
  const markdown = join(repo, 'report.md');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--markdown', markdown, '--seed', '5'], repo);
  const results = readResults(join(out, 'results.json'));
  // 12 start pairs (quickConfig), both sides, numbered as PERFGATE_START numbers them.
  assert.equal(results.starts!.length, 24);
  assert.deepEqual([...new Set(results.starts!.map((s) => s.start))].sort((a, b) => a - b), [...Array(12).keys()]);
  const analysis = assessResults(results);
  const time = analysis.startup!.find((c) => c.metric === 'startup_time')!;
  const memory = analysis.startup!.find((c) => c.metric === 'startup_memory')!;
  console.log(`time to listen ${time.baseMedian} → ${time.headMedian} ms (${time.change}); memory ${memory.baseMedian} → ${memory.headMedian} bytes (${memory.change})`);
  assert.equal(time.verdict, 'regression');
  assert.ok(time.headMedian - time.baseMedian >= 300, 'head listens at least 300 ms later');
  assert.equal(memory.verdict, 'regression', 'information only, but a regression');
  assert.ok(memory.headMedian - memory.baseMedian >= 30e6);
  // startup_time is gated in this configuration: the build fails on it, and says so.
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.match(run.stdout, /time to listen/);
  assert.match(run.stdout, /memory at ready/);
});
