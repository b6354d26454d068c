/**
 * Service health from the slices (pure): what each slice's processes measured inside themselves
 * (src/preload/health.cjs), aggregated per side; the health metrics' paired series for
 * assessResults; their verdicts with an absolute floor; the memory-growth rule; whether the
 * load generator, not the service, set the pace; and the findings the report words as hints.
 * docs/health.md explains every rule.
 */
import { ruleFor } from '../config/scenario-rules.js';
import type { HealthMetricId, HeapGrowthRule, MetricRule } from '../config/types.js';
import type {
  GeneratorCheck,
  GeneratorLoad,
  HealthAnalysis,
  HealthComparison,
  HealthHint,
  HeapGrowthComparison,
  HeapGap,
  HeapTrend,
  MetricComparison,
  PairedComparison,
  Results,
  ProcessCount,
  ScenarioResults,
  Side,
  Slice,
  SliceHealth,
  Verdict,
} from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { startOf, summarizeStarts } from './starts.js';
import { hodgesLehmannInterval } from '../stats/hodges-lehmann.js';
import { type Series, seasonalKendall, theilSenSlope } from '../stats/trend.js';

const SIDES: readonly Side[] = ['base', 'head'];
const CONFIDENCE = 0.95;

/** A slice's health summed or maxed over the service's processes. */
export interface HealthValues {
  processes: number;
  /** The worst process's event-loop delay (each request waits on the loop of the process that serves it), µs. */
  delayP50Us: number;
  delayP99Us: number;
  delayMaxUs: number;
  /** The busiest process's event-loop utilisation, 0–1. */
  utilization: number;
  /** GC pauses of all processes, ms, and how many. */
  gcMs: number;
  gcCount: number;
  /** Post-GC heap of all processes (a process without a GC in the slice counts with its heap at the end), bytes; null when a process did not report. */
  heapAfterGcBytes: number | null;
  heapUsedBytes: number;
  rssBytes: number;
  activeHandles: number;
  /** Work counters of all processes (docs/health.md, "Work counters"); NaN when a process did not report or could not count one. */
  allocatedBytes: number;
  syscalls: number;
  socketBytesRead: number;
  socketBytesWritten: number;
  /** HTTP responses the processes finished in their windows; NaN when a process did not count them. */
  responses: number;
}

const NONE = Number.NaN;

/** Aggregates one slice's reports; null when the slice has none. */
export function aggregateHealth(health: SliceHealth | null | undefined): HealthValues | null {
  if (!health || health.processes.length === 0) return null;
  const ps = health.processes;
  const delays = ps.flatMap((p) => (p.eventLoopDelayUs ? [p.eventLoopDelayUs] : []));
  const maxOf = (values: number[]) => (values.length === 0 ? NONE : Math.max(...values));
  const sum = (f: (p: (typeof ps)[number]) => number) => ps.reduce((a, p) => a + f(p), 0);
  const gc = ps.flatMap((p) => Object.values(p.gc));
  // A sum that misses a process would read as less work: unknown instead.
  const counter = (f: (p: (typeof ps)[number]) => number | null) =>
    health.missing > 0 || ps.some((p) => f(p) === null) ? NONE : sum((p) => f(p) ?? 0);
  return {
    processes: ps.length,
    delayP50Us: maxOf(delays.map((d) => d.p50)),
    delayP99Us: maxOf(delays.map((d) => d.p99)),
    delayMaxUs: maxOf(delays.map((d) => d.max)),
    utilization: maxOf(ps.map((p) => p.eventLoopUtilization)),
    gcMs: gc.reduce((a, k) => a + k.ms, 0),
    gcCount: gc.reduce((a, k) => a + k.count, 0),
    heapAfterGcBytes: health.missing > 0 ? null : sum((p) => p.heapAfterGcBytes ?? p.heapUsedBytes),
    heapUsedBytes: sum((p) => p.heapUsedBytes),
    rssBytes: sum((p) => p.rssBytes),
    activeHandles: sum((p) => p.activeHandles),
    allocatedBytes: counter((p) => p.allocatedBytes),
    syscalls: counter((p) => p.syscalls),
    socketBytesRead: counter((p) => p.socketBytesRead),
    socketBytesWritten: counter((p) => p.socketBytesWritten),
    responses: counter((p) => p.responses),
  };
}

