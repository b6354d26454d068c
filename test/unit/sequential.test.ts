// unit: slow — it computes the group-sequential bounds (numerical integration) for designs of up to 24 looks (about 8 s).
// The group-sequential design's bounds and the detectable-shift formula against values R computed by an
// independent method (test/reference/sequential-reference.R: mvtnorm's pmvnorm + uniroot), and
// the gate's use of them: the planned looks, the interim decisions and the levels verdicts use.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { assessResults } from '../../src/assess/compare.js';
import { blockSizes, planSequential } from '../../src/engine/plan.js';
import { decideLook, httpLevel } from '../../src/assess/sequential.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderTerminal } from '../../src/report/terminal.js';
import type { Results } from '../../src/results/types.js';
import { smallestDetectableShift } from '../../src/stats/power.js';
import { createRandom } from '../../src/stats/random.js';
import { lookBounds, obrienFlemingSpending } from '../../src/stats/sequential.js';
import { HEALTHY, healthResults } from '../helpers/health.js';
import { resultsFromPairs } from '../helpers/results.js';

interface Reference {
  bounds: { t: number; alpha: number; spent1: number; c1: number; c2: number; nominal1: number; nominal2: number }[];
  multi: { t: number[]; alpha: number; spent: number[]; z: number[]; nominal: number[] }[];
  detectable: { halfWidth: number; confidence: number; alpha: number; power: number; shift: number }[];
  onesided: { x: number[]; alternative: 'less' | 'greater'; p: number; V: number }[];
}
const ref: Reference = JSON.parse(readFileSync(new URL('../reference/sequential-reference.json', import.meta.url), 'utf8'));

const close = (actual: number, expected: number, relative: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= relative * Math.abs(expected), `${what}: ${actual} vs R ${expected}`);

test('two-look bounds match R (pmvnorm) for every reference case', () => {
  assert.ok(ref.bounds.length >= 8);
  for (const r of ref.bounds) {
    const b = lookBounds([r.t, 1], r.alpha);
    const what = `t=${r.t.toFixed(3)} alpha=${r.alpha}`;
    close(b.spent[0], r.spent1, 1e-9, `${what} interim spend`);
    close(b.z[0], r.c1, 1e-9, `${what} interim bound`);
    close(b.z[1], r.c2, 1e-6, `${what} final bound`);
    close(b.nominal[1], r.nominal2, 1e-5, `${what} final nominal level`);
  }
});

test('bounds of three and four looks match R (pmvnorm, Miwa) for every reference case', () => {
  assert.ok(ref.multi.length >= 6);
  for (const r of ref.multi) {
    const b = lookBounds(r.t, r.alpha);
    r.z.forEach((z, k) => {
      const what = `t=${r.t.map((t) => t.toFixed(3)).join(',')} alpha=${r.alpha} look ${k + 1}`;
      close(b.spent[k]!, r.spent[k]!, 1e-9, `${what} spend`);
      close(b.z[k]!, z, 1e-6, `${what} bound`);
      close(b.nominal[k]!, r.nominal[k]!, 1e-5, `${what} nominal level`);
    });
  }
});

