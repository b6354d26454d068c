import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assessResults, describeFailing } from '../../src/assess/compare.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import {
  aggregateHealth,
  checkGenerator,
  decideHealthVerdict,
  decideHeapGrowth,
  GENERATOR_BUSY,
  GENERATOR_DOMINANCE,
  GENERATOR_SATURATED,
  generatorBoundSlice,
  heapGap,
  heapTrend,
  markGeneratorBound,
  SERVICE_SPARE,
} from '../../src/assess/health.js';
import type { HeapGap, HeapTrend, MetricComparison, ScenarioResults, Verdict } from '../../src/results/types.js';
import { kendallS, seasonalKendall, theilSenSlope } from '../../src/stats/trend.js';
import { HEALTHY, healthResults, processHealth, withoutHealthRules } from '../helpers/health.js';
import { FIXTURES, ROOT } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

describe('trend statistics', () => {
  const reference = JSON.parse(readFileSync(join(ROOT, 'test/reference/trend-reference.json'), 'utf8')) as {
    cases: { name: string; x: number[]; y: number[]; z: number; p: number; slope: number }[];
  };

  for (const c of reference.cases) {
    it(`one block agrees with R's cor.test(method = "kendall") and the pairwise-slope median: ${c.name}`, () => {
      const trend = seasonalKendall([{ x: c.x, y: c.y }]);
      assert.ok(Math.abs(trend.z - c.z) < 1e-9, `z ${trend.z} vs R ${c.z}`);
      assert.ok(Math.abs(trend.p - c.p) <= 1e-9 * Math.max(1, c.p) + 1e-15, `p ${trend.p} vs R ${c.p}`);
      assert.ok(Math.abs(theilSenSlope([{ x: c.x, y: c.y }]) - c.slope) < 1e-9 * Math.max(1, Math.abs(c.slope)));
    });
  }

  it('pools slopes within blocks only: two blocks with different intercepts share one slope', () => {
    const x = [1, 2, 3, 4, 5];
    const blocks = [
      { x, y: x.map((v) => 100 + 3 * v) },
      { x, y: x.map((v) => 900 + 3 * v) },
    ];
    assert.equal(theilSenSlope(blocks), 3);
    // across the blocks the slopes would be huge: pooling them all would not give 3
    assert.notEqual(theilSenSlope([{ x: [...x, ...x.map((v) => v + 5)], y: [...blocks[0]!.y, ...blocks[1]!.y] }]), 3);
  });

  it('is robust to an outlier', () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    const y = x.map((v) => 2 * v);
    y[4] = 1000;
    assert.equal(theilSenSlope([{ x, y }]), 2);
  });

  it('counts S, and the seasonal test adds S and variances over blocks', () => {
    assert.deepEqual(kendallS({ x: [1, 2, 3, 4], y: [1, 3, 2, 4] }), { s: 4, variance: (4 * 3 * 13) / 18 });
    const one = kendallS({ x: [1, 2, 3, 4, 5, 6], y: [1, 2, 3, 4, 5, 6] });
    const two = seasonalKendall([
      { x: [1, 2, 3, 4, 5, 6], y: [1, 2, 3, 4, 5, 6] },
      { x: [1, 2, 3, 4, 5, 6], y: [1, 2, 3, 4, 5, 6] },
    ]);
    assert.equal(two.s, 2 * one.s);
    assert.equal(two.variance, 2 * one.variance);
    assert.ok(two.p < 0.001, 'two monotone blocks of 6 are significant');
    assert.equal(seasonalKendall([{ x: [1, 2], y: [5, 5] }]).p, 1, 'no trend, nothing to test');
  });
});

