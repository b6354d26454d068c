// The quiet pass and the answer first: what a reviewer reads on a pull request that changed
// nothing (a headline and one line, no alarms), and on one that failed (the decision, the change
// with its limit and the culprit, before any count or design).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planSequential } from '../../src/engine/plan.js';
import { assessResults } from '../../src/assess/compare.js';
import { decideLook } from '../../src/assess/sequential.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderTerminal } from '../../src/report/terminal.js';
import type { Results } from '../../src/results/types.js';
import { createRandom } from '../../src/stats/random.js';
import { HEALTHY, healthResults } from '../helpers/health.js';
import { resultsFromPairs } from '../helpers/results.js';

/** Paired throughputs with a few percent of noise; head is `ratio` × base. */
function noisyPairs(n: number, ratio: number, seed: number): [number, number][] {
  const random = createRandom(seed);
  const noise = () => Math.exp((random() + random() + random() - 1.5) * 0.06);
  return Array.from({ length: n }, () => [10_000 * noise(), 10_000 * ratio * noise()]);
}

/**
 * A run of 72 planned pairs in 3 blocks of 8 start pairs, stopped by the look after block 1:
 * identical sides (seed 3 is one the look finds clear), or a head `ratio` slower.
 */
function stoppedAtFirstLook(ratio = 1, seed = 3, instances = 8): Results {
  const results = resultsFromPairs(noisyPairs(24, ratio, seed), { load: { pairs: 72, blocks: 3, instances } }, 24 / instances);
  results.status = 'running';
  for (const p of results.scenarios[0]!.pairs) p.block = 0;
  results.sequential = { ...planSequential(results.config)!, taken: [] };
  const level = results.sequential.looks[0]!.nominalAlpha;
  const taken = decideLook(results, 0, assessResults(results, { httpLevel: level }), new Date('2026-11-22T10:01:00Z'));
  results.sequential.taken.push(taken);
  results.status = 'complete';
  return results;
}

test('a clear early stop warns of nothing: "underpowered" is judged on the 24 planned starts, not the 8 at the look', () => {
  const results = stoppedAtFirstLook();
  assert.equal(results.sequential!.taken[0]!.decision, 'stop-clear');
  const analysis = assessResults(results);
  assert.deepEqual(
    analysis.warnings.map((w) => w.code),
    [],
    analysis.warnings.map((w) => w.message).join('\n'),
  );
});

test('a run too small by design is still underpowered after an early stop', () => {
  // 3 blocks × 2 starts: 6 start pairs planned; 2 × 2^-6 > 0.0092 (2 gated metrics), whatever the look did
  const results = stoppedAtFirstLook(1, 3, 2);
  results.sequential!.taken[0]!.decision = 'stop-clear';
  const warning = assessResults(results).warnings.find((w) => w.code === 'underpowered');
  assert.match(warning?.message ?? '', /With 6 start pairs .* level 0\.0092/);
});