test('the design spends exactly alpha: all of it at t = 1, the final look never above alpha', () => {
  close(obrienFlemingSpending(1, 0.01), 0.01, 1e-12, 'spend at t=1');
  for (const t of [0.2, 0.5, 0.8]) {
    const b = lookBounds([t, 1], 0.01);
    close(b.spent[0]! + b.spent[1]!, 0.01, 1e-12, 'total spend');
    assert.ok(b.nominal[0]! < b.nominal[1]! && b.nominal[1]! < 0.01, `levels at t=${t}: ${b.nominal}`);
  }
  const four = lookBounds([0.25, 0.5, 0.75, 1], 0.01);
  close(four.spent.reduce((a, b) => a + b, 0), 0.01, 1e-12, 'total spend of four looks');
  assert.ok(four.nominal.every((p, k) => k === 0 || p > four.nominal[k - 1]!), `levels rise: ${four.nominal}`);
  // many blocks: the first looks spend ~1e-25, which 1 − Φ(x) would round to 0 (an infinite bound)
  const many = planSequential(config({ pairs: 48, blocks: 24 }))!;
  assert.equal(many.looks.length, 24);
  assert.ok(
    many.looks.every((look, k) => look.nominalAlpha > 0 && (k === 0 || look.nominalAlpha > many.looks[k - 1]!.nominalAlpha)),
    `levels are positive and rise: ${many.looks.map((l) => l.nominalAlpha)}`,
  );
  assert.ok(many.looks.at(-1)!.nominalAlpha < 0.01 && many.looks.at(-1)!.nominalAlpha > 0.005);
  assert.throws(() => lookBounds([0.5], 0.01), /at least 2 looks/);
  assert.throws(() => lookBounds([0.5, 0.9], 0.01), /must increase within \(0, 1\] and end at 1/);
  assert.throws(() => lookBounds([0.6, 0.5, 1], 0.01), /must increase/);
});

test('smallest detectable shift matches R for every reference case', () => {
  for (const r of ref.detectable) {
    const shift = smallestDetectableShift(r.halfWidth, { confidence: r.confidence, alpha: r.alpha, power: r.power });
    close(shift, r.shift, 1e-6, `half-width ${r.halfWidth} conf ${r.confidence} alpha ${r.alpha} power ${r.power}`);
  }
});

const config = (load: Record<string, unknown>) =>
  resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /hello'], load } });

test('load.stop: decision is the default and leaves the configuration as it hashed before; verdicts is kept; anything else is refused', () => {
  assert.equal('stop' in config({}).load, false);
  assert.equal(config({ stop: 'decision' }).load.stop, undefined);
  assert.equal(config({ stop: 'verdicts' }).load.stop, 'verdicts');
  assert.throws(() => config({ stop: 'never' }), /load\.stop: .*use decision or verdicts/);
});

test('a look is planned after every block, at its share of the starts', () => {
  assert.deepEqual(blockSizes(7, 2), [4, 3]);
  const defaults = planSequential(config({}))!; // 72 pairs, 3 blocks of 8 start pairs
  assert.deepEqual(
    defaults.looks.map((l) => [l.afterBlock, l.pairs, l.t]),
    [
      [0, 24, 1 / 3],
      [1, 48, 2 / 3],
      [2, 72, 1],
    ],
  );
  // one-sided alpha 0.01: the symmetric two-sided design at 0.02, at half its levels
  const r3 = ref.multi.find((b) => b.t.length === 3 && b.t[0]! > 0.3 && b.alpha === 0.02)!;
  for (const [k, look] of defaults.looks.entries()) close(look.nominalAlpha, r3.nominal[k]! / 2, 1e-5, `level of look ${k + 1}`);
  const two = planSequential(config({ pairs: 48, blocks: 2 }))!;
  assert.deepEqual(
    two.looks.map((l) => [l.afterBlock, l.pairs, l.t]),
    [
      [0, 24, 0.5],
      [1, 48, 1],
    ],
  );
  // one-sided alpha 0.01: the symmetric two-sided design at 0.02, at half its levels
  const r = ref.bounds.find((b) => b.t === 0.5 && b.alpha === 0.02)!;
  close(two.looks[0]!.nominalAlpha, r.nominal1 / 2, 1e-9, 'interim level');
  close(two.looks[1]!.nominalAlpha, r.nominal2 / 2, 1e-5, 'final level');
  // a block with fewer pairs than instances starts fewer: t counts starts, not pairs
  const uneven = planSequential(config({ pairs: 20, blocks: 3 }))!;
  assert.deepEqual(
    uneven.looks.map((l) => [l.pairs, l.t]),
    [
      [7, 7 / 20],
      [14, 14 / 20],
      [20, 1],
    ],
  );
  assert.equal(planSequential(config({ blocks: 1 })), null);
  assert.equal(planSequential(config({ 'early-stop': false })), null);
});