describe('aggregateHealth', () => {
  it("takes the worst process's loop and sums what adds up (a cluster)", () => {
    const primary = processHealth({ pid: 1, eventLoopUtilization: 0.01, eventLoopDelayUs: { p50: 10, p99: 90, max: 120, samples: 100 }, heapAfterGcBytes: null, heapUsedBytes: 4e6 });
    const worker = (pid: number, p99: number) =>
      processHealth({ pid, ppid: 1, worker: true, eventLoopUtilization: 0.7 + pid / 100, eventLoopDelayUs: { p50: 300, p99, max: p99 * 2, samples: 90 } });
    const values = aggregateHealth({ requestsSinceStart: 1000, missing: 0, processes: [primary, worker(2, 1500), worker(3, 2500)] })!;
    assert.equal(values.processes, 3);
    assert.equal(values.delayP99Us, 2500);
    assert.equal(values.delayMaxUs, 5000);
    assert.equal(values.utilization, 0.73);
    assert.equal(values.gcMs, 36, 'GC pauses of all processes');
    assert.equal(values.heapAfterGcBytes, 4e6 + 6e6 + 6e6, 'a process without a GC counts with its heap at the end');
    assert.equal(values.rssBytes, 180e6);
  });

  it('has no heap sum when a process did not report, and nothing without reports', () => {
    assert.equal(aggregateHealth({ requestsSinceStart: 1, missing: 1, processes: [processHealth()] })!.heapAfterGcBytes, null);
    assert.equal(aggregateHealth(null), null);
    assert.equal(aggregateHealth(undefined), null);
  });
});

describe('decideHealthVerdict: the absolute floor', () => {
  const floor = (absoluteChange: number, absoluteLow: number, absoluteHigh: number, min = 10_000) => ({ min, absoluteChange, absoluteLow, absoluteHigh });
  const cases: [string, Verdict, ReturnType<typeof floor>, Verdict][] = [
    ['+100% but 0.1 ms more: within the floor', 'regression', floor(100, 60, 140), 'unchanged'],
    ['+2,000%, 40 ms more', 'regression', floor(40_000, 30_000, 50_000), 'regression'],
    ['+80%, 6 ms more, interval reaching 14 ms', 'regression', floor(6000, 2000, 14_000), 'inconclusive'],
    ['−90%, 45 ms less', 'improvement', floor(-45_000, -60_000, -30_000), 'improvement'],
    ['relative interval inside the limit', 'unchanged', floor(3000, -9000, 15_000), 'unchanged'],
    ['no floor: the relative verdict stands', 'regression', floor(100, 60, 140, 0), 'regression'],
    ['relative open only on the better side: no regression', 'no-regression', floor(-8000, -20_000, 4000), 'no-regression'],
    ['+60% relative, but at most 8 ms more, and maybe 20 ms less: the floor rules the regression out', 'inconclusive', floor(-2000, -20_000, 8000), 'no-regression'],
    ['worse end beyond both limits: inconclusive', 'inconclusive', floor(-2000, -20_000, 12_000), 'inconclusive'],
  ];
  for (const [name, relative, c, expected] of cases) {
    it(name, () => assert.equal(decideHealthVerdict(relative, c), expected));
  }
});