test('the quiet pass folds to its headline and one line, an inconclusive informational row notwithstanding', () => {
  const results = stoppedAtFirstLook();
  const analysis = assessResults(results);
  const p50 = analysis.comparisons.find((c) => c.metric === 'latency_p50')!;
  assert.equal(p50.gated, false);
  p50.verdict = 'inconclusive';
  const text = renderTerminal(results, analysis, { color: false });
  const lines = text.trimEnd().split('\n');
  assert.match(lines[0]!, /^perfgate: ✓ passing: largest gated change GET \/hello (throughput|latency p99) [+−]\d/);
  assert.match(text, /Nothing changed beyond its limit: all 3 gated metrics are unchanged \(GET \/hello: throughput [^;]*, latency p99 [^;,]*\)/);
  assert.ok(lines.length <= 6, `folded: ${lines.length} lines\n${text}`);
  // no alarm about the design, the detectable change or the look on a pass that changed nothing
  assert.doesNotMatch(text, /smallest detectable|O'Brien|Lan–DeMets|interim/);
  const markdown = renderMarkdown(results, analysis);
  assert.match(markdown, /\*\*Nothing changed beyond its limit:\*\* all 3 gated metrics are unchanged/);
  // the design is in the details, not above them
  const details = markdown.indexOf('<details><summary>Method');
  assert.ok(markdown.indexOf("O'Brien") > details, 'the design of the looks sits in the details');
});

test('a failing run answers first: the decision, the worst gated change with its limit, then the counts; the design at the end', () => {
  const results = resultsFromPairs(noisyPairs(24, 0.8, 5), { load: { pairs: 24, blocks: 2, instances: 12 } }, 1);
  const analysis = assessResults(results);
  assert.equal(analysis.decision, 'fail');
  const lines = renderTerminal(results, analysis, { color: false }).split('\n');
  assert.match(lines[0]!, /^perfgate: ✗ failing: GET \/hello throughput −2\d\.\d% \(limit 2%\)( \(and 1 more gated regression\))?$/);
  assert.match(lines[1]!, /^\d regressions? (\(\d gated\) )?· 0 improvements · \d unchanged/);
  const markdown = renderMarkdown(results, analysis);
  assert.match(markdown, /^## perfgate: ❌ failing: GET \/hello throughput −2\d\.\d% \(limit 2%\)( \(and 1 more gated regression\))?\n\n\d regressions? (\(\d gated\) )?· /);
  // the columns say what they are
  assert.match(markdown, /\| scenario \| metric \| base \(median\) \| head \(median\) \| paired change \(95% CI\) \| verdict \|/);
  assert.match(lines.join('\n'), /base, head: each side's median; change: paired/);
});

test('the smallest detectable change is said only where it explains a verdict', () => {
  const inconclusive = stoppedAtFirstLook(1, 1);
  assert.equal(inconclusive.sequential!.taken[0]!.decision, 'continue');
  const text = renderTerminal(inconclusive, assessResults(inconclusive), { color: false, full: true });
  assert.match(text, /smallest detectable change, GET \/hello throughput: /);
  const regression = resultsFromPairs(noisyPairs(24, 0.8, 5), { load: { pairs: 24, blocks: 2, instances: 12 } }, 1);
  assert.doesNotMatch(renderTerminal(regression, assessResults(regression), { color: false }), /smallest detectable/);
});

test('one load generator for both sides: its row gives the figure once', () => {
  const results = healthResults(12, { base: HEALTHY, head: HEALTHY });
  // simultaneous slices: one generator drives both sides, so both record its same figures
  for (const pair of results.scenarios[0]!.pairs) {
    pair.head.generatorCpuSeconds = pair.base.generatorCpuSeconds;
    pair.head.generatorEventLoopUtilization = pair.base.generatorEventLoopUtilization;
  }
  const text = renderTerminal(results, assessResults(results), { color: false, full: true });
  const row = text.split('\n').find((l) => l.startsWith('generator busy / CPU'))!;
  assert.match(row, /^generator busy \/ CPU +\d+(\.\d)?% \/ \d+(\.\d)?% +one generator loads both sides$/);
  const markdown = renderMarkdown(results, assessResults(results));
  assert.match(markdown, /\| generator busy \/ CPU \| \d+(\.\d)?% \/ \d+(\.\d)?% \| {2}\| one generator loads both sides \|/);
});

test('a fixed-rate scenario says its rate in words under its name, in the comment and in the terminal; a closed-loop one says none', () => {
  const results = resultsFromPairs(noisyPairs(24, 0.8, 5), { load: { pairs: 24, blocks: 2, instances: 12 } }, 1);
  const closed = renderTerminal(results, assessResults(results), { color: false, full: true });
  assert.doesNotMatch(closed + renderMarkdown(results, assessResults(results)), /at a fixed/);
  results.scenarios[0]!.rate = { perSecond: 200, source: 'config' };
  const analysis = assessResults(results);
  assert.match(renderMarkdown(results, analysis), /\n\| GET \/hello<br>at a fixed 200 req\/s \| \*\*throughput\*\* \|/);
  const lines = renderTerminal(results, analysis, { color: false, full: true }).split('\n');
  const first = lines.findIndex((line) => /^GET \/hello +throughput/.test(line));
  assert.ok(first > 0, lines.join('\n'));
  assert.match(lines[first + 1]!, /^at a fixed 200 req\/s +\S/, 'the rate on the row under the name');
  results.scenarios[0]!.rate = { perSecond: 480, source: 'capacity', baseCapacity: 1200 };
  assert.match(renderMarkdown(results, assessResults(results)), /GET \/hello<br>at a fixed 480 req\/s \(40% of base's 1,200 req\/s\)/);
});