test("against a stored record a look's information counts the record whole: with the defaults 1/2 and 4/5, levels from the same spending", () => {
  const unpaired = planSequential(config({}), 'unpaired')!;
  // information ∝ 1/(1/24 + 1/n) for head's n of 24 start pairs against the record's 24: 8, 16 and 24 give 6, 9.6 and 12
  assert.deepEqual(
    unpaired.looks.map((l) => [l.afterBlock, l.pairs]),
    [
      [0, 24],
      [1, 48],
      [2, 72],
    ],
  );
  for (const [k, l] of unpaired.looks.entries()) close(l.t, [0.5, 0.8, 1][k]!, 1e-12, `information fraction of look ${k + 1}`);
  // The first look's bound spends exactly what the O'Brien–Fleming-type function allows by then (two-sided 2·alpha, half of it per side).
  close(unpaired.looks[0]!.nominalAlpha, obrienFlemingSpending(0.5, 0.02) / 2, 1e-9, 'first interim level');
  const paired = planSequential(config({}))!;
  assert.ok(unpaired.looks[0]!.nominalAlpha > 10 * paired.looks[0]!.nominalAlpha, 'the record is whole at the first look: its level is far less strict (0.0005 against 0.000028)');
  assert.ok(unpaired.looks[2]!.nominalAlpha < 0.01, 'the final level is below alpha: the looks spent some of it');
});

/** n pairs with multiplicative noise (sd ≈ 3%) and a true head/base ratio. */
function noisyPairs(n: number, ratio: number, seed: number): [number, number][] {
  const random = createRandom(seed);
  const noise = () => Math.exp((random() + random() + random() - 1.5) * 0.06);
  return Array.from({ length: n }, () => [10_000 * noise(), 10_000 * ratio * noise()]);
}

/** Results at the interim look: the first 30 of 60 planned pairs, design attached. */
function atInterim(ratio: number, seed: number, noise = 1): Results {
  const pairs = noisyPairs(30, ratio, seed).map(([b, h], i): [number, number] => (i % 3 === 0 ? [b, h * noise] : [b, h]));
  const results = resultsFromPairs(pairs, { load: { pairs: 60, blocks: 2 } });
  results.status = 'running';
  for (const p of results.scenarios[0]!.pairs) p.block = 0;
  results.sequential = planSequential(results.config)!;
  return results;
}

function look(results: Results) {
  const level = results.sequential!.looks[0]!.nominalAlpha;
  return decideLook(results, 0, assessResults(results, { httpLevel: level }), new Date('2026-11-22T10:01:00Z'));
}

test('interim: a large regression stops the run and fails it at the interim level', () => {
  const results = atInterim(0.8, 1);
  const taken = look(results);
  assert.equal(taken.decision, 'stop-regression');
  assert.match(taken.reason, /GET \/hello throughput -2\d(\.\d)?% is already a regression beyond the interim bound \(adjusted p .* < 0\.0005\)/);
  results.sequential!.taken.push(taken);
  assert.equal(httpLevel(results), results.sequential!.looks[0]!.nominalAlpha);
  assert.equal(assessResults(results).decision, 'fail');
  const text = renderTerminal(results, assessResults(results), { color: false });
  assert.match(text, /30 of 60 pairs \(stopped early\)/);
  assert.match(text, /Stopped early after block 1 of 2 \(30 of 60 pairs per scenario\): GET \/hello throughput/);
  const markdown = renderMarkdown(results, assessResults(results));
  assert.match(markdown, /30 of 60 pairs \(stopped early\) × 1 s/);
  assert.match(markdown, /Stopped early after block 1 of 2 .*interim level 0\.0005, final level 0\.0098\)\./);
});