describe('the memory-growth rule', () => {
  const trend = (mbPer10k: number, fields: Partial<HeapTrend> = {}): HeapTrend => ({
    n: 12,
    bytesPerRequest: mbPer10k * 100,
    blocks: [mbPer10k * 100, mbPer10k * 100],
    s: mbPer10k > 0 ? 30 : 0,
    p: mbPer10k > 0 ? 1e-4 : 1,
    lastHeapBytes: 8e6,
    lastRssBytes: 60e6,
    lastActiveHandles: 2,
    ...fields,
  });
  const rule = { limitMbPer10k: 0.5, gated: false };
  /** The gap between the sides within start pairs: widening (s > 0), narrowing (s < 0), significant unless p says otherwise. */
  const gap = (s: number, p = s === 0 ? 1 : 1e-4): HeapGap => ({ n: 12, bytesPerRequest: s * 10, s, p });

  it('head rising in every block while base is flat: possible leak', () => {
    assert.equal(decideHeapGrowth(trend(0.02), trend(1.2), gap(30), rule, 0.01), 'regression');
  });
  it('both rising alike (a short run, old garbage not yet collected): unchanged', () => {
    assert.equal(decideHeapGrowth(trend(0.4), trend(0.5), gap(4), rule, 0.01), 'unchanged');
  });
  it('head rising in one block only: not a leak', () => {
    assert.equal(decideHeapGrowth(trend(0), trend(1.2, { blocks: [240, -10] }), gap(30), rule, 0.01), 'inconclusive');
  });
  it('a rise that is not significant: not a leak', () => {
    assert.equal(decideHeapGrowth(trend(0), trend(1.2, { p: 0.2 }), gap(30), rule, 0.01), 'inconclusive');
  });
  it('head growing much faster than a growing base: still a leak; at less than twice the rate: not', () => {
    assert.equal(decideHeapGrowth(trend(1), trend(2.5), gap(30), rule, 0.01), 'regression');
    assert.equal(decideHeapGrowth(trend(1), trend(1.8), gap(30), rule, 0.01), 'inconclusive');
  });
  it('base leaking, head flat: a leak gone (improvement)', () => {
    assert.equal(decideHeapGrowth(trend(1.5), trend(0), gap(-30), rule, 0.01), 'improvement');
  });
  it('each side rising at its own rate while the gap between them does not widen: neither a leak nor a leak gone', () => {
    assert.equal(decideHeapGrowth(trend(0.4), trend(1.4), gap(2, 0.9), rule, 0.01), 'inconclusive');
    // head the slower one: no leak of head's, and no leak gone shown either
    assert.equal(decideHeapGrowth(trend(1.5), trend(0.5), gap(-6, 0.04), rule, 0.01), 'no-regression');
    assert.equal(decideHeapGrowth(trend(0.02), trend(1.2), null, rule, 0.01), 'inconclusive', 'no slice with both sides: no claim');
    assert.equal(decideHeapGrowth(trend(0.02), trend(1.2), gap(-30), rule, 0.01), 'inconclusive', 'the gap narrowing is no leak');
  });
  it('an A/A run whose two heaps both rose, head\'s own trend faster: the gap within start pairs says no leak', () => {
    const recorded = JSON.parse(readFileSync(join(FIXTURES, 'health', 'heap-both-rising.json'), 'utf8')) as {
      scenario: ScenarioResults;
      config: { alpha: number; limitMbPer10k: number };
    };
    const { scenario, config } = recorded;
    const base = heapTrend(scenario, 'base')!;
    const head = heapTrend(scenario, 'head')!;
    const headMb = head.bytesPerRequest / 100;
    const baseMb = base.bytesPerRequest / 100;
    // What each side's own trend says: head rising, over twice as fast as base and beyond the limit.
    assert.ok(head.s > 0 && head.p < config.alpha, `head rising (p ${head.p})`);
    assert.ok(headMb - baseMb > config.limitMbPer10k && headMb > 2 * baseMb, `${baseMb} → ${headMb} MB per 10k`);
    const found = heapGap(scenario)!;
    assert.equal(found.n, 48);
    assert.ok(found.p > 0.5, `the gap does not widen (p ${found.p})`);
    const rule = { limitMbPer10k: config.limitMbPer10k, gated: false };
    assert.equal(decideHeapGrowth(base, head, found, rule, config.alpha), 'inconclusive');
  });

  it('fits post-GC heap against requests served, per start', () => {
    const results = healthResults(18, { base: HEALTHY, head: { ...HEALTHY, heapBytesPerRequest: 120 } }, { noise: 0, pairsPerStart: 3 });
    const scenario = results.scenarios[0]!;
    const head = heapTrend(scenario, 'head')!;
    assert.ok(Math.abs(head.bytesPerRequest - 120) < 15, `slope ${head.bytesPerRequest}`);
    assert.equal(head.blocks.length, 6, 'one slope per start (18 pairs, 3 per start)');
    assert.ok(head.blocks.every((b) => b !== null && b > 60));
    assert.ok(head.p < 0.01 && head.s > 0);
    assert.equal(heapTrend({ ...scenario, pairs: scenario.pairs.slice(0, 5) }, 'head'), null, 'too few slices for a trend');
    const oneSliceEach = healthResults(12, { base: HEALTHY, head: HEALTHY }, { noise: 0, pairsPerStart: 1 });
    assert.equal(heapTrend(oneSliceEach.scenarios[0]!, 'head'), null, 'every start served one slice: no slope within a start');
    const verdicts = JSON.parse(JSON.stringify(buildVerdicts(oneSliceEach, assessResults(oneSliceEach))));
    assert.deepEqual(verdicts.metrics.filter((m: { metric: string }) => m.metric === 'heap_growth'), [], 'no heap_growth entry with a null estimate in verdicts.json');
    const widening = heapGap(scenario)!;
    assert.ok(widening.s > 0 && widening.p < 0.01, `head pulls away from base within the start pairs (p ${widening.p})`);
    assert.ok(Math.abs(widening.bytesPerRequest - 120) < 20, `gap slope ${widening.bytesPerRequest}`);
  });
});

