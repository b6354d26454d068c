import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../src/action/decision.js';
import { assessResults } from '../../src/assess/index.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { validateResults } from '../../src/results/validate.js';
import { resultsFromPairs } from '../helpers/results.js';

/** Twelve pairs, head 20% slower, each slice 1 s; `idle(side, i)` is the CPU seconds that side's idle starts used during pair i's other-side slice. */
function run(idle: (side: 'base' | 'head', pair: number) => number) {
  const results = resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000 + (i % 3), 1250 + (i % 5)] as [number, number]));
  results.scenarios[0]!.pairs.forEach((pair, i) => {
    // Alternate mode: during base's slice head's starts are idle, and the other way round.
    pair.base.idle = { base: { starts: 5, cpuSeconds: 0 }, head: { starts: 6, cpuSeconds: idle('head', i) } };
    pair.head.idle = { base: { starts: 6, cpuSeconds: idle('base', i) }, head: { starts: 5, cpuSeconds: 0 } };
  });
  return results;
}

describe('fairness: CPU burned by idle starts', () => {
  it("a head whose idle starts burn CPU while base is measured gets no passing verdict, whatever its numbers say", () => {
    const results = run((side) => (side === 'head' ? 0.95 : 0));
    const analysis = assessResults(results);
    // Head looks 25% faster: the burn made base slow. Without the finding this is an improvement and a pass.
    assert.equal(analysis.comparisons.find((c) => c.metric === 'throughput')!.verdict, 'improvement');
    assert.equal(analysis.decision, 'fail');
    assert.equal(analysis.unfair?.length, 1);
    assert.equal(analysis.unfair![0]!.side, 'head');
    assert.equal(analysis.unfair![0]!.idleCoreShare, 0.95);
    assert.match(analysis.unfair![0]!.message, /^head's idle service used 95% of a core while base was measured \(its 6 starts not under load, on average over 12 slices\), 0% while head itself was: base's measurement got 95% of a core more from the services waiting their turn \(limit 10%\)\. The comparison is not fair/);
    assert.ok(analysis.warnings.some((w) => w.code === 'unfair-comparison'));
    // The comment's first line says it, before any verdict.
    assert.match(renderMarkdown(results, analysis), /not a fair comparison: head's idle service used 95% of a core more while base was measured; no verdict/);
    // An accept label accepts a regression, never an unfair run.
    assert.deepEqual(decide(analysis, ['perf-regression-accepted'], 'perf-regression-accepted'), { decision: 'fail', acceptedBy: null });
  });

  it('burning in a few slices only counts by its average: under half the slices at a full core is still caught', () => {
    const analysis = assessResults(run((side, i) => (side === 'head' && i % 3 === 0 ? 1 : 0)));
    assert.equal(analysis.unfair?.[0]?.side, 'head');
    assert.equal(analysis.unfair?.[0]?.idleCoreShare, 0.3333);
  });

  it("base's idle starts burning is named as base's", () => {
    const analysis = assessResults(run((side) => (side === 'base' ? 0.5 : 0)));
    assert.deepEqual(analysis.unfair?.map((u) => u.side), ['base']);
    assert.match(analysis.unfair![0]!.message, /^base's idle service used 50% of a core while head was measured.*makes head look slower/);
  });

  it('a service that works on a timer whatever is measured (a cache rebuild every 200 ms) burns alike during both sides\' slices: fair', () => {
    // both sides' idle starts use half a core during the other side's slices, and their own side's idle starts as much during its own
    const results = run(() => 0.5);
    results.scenarios[0]!.pairs.forEach((pair) => {
      pair.base.idle!.base.cpuSeconds = 0.5;
      pair.head.idle!.head.cpuSeconds = 0.5;
    });
    assert.equal(assessResults(results).unfair, undefined);
    // one-sided, the same timer in head only is still a tilt of one start's worth against base, under the limit here
    assert.equal(assessResults(run((side) => (side === 'head' ? 0.05 : 0))).unfair, undefined);
  });

  it('simultaneous slices: both sides are measured in one window, so even a burning head tilts nothing', () => {
    const results = run(() => 0);
    results.scenarios[0]!.pairs.forEach((pair) => {
      const window = { base: { starts: 5, cpuSeconds: 0 }, head: { starts: 5, cpuSeconds: 0.95 } };
      pair.base.idle = window;
      pair.head.idle = window;
    });
    assert.equal(assessResults(results).unfair, undefined);
  });

  it('an idle service that ticks now and then (a clock tick, a timer, a GC) is no finding', () => {
    // 10 ms in every other slice (a clock tick), and 90 ms once: 0.8% of a core on average.
    const analysis = assessResults(run((_, i) => (i === 4 ? 0.09 : i % 2 ? 0.01 : 0)));
    assert.equal(analysis.unfair, undefined);
    assert.ok(!analysis.warnings.some((w) => w.code === 'unfair-comparison'));
  });

  it('just over the limit is a finding, at it none', () => {
    assert.equal(assessResults(run((side) => (side === 'head' ? 0.1 : 0))).unfair, undefined);
    assert.equal(assessResults(run((side) => (side === 'head' ? 0.11 : 0))).unfair?.[0]?.side, 'head');
  });

  it('results from before idle CPU was recorded have no finding, and the record passes validation', () => {
    assert.equal(assessResults(resultsFromPairs([[1000, 1000], [1000, 1010]])).unfair, undefined);
    const results = run(() => 0.02);
    assert.doesNotThrow(() => validateResults(JSON.parse(JSON.stringify(results)), 'results.json'));
    const bad = JSON.parse(JSON.stringify(results));
    bad.scenarios[0].pairs[0].base.idle.head.cpuSeconds = -1;
    assert.throws(() => validateResults(bad, 'results.json'));
  });
});