export interface HealthMetricDefinition {
  id: HealthMetricId;
  /** The slice's value in the metric's unit (µs; a 0–1 share; ms or collections per 1,000 requests; bytes or calls per request); NaN when unknown. */
  value(slice: Slice, health: HealthValues): number;
}

/** A slice's total per response the load generator received in it; NaN without responses. */
function perRequest(slice: Slice, total: number): number {
  return slice.requests > 0 ? total / slice.requests : NONE;
}

/**
 * A window's work counts per response the service finished in that same window (its own count,
 * so work and requests cover one span); per the load generator's responses where the service
 * counted none (a server other than Node's http). Unknown where the processes counted no work
 * at all (results from before the counters), the GC count included, so all counters come and go together.
 */
function perResponse(slice: Slice, health: HealthValues, total: number): number {
  if (Number.isNaN(health.responses)) return NONE;
  return health.responses > 0 ? total / health.responses : perRequest(slice, total);
}

/** Every health metric compared pair by pair (higher is worse for all of them). */
export const HEALTH_METRIC_DEFINITIONS: readonly HealthMetricDefinition[] = [
  { id: 'event_loop_delay_p99', value: (_s, h) => h.delayP99Us },
  { id: 'event_loop_delay_max', value: (_s, h) => h.delayMaxUs },
  { id: 'event_loop_utilization', value: (_s, h) => h.utilization },
  { id: 'gc_per_request', value: (s, h) => perRequest(s, 1000 * h.gcMs) },
  { id: 'allocated_per_request', value: (s, h) => perResponse(s, h, h.allocatedBytes) },
  { id: 'gc_count_per_request', value: (s, h) => perResponse(s, h, 1000 * h.gcCount) },
  { id: 'syscalls_per_request', value: (s, h) => perResponse(s, h, h.syscalls) },
  { id: 'socket_written_per_request', value: (s, h) => perResponse(s, h, h.socketBytesWritten) },
  { id: 'socket_read_per_request', value: (s, h) => perResponse(s, h, h.socketBytesRead) },
];

export function healthRule(results: Results, scenario: string, metric: HealthMetricId): MetricRule {
  return ruleFor(results.config, scenario, metric);
}

export function heapGrowthRule(results: Results): HeapGrowthRule {
  return results.config.gate.heap_growth;
}

/** One health metric's paired values in one scenario (same index = same pair), for assessResults. */
export interface HealthSeries {
  scenario: string;
  metric: HealthMetricId;
  rule: MetricRule;
  base: number[];
  head: number[];
  /** The start pair of each pair (assess/starts.ts). */
  starts: number[];
}

function sliceValue(slice: Slice, definition: HealthMetricDefinition): number {
  const health = aggregateHealth(slice.health);
  return health === null ? NONE : definition.value(slice, health);
}

/** The paired series of every health metric and scenario that has health data. */
export function healthSeries(results: Results): HealthSeries[] {
  return results.scenarios.flatMap((scenario) => {
    if (!scenario.pairs.some((p) => p.base.health && p.head.health)) return [];
    return HEALTH_METRIC_DEFINITIONS.map((definition) => ({
      scenario: scenario.name,
      metric: definition.id,
      rule: healthRule(results, scenario.name, definition.id),
      base: scenario.pairs.map((p) => sliceValue(p.base, definition)),
      head: scenario.pairs.map((p) => sliceValue(p.head, definition)),
      starts: scenario.pairs.map(startOf),
    }));
  });
}

/** A health comparison after the paired test and Holm, with its relative verdict (decideVerdict). */
export type RelativeHealthComparison = PairedComparison & { metric: HealthMetricId; scenario: string };