describe('load-generator bound, on recorded slices', () => {
  const recording = (name: string) =>
    JSON.parse(readFileSync(join(FIXTURES, 'health', `${name}.json`), 'utf8')) as { scenario: ScenarioResults; description: string };

  it('fires for a service that is cheap to serve and expensive to read (generator loop 95% busy, service 22%)', () => {
    const { scenario } = recording('generator-bound');
    const check = checkGenerator(scenario)!;
    assert.deepEqual(check.bound, ['base', 'head']);
    for (const side of ['base', 'head'] as const) {
      assert.ok(check.sides[side].generatorBusy >= GENERATOR_SATURATED, `${side} generator busy ${check.sides[side].generatorBusy}`);
      assert.ok(check.sides[side].generatorCpu < GENERATOR_SATURATED, 'CPU alone would have missed it: another job had the other core');
      assert.ok(check.sides[side].serviceLoad < SERVICE_SPARE);
      assert.equal(check.sides[side].serviceLoadSource, 'event-loop');
    }
  });

  it('does not fire for a trivial server where neither end was saturated', () => {
    const check = checkGenerator(recording('trivial-server').scenario)!;
    assert.deepEqual(check.bound, []);
    assert.ok(check.sides.base.generatorBusy < GENERATOR_SATURATED);
  });

  it('does not fire for a CPU-bound service', () => {
    const { scenario } = recording('service-bound');
    const check = checkGenerator(scenario)!;
    assert.deepEqual(check.bound, []);
    assert.ok(check.sides.head.serviceLoad >= SERVICE_SPARE, `service loop ${check.sides.head.serviceLoad}`);
    assert.equal(scenario.pairs.filter((p) => generatorBoundSlice(p.base)).length, 0);
  });

  it('decides per slice, with the service CPU when the service sent no health data', () => {
    const { scenario } = recording('generator-bound');
    const slice = { ...scenario.pairs[0]!.base, generatorEventLoopUtilization: 0.97 };
    assert.equal(generatorBoundSlice(slice), true);
    assert.equal(generatorBoundSlice({ ...slice, health: { ...slice.health!, processes: slice.health!.processes.map((p) => ({ ...p, eventLoopUtilization: 0.95 })) } }), false, 'service saturated too');
    // without health: the service's CPU in cores (0.33 here) stands in for its loop
    assert.equal(generatorBoundSlice({ ...slice, health: null }), true);
    assert.equal(generatorBoundSlice({ ...slice, health: null, cpuSeconds: slice.durationMs / 1000 }), false);
    const { generatorCpuSeconds: _gone, ...older } = slice;
    assert.equal(generatorBoundSlice(older), false, 'results from before the generator was measured');
    assert.equal(checkGenerator({ ...scenario, pairs: scenario.pairs.map((p) => ({ ...p, base: older, head: older })) }), null);
  });

  it('short of saturation, a generator far busier than an idle service is the bottleneck too (a CI run: loop 84% busy at 64% of a core, service 15%)', () => {
    const { scenario } = recording('generator-bound');
    const base = scenario.pairs[0]!.base;
    const withLoads = (generator: number, service: number) => ({
      ...base,
      generatorCpuSeconds: (0.64 * base.durationMs) / 1000,
      generatorEventLoopUtilization: generator,
      health: { ...base.health!, processes: base.health!.processes.map((p) => ({ ...p, eventLoopUtilization: service })) },
    });
    assert.equal(generatorBoundSlice(withLoads(0.84, 0.15)), true);
    assert.equal(generatorBoundSlice(withLoads(GENERATOR_BUSY, GENERATOR_BUSY / GENERATOR_DOMINANCE)), true, 'at both thresholds');
    assert.equal(generatorBoundSlice(withLoads(0.84, 0.5)), false, 'the service busy more than half as much: the runner, not the generator, sets the pace');
    assert.equal(generatorBoundSlice(withLoads(0.7, 0.15)), false, 'a generator loop idle 30% of the slice is not near its limit');
    // every slice of the trivial server (both ends about half busy, sharing one core) stays unbound
    const trivial = recording('trivial-server').scenario;
    assert.equal(trivial.pairs.filter((p) => generatorBoundSlice(p.base) || generatorBoundSlice(p.head)).length, 0);
  });

  it('keeps only the throughput verdicts the measured side can support', () => {
    const throughput = (verdict: Verdict): MetricComparison =>
      ({ metric: 'throughput', scenario: 'GET /', verdict, gated: true }) as MetricComparison;
    const check = (bound: ('base' | 'head')[]) => [{ scenario: 'GET /', bound, sides: {} as never }];
    const kept = (verdict: Verdict, bound: ('base' | 'head')[]) => markGeneratorBound([throughput(verdict)], check(bound))[0]!;
    assert.equal(kept('unchanged', ['base']).verdict, 'inconclusive');
    assert.equal(kept('regression', ['base']).verdict, 'regression', 'head service-bound and slower: the drop is real');
    assert.equal(kept('regression', ['head']).verdict, 'inconclusive');
    assert.equal(kept('improvement', ['head']).verdict, 'improvement');
    assert.equal(kept('improvement', ['base', 'head']).verdict, 'inconclusive');
    // "no regression" rests on base's rate: a bound base could have been faster, and head worse
    const open = (bound: ('base' | 'head')[]) => markGeneratorBound([throughput('no-regression')], check(bound))[0]!.verdict;
    assert.equal(open(['head']), 'no-regression');
    assert.equal(open(['base']), 'inconclusive');
    assert.deepEqual(kept('unchanged', ['head']).generatorBound, ['head']);
    assert.equal(kept('unchanged', []).generatorBound, undefined);
    const latency = { ...throughput('unchanged'), metric: 'latency_p99' } as MetricComparison;
    assert.equal(markGeneratorBound([latency], check(['base']))[0]!.verdict, 'unchanged', 'only throughput');
  });
});