test('a run that went on says so, with the interim reason', () => {
  const results = atInterim(0.99, 5);
  const taken = look(results);
  results.sequential!.taken.push(taken);
  // the second block measured the same way
  const more = resultsFromPairs(noisyPairs(30, 0.99, 6), { load: { pairs: 60, blocks: 2 } }).scenarios[0]!.pairs;
  results.scenarios[0]!.pairs.push(...more.map((p, i) => ({ ...p, block: 1, start: 30 + i, index: 30 + i })));
  results.status = 'complete';
  results.sequential!.taken.push(decideLook(results, 1, assessResults(results)));
  assert.equal(results.sequential!.taken[1]!.decision, 'final');
  const text = renderTerminal(results, assessResults(results), { color: false });
  assert.match(text, /Looked once after block 1 of 2 \(30 of 60 pairs per scenario\): not yet clear: .*; went on to all pairs/);
  assert.doesNotMatch(text, /stopped early/);
});

test('three looks: a run that went on at the first look and stopped at the second tells both', () => {
  const pairs = [...noisyPairs(24, 0.985, 7), ...noisyPairs(24, 0.8, 8)];
  const results = resultsFromPairs(pairs, { load: { pairs: 72, blocks: 3 } });
  results.scenarios[0]!.pairs.forEach((p, i) => {
    p.block = i < 24 ? 0 : 1;
  });
  results.status = 'running';
  const design = planSequential(results.config)!;
  assert.equal(design.looks.length, 3);
  const first = { ...results, scenarios: results.scenarios.map((s) => ({ ...s, pairs: s.pairs.slice(0, 24) })), sequential: { ...design, taken: [] } };
  const one = decideLook(first, 0, assessResults(first, { httpLevel: design.looks[0]!.nominalAlpha }));
  assert.equal(one.decision, 'continue');
  results.sequential = { ...design, taken: [one] };
  const two = decideLook(results, 1, assessResults(results, { httpLevel: design.looks[1]!.nominalAlpha }));
  assert.equal(two.decision, 'stop-regression');
  results.sequential.taken.push(two);
  results.status = 'complete';
  assert.equal(httpLevel(results), design.looks[1]!.nominalAlpha);
  const analysis = assessResults(results);
  assert.equal(analysis.decision, 'fail');
  const text = renderTerminal(results, analysis, { color: false });
  assert.match(text, /48 of 72 pairs \(stopped early\)/);
  assert.match(
    text,
    /Looked after block 1 of 3 \(24 of 72 pairs per scenario\): not yet clear: GET \/hello throughput .*; then stopped early after block 2 \(48 of 72 pairs per scenario\): GET \/hello throughput .* is already a regression beyond the interim bound/,
  );
  assert.match(renderMarkdown(results, analysis), /interim levels 2\.8e-5, 0\.0022, final level 0\.0092\)\./);
});

test('interim: identical sides with a quiet machine stop as clear', () => {
  const taken = look(atInterim(1, 3));
  assert.equal(taken.decision, 'stop-clear');
  assert.match(taken.reason, /every gated metric is already clear \(3 of 3 unchanged or improved\)/);
});

test('interim: a small drop is not stopped on, in either direction', () => {
  // 1% slower: the estimate stays inside the 2% limit, but the interval is not inside ±2% either
  const taken = look(atInterim(0.99, 5));
  assert.equal(taken.decision, 'continue');
  assert.match(taken.reason, /not yet clear: GET \/hello throughput/);
});