/**
 * The verdict with the absolute floor: a regression (improvement) must also be worse (better) by
 * more than `min` in the estimated per-pair difference; a change counts as unchanged when its
 * relative interval is inside ±limit or its absolute interval inside ±min. So a 0.1 → 0.2 ms
 * event-loop delay (+100%, but 0.1 ms) is unchanged, never a regression. A change whose worsening
 * is ruled out by either limit, but not its improvement by both, is "no regression".
 */
export function decideHealthVerdict(
  relative: Verdict,
  c: Pick<HealthComparison, 'min' | 'absoluteChange' | 'absoluteLow' | 'absoluteHigh'>,
): Verdict {
  if (c.min <= 0) return relative;
  if (relative === 'regression' && c.absoluteChange > c.min) return 'regression';
  if (relative === 'improvement' && c.absoluteChange < -c.min) return 'improvement';
  if (relative === 'unchanged' || (c.absoluteLow > -c.min && c.absoluteHigh < c.min)) return 'unchanged';
  // A regression must pass both limits, so ruling out either one's worsening rules it out.
  if (relative === 'no-regression' || c.absoluteHigh < c.min) return 'no-regression';
  return 'inconclusive';
}

/**
 * Hodges–Lehmann estimate and 95% interval of the differences head − base, over start pairs
 * (each start pair's Hodges–Lehmann difference, as the relative test counts them; assess/starts.ts);
 * ±∞ when the interval cannot reach 95%.
 */
function absoluteShift(series: HealthSeries | undefined): { estimate: number; lower: number; upper: number } {
  const diffs = series ? summarizeStarts(series.base.map((b, i) => series.head[i]! - b), series.starts).map((s) => s.value) : [];
  if (diffs.length === 0) return { estimate: NONE, lower: Number.NEGATIVE_INFINITY, upper: Number.POSITIVE_INFINITY };
  const interval = hodgesLehmannInterval(diffs, CONFIDENCE);
  const reached = interval.confidence >= CONFIDENCE - 1e-9;
  return {
    estimate: interval.estimate,
    lower: reached ? interval.lower : Number.NEGATIVE_INFINITY,
    upper: reached ? interval.upper : Number.POSITIVE_INFINITY,
  };
}

/* ---------- memory growth ---------- */

/** Fewest slices per side for the memory-growth rule (a trend needs a few points per start). */
export const MIN_HEAP_SLICES = 6;
/** Slices per start below which that start has no slope of its own. */
const MIN_BLOCK_SLICES = 2;
/** Share of the starts with a slope whose own slope must rise too: a leak shows in most process lifetimes, not in one. */
const RISING_SHARE = 2 / 3;

/** Bytes per request → MB (10^6 bytes) per 10,000 requests. */
export function mbPer10k(bytesPerRequest: number): number {
  return (bytesPerRequest * 1e4) / 1e6;
}

/**
 * One side's post-GC heap against the requests its service had served, per start (one process
 * lifetime: a heap trend only means something within one); null without enough data.
 */
export function heapTrend(scenario: ScenarioResults, side: Side): HeapTrend | null {
  const byBlock = new Map<number, { x: number[]; y: number[] }>();
  let last: HealthValues | null = null;
  let n = 0;
  for (const pair of scenario.pairs) {
    const slice = pair[side];
    const health = aggregateHealth(slice.health);
    if (health === null || health.heapAfterGcBytes === null) continue;
    const start = startOf(pair);
    const block = byBlock.get(start) ?? { x: [], y: [] };
    block.x.push(slice.health!.requestsSinceStart);
    block.y.push(health.heapAfterGcBytes);
    byBlock.set(start, block);
    last = health;
    n++;
  }
  if (last === null || n < MIN_HEAP_SLICES) return null;
  const blocks: Series[] = [...byBlock.entries()].sort((a, b) => a[0] - b[0]).map(([, series]) => series);
  // The slope is fitted within each start: where every start served one slice there is none.
  const bytesPerRequest = theilSenSlope(blocks);
  if (!Number.isFinite(bytesPerRequest)) return null;
  const kendall = seasonalKendall(blocks);
  return {
    n,
    bytesPerRequest,
    blocks: blocks.map((series) => (series.x.length >= MIN_BLOCK_SLICES ? theilSenSlope([series]) : null)),
    s: kendall.s,
    p: kendall.p,
    lastHeapBytes: last.heapAfterGcBytes!,
    lastRssBytes: last.rssBytes,
    lastActiveHandles: last.activeHandles,
  };
}