describe('assessResults with health', () => {
  it('a blocked loop in head: gated event-loop delay regression, a failing build, a hint', () => {
    const results = healthResults(20, { base: HEALTHY, head: { ...HEALTHY, delayP99Us: 48_000, delayMaxUs: 480_000 } });
    const analysis = assessResults(results);
    const p99 = analysis.health!.comparisons.find((c) => c.metric === 'event_loop_delay_p99')!;
    assert.equal(p99.verdict, 'regression');
    assert.equal(p99.gated, true);
    assert.equal(p99.min, 10_000);
    assert.ok(p99.absoluteChange > 40_000);
    assert.equal(analysis.decision, 'fail');
    assert.deepEqual(analysis.health!.failing, [p99]);
    assert.match(describeFailing(analysis).join('\n'), /event_loop_delay_p99 of GET \/hello \d[\d.]*% \(limit 50% and 10 ms\)/);
    assert.deepEqual(
      analysis.health!.hints.map((h) => h.kind),
      ['blocked-loop'],
    );
  });

  it('a 0.1 ms → 0.2 ms event-loop delay is unchanged: below the 10 ms floor', () => {
    const results = healthResults(20, { base: { ...HEALTHY, delayP99Us: 100 }, head: { ...HEALTHY, delayP99Us: 200 } });
    const p99 = assessResults(results).health!.comparisons.find((c) => c.metric === 'event_loop_delay_p99')!;
    assert.ok(p99.change > 0.8, 'the relative change is large');
    assert.equal(p99.verdict, 'unchanged');
  });

  it('the gated health metric joins the Holm family', () => {
    const underpowered = (results: ReturnType<typeof healthResults>) =>
      assessResults(results).warnings.find((w) => w.code === 'underpowered')?.message;
    const without = resultsFromPairs(Array.from({ length: 6 }, (_, i) => [1000 + i, 1000 - i]));
    assert.match(underpowered(without)!, /With 6 start pairs and 2 gated metrics .* Use at least 8 starts per side/);
    assert.match(underpowered(healthResults(12, { base: HEALTHY, head: HEALTHY }))!, /With 6 start pairs and 3 gated metrics .* Use at least 9 starts per side/);
    const analysis = assessResults(healthResults(12, { base: HEALTHY, head: { ...HEALTHY, delayP99Us: 50_000 } }));
    const p99 = analysis.health!.comparisons.find((c) => c.metric === 'event_loop_delay_p99')!;
    assert.ok(p99.pAdjusted > p99.p, 'Holm-adjusted with the gated HTTP metrics');
  });

  it('a leak in head: a "possible leak" regression, information only by default, gated on request', () => {
    const specs = { base: HEALTHY, head: { ...HEALTHY, heapBytesPerRequest: 120 } };
    const analysis = assessResults(healthResults(20, specs));
    const growth = analysis.health!.heap[0]!;
    assert.equal(growth.verdict, 'regression');
    assert.equal(growth.gated, false);
    assert.equal(analysis.decision, 'pass');
    assert.ok(analysis.regressions >= 1);
    assert.ok(analysis.health!.hints.some((h) => h.kind === 'possible-leak'));
    const gated = assessResults(healthResults(20, specs, { document: { gate: { heap_growth: { gated: true } } } }));
    assert.equal(gated.decision, 'fail');
    assert.match(describeFailing(gated).join('\n'), /heap_growth of GET \/hello \+1\.\d+ MB per 10k requests: possible leak/);
  });

  it('A/A: every health metric unchanged, no hint', () => {
    const analysis = assessResults(healthResults(30, { base: HEALTHY, head: HEALTHY }, { noise: 0.03 }));
    for (const c of analysis.health!.comparisons) assert.equal(c.verdict, 'unchanged', c.metric);
    assert.equal(analysis.health!.heap[0]!.verdict, 'unchanged');
    assert.deepEqual(analysis.health!.hints, []);
  });

  it('a generator-bound run: throughput inconclusive, with its own warning instead of "more pairs"', () => {
    const bound = { ...HEALTHY, utilization: 0.3, generatorCpu: 0.97, generatorBusy: 0.99 };
    const analysis = assessResults(healthResults(20, { base: bound, head: bound }));
    const throughput = analysis.comparisons.find((c) => c.metric === 'throughput')!;
    assert.equal(throughput.verdict, 'inconclusive');
    assert.deepEqual(throughput.generatorBound, ['base', 'head']);
    assert.deepEqual(
      analysis.warnings.filter((w) => w.code === 'load-generator-bound' || (w.code === 'inconclusive' && /throughput/.test(w.message))).map((w) => w.code),
      ['load-generator-bound'],
    );
    assert.ok(analysis.health!.hints.some((h) => h.kind === 'generator-bound'));
  });

  it('results from before health existed: no health analysis, the same verdicts as before', () => {
    const results = resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000 + i, 1010 + i]));
    const analysis = assessResults(results);
    assert.equal(analysis.health, undefined);
    assert.equal(analysis.comparisons.some((c) => c.generatorBound !== undefined), false);
    // and a config without the health rules (an older results.json) still reads
    const older = withoutHealthRules(healthResults(12, { base: HEALTHY, head: HEALTHY }));
    assert.equal(assessResults(older).health!.comparisons.find((c) => c.metric === 'event_loop_delay_p99')!.gated, true);
  });

  it('a service that sent no health data is named in a warning', () => {
    const results = resultsFromPairs(Array.from({ length: 12 }, () => [1000, 1000]));
    for (const pair of results.scenarios[0]!.pairs) {
      pair.base.health = null;
      pair.head.health = null;
      pair.base.generatorCpuSeconds = 0.4;
      pair.head.generatorCpuSeconds = 0.4;
    }
    const analysis = assessResults(results);
    assert.deepEqual(
      analysis.warnings.filter((w) => w.code === 'no-health').map((w) => w.message.slice(0, 20)),
      ['The base service sen', 'The head service sen'],
    );
  });
});