test('interim: a metric open only on the better side settles the decision and stops; the same interval on the worse side goes on', () => {
  // one set of start pairs, then the same with the sides swapped: a drop of about 1.9% whose
  // 90% interval reaches past −2%, and its mirror image, a gain reaching past +2%
  const worse = atInterim(0.99, 5);
  const better = atInterim(0.99, 5);
  for (const p of better.scenarios[0]!.pairs) [p.base, p.head] = [{ ...p.head, side: 'base' }, { ...p.base, side: 'head' }];
  const level = worse.sequential!.looks[0]!.nominalAlpha;
  const throughput = (r: Results) => assessResults(r, { httpLevel: level }).comparisons.find((c) => c.metric === 'throughput')!;
  assert.equal(throughput(worse).verdict, 'inconclusive');
  assert.ok(throughput(worse).eqLow! < -0.02 && throughput(worse).eqHigh! < 0.02, 'open on the worse side only');
  assert.equal(throughput(better).verdict, 'no-regression');
  assert.ok(throughput(better).eqLow! > -0.02 && throughput(better).eqHigh! > 0.02, 'open on the better side only');

  assert.equal(look(worse).decision, 'continue');
  assert.match(look(worse).reason, /^not yet clear: GET \/hello throughput is undecided$/);
  const stopped = look(better);
  assert.equal(stopped.decision, 'stop-clear');
  assert.equal(stopped.reason, 'the decision is settled: no gated metric can fail any more (2 unchanged or improved, 1 with no regression: an improvement not ruled out)');
  // load.stop: verdicts waits for the improvement to be called (or ruled out)
  const waiting = atInterim(0.99, 5);
  waiting.scenarios = better.scenarios;
  waiting.config = resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /hello'], load: { pairs: 60, blocks: 2, stop: 'verdicts' } } });
  assert.equal(waiting.config.load.stop, 'verdicts');
  assert.equal(look(waiting).decision, 'continue');
  assert.match(look(waiting).reason, /^not yet clear: GET \/hello throughput is undecided$/);

  // what the reader sees of the stopped run: a pass, the metric named as open on the better side, not as unchanged
  better.sequential!.taken.push(stopped);
  better.status = 'complete';
  const analysis = assessResults(better);
  assert.equal(analysis.decision, 'pass');
  assert.equal(analysis.comparisons.find((c) => c.metric === 'throughput')!.verdict, 'no-regression');
  const folded = renderTerminal(better, analysis, { color: false });
  assert.match(folded, /^0 regressions · 0 improvements · 5 unchanged · 1 no regression$/m);
  assert.match(folded, /^No regression beyond its limit: 2 of 3 gated metrics are unchanged and 1 shows no regression \(GET \/hello throughput: an improvement of up to \+\d\.\d% not ruled out\)/m);
  const text = renderTerminal(better, analysis, { color: false, full: true });
  assert.match(text, /GET \/hello +throughput \* .* no regression$/m);
  assert.match(text, /^throughput \*: no regression, an improvement of up to \+\d\.\d% not ruled out$/m);
  assert.match(text, /Stopped early after block 1 of 2 \(30 of 60 pairs per scenario\): the decision is settled/);
  const markdown = renderMarkdown(better, analysis);
  assert.match(markdown, /\*\*No regression beyond its limit:\*\* 2 of 3 gated metrics are unchanged and 1 shows no regression \(GET \/hello throughput: an improvement of up to \+\d\.\d% not ruled out\)/);
  assert.match(markdown, /\| \*\*throughput\*\* \|.*\| no regression: an improvement of up to \+\d\.\d% not ruled out \|/);
  assert.doesNotMatch(markdown, /\(inconclusive\)|❔/, 'no inconclusive verdict or warning');
});

test('without a stop the verdicts use the final level; runs without a design use alpha', () => {
  const results = atInterim(0.97, 5);
  assert.equal(httpLevel(results), results.sequential!.looks[1]!.nominalAlpha);
  delete results.sequential;
  assert.equal(httpLevel(results), 0.01);
});