/**
 * The gap between head's heap and base's, per start pair: both sides of a slice were measured
 * over the same window, so whatever the machine and the run's shape add to both (old garbage
 * not yet collected, caches warming) cancels, and what is left is head pulling away from base.
 * Requests served are the two sides' mean: the sides serve about as many per slice, and the
 * trend test reads only their order. Null when no slice has both sides' heap.
 */
export function heapGap(scenario: ScenarioResults): HeapGap | null {
  const byStart = new Map<number, { x: number[]; y: number[] }>();
  let n = 0;
  for (const pair of scenario.pairs) {
    const base = aggregateHealth(pair.base.health);
    const head = aggregateHealth(pair.head.health);
    if (base?.heapAfterGcBytes == null || head?.heapAfterGcBytes == null) continue;
    const series = byStart.get(startOf(pair)) ?? { x: [], y: [] };
    series.x.push((pair.base.health!.requestsSinceStart + pair.head.health!.requestsSinceStart) / 2);
    series.y.push(head.heapAfterGcBytes - base.heapAfterGcBytes);
    byStart.set(startOf(pair), series);
    n++;
  }
  if (n === 0) return null;
  const starts = [...byStart.values()];
  const kendall = seasonalKendall(starts);
  return { n, bytesPerRequest: theilSenSlope(starts), s: kendall.s, p: kendall.p };
}

/**
 * Rising: a significant upward trend (the seasonal Kendall test over starts), and upward in at
 * least two thirds of the starts that have a slope of their own.
 */
function rising(trend: HeapTrend, alpha: number): boolean {
  const slopes = trend.blocks.filter((b): b is number => b !== null);
  return trend.s > 0 && trend.p < alpha && slopes.length > 0 && slopes.filter((b) => b > 0).length >= RISING_SHARE * slopes.length;
}

/**
 * The memory-growth rule: "possible leak" (a regression) when head's heap rises significantly
 * and in most starts, faster than base's by more than the limit and at least twice as fast,
 * and the gap between the sides widens significantly within the start pairs (each side's own
 * trend also carries what both share: two growing sides whose rates differ by noise are not a
 * leak); the mirror image is an improvement (a leak gone); unchanged when the two growths differ
 * by less than the limit; no regression when head grows slower than base by more than it, short
 * of an improvement; otherwise inconclusive.
 */
export function decideHeapGrowth(base: HeapTrend, head: HeapTrend, gap: HeapGap | null, rule: HeapGrowthRule, alpha: number): Verdict {
  const headMb = mbPer10k(head.bytesPerRequest);
  const baseMb = mbPer10k(base.bytesPerRequest);
  const change = headMb - baseMb;
  const widening = (sign: 1 | -1) => gap !== null && Math.sign(gap.s) === sign && gap.p < alpha;
  if (rising(head, alpha) && widening(1) && change > rule.limitMbPer10k && headMb > 2 * Math.max(baseMb, 0)) return 'regression';
  if (rising(base, alpha) && widening(-1) && -change > rule.limitMbPer10k && baseMb > 2 * Math.max(headMb, 0)) return 'improvement';
  if (Math.abs(change) <= rule.limitMbPer10k) return 'unchanged';
  // Head grows slower than base by more than the limit, without the evidence of a leak gone.
  if (change < -rule.limitMbPer10k) return 'no-regression';
  return 'inconclusive';
}

function compareHeap(results: Results, scenario: ScenarioResults): HeapGrowthComparison | null {
  const base = heapTrend(scenario, 'base');
  const head = heapTrend(scenario, 'head');
  if (base === null || head === null) return null;
  const rule = heapGrowthRule(results);
  const gap = heapGap(scenario);
  return {
    scenario: scenario.name,
    gated: rule.gated,
    limit: rule.limitMbPer10k,
    base,
    head,
    baseMbPer10k: mbPer10k(base.bytesPerRequest),
    headMbPer10k: mbPer10k(head.bytesPerRequest),
    change: mbPer10k(head.bytesPerRequest) - mbPer10k(base.bytesPerRequest),
    gap,
    verdict: decideHeapGrowth(base, head, gap, rule, results.config.alpha),
  };
}

