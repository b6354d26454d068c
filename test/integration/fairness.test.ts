/**
 * A hostile head that makes base look slow. Every start of a block is up before any load, so the
 * starts waiting for their turn share the CPUs with those being measured; test/fixtures/unfair/
 * spin-when-idle.js is head's service, 25% slower per request, whose starts burn a core whenever
 * none of them has had a request for 20 ms: in alternate mode, exactly while base is measured
 * alone. perfgate records what each side's idle starts use during every slice (Slice.idle) and
 * refuses a verdict when one side's burned more than a tenth of a core while the other was
 * measured (src/assess/fairness.ts). Honest runs, a regression and A/A, must have no such finding.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/index.js';
import { readResults } from '../../src/results/io.js';
import type { Results, Side } from '../../src/results/types.js';
import { runCli } from '../helpers/cli.js';
import { fewestPairs, IDENTICAL_CODE_ALPHA, makeRepo, quickConfig } from '../helpers/repo.js';

const config = (mode: 'alternate' | 'simultaneous', extra = '') => quickConfig(`scenarios: [GET /work]\n${extra}`).replace('load:\n', `load:\n  mode: ${mode}\n`);
const base = (mode: 'alternate' | 'simultaneous', extra = '') => ({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 200000}', 'perfgate.yml': config(mode, extra) });

/** Per side, the share of a core its idle starts used over the other side's slices (what the gate judges). */
function idleShares(results: Results): Record<Side, number> {
  const share = (side: Side) => {
    const slices = results.scenarios.flatMap((s) => s.pairs.map((p) => p[side === 'base' ? 'head' : 'base']));
    assert.ok(slices.length > 0 && slices.every((s) => s.idle), 'every slice records its idle starts');
    return slices.reduce((n, s) => n + s.idle![side].cpuSeconds, 0) / slices.reduce((n, s) => n + s.durationMs / 1000, 0);
  };
  return { base: share('base'), head: share('head') };
}

test("a head that burns CPU while base is measured gets no verdict: exit 2, and the report names head's idle service", async (t) => {
  const repo = makeRepo(base('alternate'), { 'server.js': { copy: 'unfair/spin-when-idle.js' }, 'work.json': '{"iterations": 250000}' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  const results = readResults(join(out, 'results.json'));
  const shares = idleShares(results);
  t.diagnostic(`idle CPU over the other side's slices: base ${(shares.base * 100).toFixed(1)}%, head ${(shares.head * 100).toFixed(1)}% of a core`);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stdout, /not a fair comparison: head's idle service used [\d.]+% of a core more while base was measured/);
  assert.match(run.stdout, /head's idle service used [\d.]+% of a core while base was measured \(its \d+ starts not under load.*\(limit 10%\)\. The comparison is not fair, so this run gives no verdict.*\(unfair-comparison\)/);
  const analysis = assessResults(results);
  assert.deepEqual(analysis.unfair?.map((u) => u.side), ['head']);
  assert.equal(results.status, 'complete', 'what was measured is kept: the finding is the gate\'s, not an error');
  // The same command on the same results says the same: `perfgate report` exits 2 too.
  const report = await runCli(['report', join(out, 'results.json')], repo);
  assert.equal(report.code, 2);
});

test('an honest regression in the same layout has no unfair-comparison finding: its idle starts stay idle', async (t) => {
  const repo = makeRepo(base('alternate'), { 'work.json': '{"iterations": 250000}' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  const results = readResults(join(out, 'results.json'));
  const shares = idleShares(results);
  t.diagnostic(`idle CPU over the other side's slices: base ${(shares.base * 100).toFixed(1)}%, head ${(shares.head * 100).toFixed(1)}% of a core; exit ${run.code}`);
  assert.notEqual(run.code, 2, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /not a fair comparison|unfair-comparison/);
  assert.equal(assessResults(results).unfair, undefined);
});

// Simultaneous slices put whatever the idle starts burn on both sides at once, and identical code
// passes: neither rests on many pairs, so the fewest do.
test('an honest A/A run in the default mode (simultaneous) passes with no unfair-comparison finding', async (t) => {
  const aa = base('simultaneous', IDENTICAL_CODE_ALPHA);
  const repo = makeRepo({ ...aa, 'perfgate.yml': fewestPairs(aa['perfgate.yml']) }, { 'README.md': 'docs only' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  const results = readResults(join(out, 'results.json'));
  const shares = idleShares(results);
  t.diagnostic(`idle CPU over the other side's slices: base ${(shares.base * 100).toFixed(1)}%, head ${(shares.head * 100).toFixed(1)}% of a core`);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(assessResults(results).unfair, undefined);
});