test('interim: a gated event-loop-delay regression stops the run; health metrics count for "clear"', () => {
  const interim = (head: typeof HEALTHY) => {
    const results = healthResults(30, { base: HEALTHY, head }, { document: { load: { pairs: 60, blocks: 2 } } });
    results.status = 'running';
    for (const p of results.scenarios[0]!.pairs) p.block = 0;
    results.sequential = planSequential(results.config)!;
    return look(results);
  };
  const blocked = interim({ ...HEALTHY, delayP99Us: 50_000 });
  assert.equal(blocked.decision, 'stop-regression');
  assert.match(blocked.reason, /GET \/hello event loop delay p99 \d[\d.]*% is already a regression beyond the interim bound/);
  const same = interim(HEALTHY);
  assert.notEqual(same.decision, 'stop-regression');
  assert.equal(same.decision, 'stop-clear');
  assert.match(same.reason, /^the decision is settled: no gated metric can fail any more \(3 unchanged or improved, 1 with no regression: an improvement not ruled out\)$/);
});

test('interim: a head failing in every start pair while base answered every request stops the run, and says by which rule', () => {
  // 3 start pairs of 10: too few for the test to reach the interim bound, so the errors rule decides
  const results = resultsFromPairs(noisyPairs(30, 1.05, 3), { load: { pairs: 60, blocks: 2 } }, 10);
  results.status = 'running';
  for (const p of results.scenarios[0]!.pairs) {
    p.block = 0;
    p.head.non2xx = Math.round(p.head.requests / 3);
  }
  results.sequential = planSequential(results.config)!;
  const taken = look(results);
  assert.equal(taken.decision, 'stop-regression');
  assert.match(taken.reason, /^GET \/hello errors \+33\.\d points is already a regression: base answered every request as expected, head failed beyond the limit in every start pair$/);
});

/** The first block of the defaults (8 start pairs of 3 pairs, 24 of 72 planned), at a true head/base ratio. */
function firstOfThree(ratio: number, seed: number, edit = (pairs: [number, number][]) => pairs): Results {
  const results = resultsFromPairs(edit(noisyPairs(24, ratio, seed)), { load: { pairs: 72, blocks: 3 } }, 3);
  results.status = 'running';
  for (const p of results.scenarios[0]!.pairs) p.block = 0;
  results.sequential = planSequential(results.config)!;
  return results;
}

test('first of three looks: 8 start pairs all 30% slower stop the run as a regression, which the sign-flip test alone (1/256) never could', () => {
  const results = firstOfThree(0.7, 11);
  const level = results.sequential!.looks[0]!.nominalAlpha;
  assert.ok(2 ** -8 > level, 'the sign-flip test cannot reach the first look');
  const analysis = assessResults(results, { httpLevel: level });
  const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
  assert.ok(throughput.p < level / 3, `studentized p ${throughput.p}`);
  const taken = decideLook(results, 0, analysis);
  assert.equal(taken.decision, 'stop-regression');
  assert.match(taken.reason, /GET \/hello throughput -(29|3\d)(\.\d)?% is already a regression beyond the interim bound/);
  // The same look's final verdicts, as the report decides them after the stop
  results.sequential!.taken.push(taken);
  assert.equal(assessResults(results).decision, 'fail');
});

test('first of three looks: a drop that does not move every start pair the same way, or a small one, goes on', () => {
  // 3% slower with ±3% pair noise: the starts agree in sign, but not closely enough for the t statistic at 0.000028
  const small = firstOfThree(0.97, 12);
  assert.equal(decideLook(small, 0, assessResults(small, { httpLevel: small.sequential!.looks[0]!.nominalAlpha })).decision, 'continue');
  // 30% slower, but one start pair measured head faster: the sign-flip test decides (p ≥ 1/256 · 9), and it cannot reach
  const mixed = firstOfThree(0.7, 13, (pairs) => pairs.map(([b, h], i) => [b, Math.floor(i / 3) === 5 ? b * 1.05 : h]));
  const analysis = assessResults(mixed, { httpLevel: mixed.sequential!.looks[0]!.nominalAlpha });
  assert.ok(analysis.comparisons.find((c) => c.metric === 'throughput')!.p >= 2 ** -8);
  assert.notEqual(decideLook(mixed, 0, analysis).decision, 'stop-regression');
});