/* ---------- the load generator ---------- */

/**
 * The generator is at its limit from here: autocannon runs on one thread of perfgate's process,
 * so it is saturated when it uses this share of one core, or when its event loop is busy this
 * share of the slice. The second catches a generator starved of CPU on an oversubscribed runner:
 * it then shows 60% of a core, yet never waits for the service (measured on a 2-vCPU runner with
 * another job on it: 65% of a core, loop 95% busy, service loop 22% busy).
 */
export const GENERATOR_SATURATED = 0.9;
/** The service has spare capacity below this: its busiest event loop idles a fifth of the time or more (or, without health data, it uses less than this many cores). */
export const SERVICE_SPARE = 0.8;
/**
 * Short of saturation, the generator still sets the pace when its loop is busy at least this
 * share of the slice and at least GENERATOR_DOMINANCE times the service's busiest loop: the
 * requests then cost the generator far more than the service, and it is the generator that the
 * other processes on a busy runner slow down. Seen in CI on the same service as above: generator
 * loop 84% busy at 64% of a core, service loop 15%. On the 43,168 recorded slices of the six
 * calibration services (docs/calibration/*.jsonl; bench/generator-scan.mjs) it fired on none that
 * the saturation rule left alone: where the service had spare capacity and the generator's loop
 * was 75–90% busy, the service's loop was never below 0.65 times the generator's.
 */
export const GENERATOR_BUSY = 0.75;
export const GENERATOR_DOMINANCE = 2;

/**
 * A fixed-rate slice measured the generator when its requests left late: each latency counts
 * from the intended send time, so a generator that fell behind its schedule adds its own delay
 * to every latency it reports. The slice is bound when the generator's p99 delay is at least this
 * many µs and at least half the slice's p99 latency (the tail is then mostly the generator's).
 * A first rule, not calibrated yet: on this 2-vCPU machine with other jobs running, an idle
 * trivial service at 200 req/s showed 15–110 ms of generator delay at p99 in its first windows.
 */
export const GENERATOR_LAG_US = 5000;
export const GENERATOR_LAG_SHARE = 0.5;

interface SliceLoad {
  /** Share of one core the generator used, and share of the slice its loop was busy (NaN when not recorded). */
  generatorCpu: number;
  generatorBusy: number;
  /** The service's busiest loop's utilisation, or its CPU in cores. */
  service: number;
  source: GeneratorLoad['serviceLoadSource'];
}

/** The load of one slice on both ends; null in results from before the generator was measured. */
function sliceLoad(slice: Slice): SliceLoad | null {
  if (slice.generatorCpuSeconds === undefined || !(slice.durationMs > 0)) return null;
  const seconds = slice.durationMs / 1000;
  const generator = { generatorCpu: slice.generatorCpuSeconds / seconds, generatorBusy: slice.generatorEventLoopUtilization ?? NONE };
  const health = aggregateHealth(slice.health);
  return health !== null && Number.isFinite(health.utilization)
    ? { ...generator, service: health.utilization, source: 'event-loop' }
    : { ...generator, service: slice.cpuSeconds / seconds, source: 'cpu' };
}

/** Whether one slice measured the generator: it was saturated (CPU or loop), or far busier than the service, while the service had spare capacity. */
export function generatorBoundSlice(slice: Slice): boolean {
  if (slice.offered) return slice.offered.lagUsP99 >= GENERATOR_LAG_US && slice.offered.lagUsP99 >= GENERATOR_LAG_SHARE * slice.latencyUs.p99;
  const load = sliceLoad(slice);
  if (load === null) return false;
  const saturated = load.generatorCpu >= GENERATOR_SATURATED || load.generatorBusy >= GENERATOR_SATURATED;
  const dominant = load.generatorBusy >= GENERATOR_BUSY && load.generatorBusy >= GENERATOR_DOMINANCE * load.service;
  return (saturated || dominant) && load.service < SERVICE_SPARE;
}

