import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { VerdictsDocument } from '../../src/assess/verdicts.js';
import { runCli } from '../helpers/cli.js';
import { fewestPairs, IDENTICAL_CODE_ALPHA, makeRepo, quickConfig, ROOT } from '../helpers/repo.js';

/** An express service whose two routes spin for `iterations` (work.json in its tree): base and head differ only by that number. */
const expressServer = `const express = require('express');
const { iterations } = require('./work.json');
function spin(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003;
  return x;
}
const app = express();
app.get('/checkout', (req, res) => res.send(String(spin(iterations))));
app.get('/admin', (req, res) => res.send(String(spin(iterations))));
app.listen(3000);
`;

/**
 * perfgate.yml: throughput may drop 50% anywhere but 20% on /checkout; /checkout's p99 has a
 * service level far above what the service answers in, /admin's one far below it. Head's drop of
 * about a third lies between the two limits by far more than this machine's noise: what is tested
 * is which limit applies, not the test's power (docs/calibration.md measures that), so the
 * limits are wide where a team would write 1% and 5%.
 */
const CONFIG = [
  'gate:',
  '  throughput: 50%',
  '  latency_p99: { gated: false }',
  '  event_loop_delay_p99: off',
  'scenarios:',
  '  - name: checkout',
  '    path: /checkout',
  '    gate: { throughput: 20%, latency_p99: { max: 10s } }',
  '  - name: admin',
  '    path: /admin',
  '    gate: { latency_p99: { max: 1ms } }',
].join('\n');

function repoWith(base: number, head: number, config: string): string {
  const files = (iterations: number) => ({ 'server.js': expressServer, 'work.json': JSON.stringify({ iterations }) });
  const repo = makeRepo({ '.gitignore': 'node_modules\n', 'perfgate.yml': config, ...files(base) }, files(head));
  symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
  return repo;
}

async function compare(repo: string): Promise<{ code: number | null; stdout: string; verdicts: VerdictsDocument }> {
  const verdictsPath = join(repo, 'verdicts.json');
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out'), '--verdicts', verdictsPath], repo);
  assert.ok(run.code === 0 || run.code === 1, run.stderr + run.stdout);
  return { code: run.code, stdout: run.stdout, verdicts: JSON.parse(readFileSync(verdictsPath, 'utf8')) as VerdictsDocument };
}

const metricOf = (verdicts: VerdictsDocument, scenario: string, metric: string) => verdicts.metrics.find((m) => m.scenario === scenario && m.metric === metric)!;
const levelOf = (verdicts: VerdictsDocument, scenario: string) => verdicts.levels?.find((l) => l.scenario === scenario && l.metric === 'latency_p99');

test("express, head a third slower: checkout's own 20% limit fails where admin's global 50% does not; a p99 level far above passes, one far below fails", async () => {
  // 500,000 spins take about 2.5 ms, so the route's work is most of a request's time.
  const { code, stdout, verdicts } = await compare(repoWith(500_000, 800_000, quickConfig(CONFIG)));
  assert.equal(code, 1, stdout);
  const checkout = metricOf(verdicts, 'checkout', 'throughput');
  const admin = metricOf(verdicts, 'admin', 'throughput');
  assert.equal(checkout.limit, 0.2);
  assert.equal(admin.limit, 0.5);
  assert.ok(admin.estimate < -0.2 && admin.estimate > -0.5, `admin's drop lies between the limits: ${admin.estimate}`);
  assert.equal(checkout.verdict, 'regression', `checkout throughput ${checkout.estimate}, adjusted p ${checkout.pAdjusted}`);
  assert.notEqual(admin.verdict, 'regression', `admin throughput ${admin.estimate}`);
  assert.equal(levelOf(verdicts, 'checkout')?.verdict, 'pass');
  assert.equal(levelOf(verdicts, 'admin')?.verdict, 'fail');
  assert.match(stdout, /failing: checkout throughput −\d+\.\d% \(limit 20%\)/);
  assert.match(stdout, /^service levels — /m);
  assert.match(stdout, /^admin +latency p99 \* +1 ms +.* ✗ above the level$/m);
  assert.match(stdout, /^checkout +latency p99 \* +10 s +.* ✓ within the level$/m);
});

// Identical code: what this asserts is the pass (exit 0) with both levels met, not a measurement,
// so the fewest pairs perfgate takes do.
test('express A/A: the scenario limit and a level far above the service pass', async () => {
  const config = fewestPairs(quickConfig(`${IDENTICAL_CODE_ALPHA}${CONFIG.replace('max: 1ms', 'max: 10s')}`));
  const { code, stdout, verdicts } = await compare(repoWith(500_000, 500_000, config));
  assert.equal(code, 0, stdout);
  assert.equal(verdicts.decision, 'pass');
  assert.notEqual(metricOf(verdicts, 'checkout', 'throughput').verdict, 'regression');
  assert.deepEqual(verdicts.levels?.map((l) => [l.scenario, l.verdict]), [['checkout', 'pass'], ['admin', 'pass']]);
});