/** Per side: how many slices were generator-bound; a side is bound when at least half of its slices were. Null for results without generator data. */
export function checkGenerator(scenario: ScenarioResults): GeneratorCheck | null {
  const sides = {} as Record<Side, GeneratorLoad>;
  for (const side of SIDES) {
    const slices = scenario.pairs.map((p) => p[side]);
    const loads = slices.map(sliceLoad).filter((l) => l !== null);
    if (loads.length === 0) return null;
    sides[side] = {
      slices: loads.length,
      boundSlices: slices.filter(generatorBoundSlice).length,
      generatorCpu: median(loads.map((l) => l.generatorCpu)),
      generatorBusy: median(loads.map((l) => l.generatorBusy)),
      serviceLoad: median(loads.map((l) => l.service)),
      serviceLoadSource: loads.every((l) => l.source === 'event-loop') ? 'event-loop' : 'cpu',
    };
  }
  return {
    scenario: scenario.name,
    sides,
    bound: SIDES.filter((side) => 2 * sides[side].boundSlices >= sides[side].slices),
  };
}

/**
 * A throughput verdict that rests on a generator-bound side becomes inconclusive: there the
 * service could have served more than was measured. A regression needs head to be service-bound
 * (base's true rate is at least what was measured, so the drop is real); an improvement needs
 * base service-bound, and so does "no regression" (a bound base could have been faster, so head
 * worse); "unchanged" needs both. At a fixed rate the generator's delay is in every
 * latency (they count from the intended send time), so there the latency verdicts are held to
 * the same rule: a late generator can only have added to the bound side's latencies.
 */
export function markGeneratorBound(comparisons: MetricComparison[], checks: GeneratorCheck[], fixedRate: ReadonlySet<string> = new Set()): MetricComparison[] {
  return comparisons.map((c) => {
    const bound = checks.find((g) => g.scenario === c.scenario)?.bound ?? [];
    const affected = c.metric === 'throughput' || (fixedRate.has(c.scenario) && c.metric.startsWith('latency_'));
    if (!affected || bound.length === 0) return c;
    const holds =
      (c.verdict === 'regression' && !bound.includes('head')) ||
      (c.verdict === 'improvement' && !bound.includes('base')) ||
      (c.verdict === 'no-regression' && !bound.includes('base')) ||
      c.verdict === 'inconclusive';
    return { ...c, generatorBound: bound, verdict: holds ? c.verdict : 'inconclusive' };
  });
}

/* ---------- the analysis ---------- */

/** Below this event-loop utilisation the loop was mostly idle (waiting, not computing). */
const IDLE_LOOP = 0.5;

function findHints(
  results: Results,
  comparisons: HealthComparison[],
  heap: HeapGrowthComparison[],
  generator: GeneratorCheck[],
  metrics: MetricComparison[],
): HealthHint[] {
  const hints: HealthHint[] = [];
  const profiled = (scenario: string) => (results.profiles ?? []).some((p) => p.scenario === scenario);
  for (const scenario of results.scenarios.map((s) => s.name)) {
    const health = (metric: HealthMetricId) => comparisons.find((c) => c.scenario === scenario && c.metric === metric);
    const metric = (id: MetricComparison['metric']) => metrics.find((c) => c.scenario === scenario && c.metric === id);
    const p99 = health('event_loop_delay_p99');
    const max = health('event_loop_delay_max');
    const blocked = [p99, max].some((c) => c?.verdict === 'regression');
    if (blocked) {
      const shown = max ?? p99!;
      hints.push({ kind: 'blocked-loop', scenario, side: 'head', baseMaxUs: shown.baseMedian, headMaxUs: shown.headMedian, profiled: profiled(scenario) });
    }
    const growth = heap.find((h) => h.scenario === scenario);
    if (growth && (growth.verdict === 'regression' || growth.verdict === 'improvement')) {
      const rates = { scenario, baseMbPer10k: mbPer10k(growth.base.bytesPerRequest), headMbPer10k: mbPer10k(growth.head.bytesPerRequest) };
      hints.push(
        growth.verdict === 'regression'
          ? { kind: 'possible-leak', ...rates, headBlocksMbPer10k: growth.head.blocks.filter((b) => b !== null).map(mbPer10k) }
          : { kind: 'leak-gone', ...rates },
      );
    }
    const gc = health('gc_per_request');
    if (gc?.verdict === 'regression') hints.push({ kind: 'gc-pressure', scenario, baseMsPer1k: gc.baseMedian, headMsPer1k: gc.headMedian });
    const cpu = metric('cpu_per_request');
    if (cpu?.verdict === 'regression') {
      hints.push({ kind: 'cpu-per-request', scenario, baseUs: cpu.baseMedian, headUs: cpu.headMedian, change: cpu.change, profiled: profiled(scenario) });
    }
    const latency = metric('latency_p99');
    const utilization = health('event_loop_utilization');
    if (latency?.verdict === 'regression' && !blocked && utilization && utilization.headMedian < IDLE_LOOP) {
      hints.push({ kind: 'waiting-outside', scenario, change: latency.change, headUtilization: utilization.headMedian });
    }
    const check = generator.find((g) => g.scenario === scenario);
    if (check && check.bound.length > 0) {
      const loads = check.bound.map((side) => check.sides[side]);
      hints.push({
        kind: 'generator-bound',
        scenario,
        sides: check.bound,
        generatorBusy: Math.max(...loads.map((l) => l.generatorBusy)),
        generatorCpu: Math.max(...loads.map((l) => l.generatorCpu)),
        serviceLoad: Math.max(...loads.map((l) => l.serviceLoad)),
        serviceLoadSource: loads.every((l) => l.serviceLoadSource === 'event-loop') ? 'event-loop' : 'cpu',
      });
    }
  }
  return hints;
}

/** The fewest and the most processes that reported in one side's slices of a scenario; null when none did. */
function processRange(scenario: ScenarioResults, side: Side): ProcessCount['base'] {
  const counts = scenario.pairs.map((p) => aggregateHealth(p[side].health)?.processes ?? 0).filter((n) => n > 0);
  return counts.length === 0 ? null : { min: Math.min(...counts), max: Math.max(...counts) };
}

function countProcesses(scenario: ScenarioResults): ProcessCount {
  return { scenario: scenario.name, base: processRange(scenario, 'base'), head: processRange(scenario, 'head') };
}

/**
 * The health analysis from the compared health metrics (after Holm, with their relative
 * verdicts) and the HTTP metrics' comparisons (for hints); undefined when the results have no
 * health or load-generator data at all (results from before they were measured).
 */
export function analyzeHealth(
  results: Results,
  relative: RelativeHealthComparison[],
  metrics: MetricComparison[],
): HealthAnalysis | undefined {
  const series = healthSeries(results);
  const comparisons: HealthComparison[] = relative.map((c) => {
    const rule = healthRule(results, c.scenario, c.metric);
    const shift = absoluteShift(series.find((s) => s.scenario === c.scenario && s.metric === c.metric));
    const withFloor = { min: rule.min ?? 0, absoluteChange: shift.estimate, absoluteLow: shift.lower, absoluteHigh: shift.upper };
    return { ...c, ...withFloor, verdict: decideHealthVerdict(c.verdict, withFloor) };
  });
  const withPairs = results.scenarios.filter((s) => s.pairs.length > 0);
  const heap = withPairs.map((s) => compareHeap(results, s)).filter((h) => h !== null);
  const generator = withPairs.map(checkGenerator).filter((g) => g !== null);
  if (comparisons.length === 0 && heap.length === 0 && generator.length === 0) return undefined;
  return {
    comparisons,
    heap,
    generator,
    hints: findHints(results, comparisons, heap, generator, metrics),
    processes: withPairs.map(countProcesses).filter((count) => count.base !== null || count.head !== null),
    failing: [...comparisons, ...heap].filter((c) => c.gated && c.verdict === 'regression'),
  };
}
