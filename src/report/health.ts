/**
 * The "Service health" section of the reports: per scenario, the health metrics' rows (event-loop
 * delay, utilisation, GC, heap growth, memory and handles at the end, the load generator's CPU)
 * and the hints, in words a developer acts on, every number taken from the analysis. Shared by
 * the markdown and terminal renderers, which choose only how it looks; pure.
 */
import { HEALTH_METRICS, type HealthMetricId } from '../config/types.js';
import { scenarioAllocationCulprit, scenarioLeakCulprit } from '../assess/read.js';
import type { Assessment } from '../assess/types.js';
import type { Analysis, HealthAnalysis, HealthComparison, HealthHint, HeapGrowthComparison, Results, Side } from '../results/types.js';
import { formatChange, formatCount, formatDurationUs, formatInterval, formatPercent, MINUS } from '../stats/format.js';
import { betterSideOpen, HEAP_OPEN, type HealthRow, healthVerdictCell, verdictTone } from './rows.js';
import { startupRows } from './startup.js';
import { COUNTER_NAMES, counterRows, formatCounterValue, isCounter } from './counters.js';

const HEALTH_METRIC_NAMES: Record<HealthMetricId, string> = {
  event_loop_delay_p99: 'event-loop delay p99',
  event_loop_delay_max: 'event-loop delay max',
  event_loop_utilization: 'event-loop utilisation',
  gc_per_request: 'GC / 1k requests',
  ...COUNTER_NAMES,
};

/** The name readers see: event-loop delay p99, GC / 1k requests. */
export function formatHealthMetricName(metric: HealthMetricId): string {
  return HEALTH_METRIC_NAMES[metric] ?? metric;
}

/** A health metric's value in its own unit: delays in µs/ms, utilisation in %, GC time per 1,000 requests in ms. */
function formatHealthValue(metric: HealthMetricId, value: number): string {
  if (isCounter(metric)) return formatCounterValue(metric, value);
  if (metric === 'event_loop_utilization') return formatPercent(value);
  if (metric === 'gc_per_request') return formatDurationUs(value * 1000);
  return formatDurationUs(value);
}

/** Bytes as a number of MB (10^6 bytes), three significant digits, for "heap / RSS" cells: 8.33, 61, 0.5. */
function megabytes(bytes: number): string {
  return Number.isFinite(bytes) ? String(Number((bytes / 1e6).toPrecision(3))) : 'n/a';
}

/** A growth in MB per 10,000 requests, signed, two significant digits: +1.2 MB, −0.033 MB. */
export function formatGrowth(mb: number): string {
  if (!Number.isFinite(mb)) return 'n/a';
  const digits = String(Number(Math.abs(mb).toPrecision(2)));
  if (Number(digits) === 0) return '0 MB';
  return `${mb < 0 ? MINUS : '+'}${digits} MB`;
}

/** "the event-loop delay p99 limit 50% and 10 ms", "the heap growth limit 0.5 MB per 10k requests": for the headline. */
export function describeHealthLimit(c: HealthComparison | HeapGrowthComparison): string {
  return `${'metric' in c ? formatHealthMetricName(c.metric) : 'heap growth'} ${describeHealthLimitValue(c)}`;
}

/** "limit 50% and 10 ms", "limit 0.5 MB per 10k requests". */
function describeHealthLimitValue(c: HealthComparison | HeapGrowthComparison): string {
  if ('metric' in c) return `limit ${formatPercent(c.limit)}${c.min > 0 ? ` and ${formatHealthValue(c.metric, c.min)}` : ''}`;
  return `limit ${Number(c.limit.toPrecision(3))} MB per 10k requests`;
}

/** A failing health change with its limit: "GET / event-loop delay p99 +180% (limit 50% and 10 ms)". Raw scenario name: the caller escapes. */
export function describeHealthFailure(c: HealthComparison | HeapGrowthComparison): string {
  const change = 'metric' in c ? `${formatHealthMetricName(c.metric)} ${formatChange(c.change)}` : `heap growth +${Number(c.change.toPrecision(3))} MB per 10k requests`;
  return `${c.scenario} ${change} (${describeHealthLimitValue(c)})`;
}

/** A metric with an absolute floor also shows its absolute change (what the floor is judged on): "· +28.4 ms". */
function absoluteText(c: HealthComparison): string {
  if (!(c.min > 0) || !Number.isFinite(c.absoluteChange)) return '';
  const value = formatHealthValue(c.metric, c.absoluteChange);
  return ` · ${c.absoluteChange > 0 ? '+' : ''}${value}`;
}

function comparisonRow(c: HealthComparison): Omit<HealthRow, 'firstOfScenario'> {
  const tone = verdictTone(c);
  return {
    scenario: c.scenario,
    metric: formatHealthMetricName(c.metric),
    gated: c.gated,
    base: formatHealthValue(c.metric, c.baseMedian),
    head: formatHealthValue(c.metric, c.headMedian),
    change: `${formatChange(c.change)} ${formatInterval(c.ciLow, c.ciHigh)}${absoluteText(c)}`,
    cell: healthVerdictCell(c, betterSideOpen(c)),
    notable: tone !== 'neutral',
  };
}

function heapRows(growth: HeapGrowthComparison, leakCulprit: string | null): Omit<HealthRow, 'firstOfScenario'>[] {
  const tone = verdictTone(growth);
  const at = (side: Side) => `${megabytes(growth[side].lastHeapBytes)} / ${megabytes(growth[side].lastRssBytes)} MB`;
  return [
    {
      scenario: growth.scenario,
      metric: 'heap growth / 10k req',
      gated: growth.gated,
      base: formatGrowth(growth.baseMbPer10k),
      head: formatGrowth(growth.headMbPer10k),
      change: formatGrowth(growth.change),
      ...(leakCulprit !== null && { culprit: leakCulprit }),
      cell: healthVerdictCell(growth, growth.verdict === 'no-regression' ? HEAP_OPEN : undefined, 'leak'),
      notable: tone !== 'neutral',
    },
    {
      scenario: growth.scenario,
      metric: 'heap / RSS at end',
      gated: false,
      base: at('base'),
      head: at('head'),
      change: '',
      cell: { kind: 'none' },
      notable: false,
    },
    {
      scenario: growth.scenario,
      metric: 'active handles',
      gated: false,
      base: formatCount(growth.base.lastActiveHandles),
      head: formatCount(growth.head.lastActiveHandles),
      change: '',
      cell: { kind: 'none' },
      notable: false,
    },
  ];
}

/** The processes per side that reported, as "3" or "2–3" over the scenario's slices. */
function processCounts(health: HealthAnalysis, scenario: string, side: Side): string {
  const range = health.processes.find((p) => p.scenario === scenario)?.[side] ?? null;
  if (range === null) return '0';
  return range.min === range.max ? formatCount(range.min) : `${formatCount(range.min)}–${formatCount(range.max)}`;
}

/** Rows of every scenario with health data, scenarios in run order, gated metrics first within each. */
export function healthRows(results: Results, analysis: Analysis & Partial<Pick<Assessment, 'subjects'>>): HealthRow[] {
  const startup = startupRows(analysis).map((row, i) => ({ ...row, firstOfScenario: i === 0 }));
  const health = analysis.health;
  if (!health) return startup;
  return startup.concat(results.scenarios.flatMap((scenario) => {
    const name = scenario.name;
    const comparisons = health.comparisons
      .filter((c) => c.scenario === name)
      .sort((a, b) => Number(b.gated) - Number(a.gated) || HEALTH_METRICS.indexOf(a.metric) - HEALTH_METRICS.indexOf(b.metric));
    const growth = health.heap.find((h) => h.scenario === name);
    const generator = health.generator.find((g) => g.scenario === name);
    const timed = comparisons.filter((c) => !isCounter(c.metric));
    const measured = [...timed.map(comparisonRow), ...counterRows(comparisons, scenarioAllocationCulprit(analysis, name)?.text ?? null), ...(growth ? heapRows(growth, scenarioLeakCulprit(analysis, name)?.text ?? null) : [])];
    const rows: Omit<HealthRow, 'firstOfScenario'>[] = measured;
    if (rows.length > 0) {
      rows.push({
        scenario: name,
        metric: 'processes',
        gated: false,
        base: processCounts(health, name, 'base'),
        head: processCounts(health, name, 'head'),
        change: '',
        cell: { kind: 'none' },
        notable: false,
      });
    }
    if (generator) {
      const bound = generator.bound.length > 0;
      const load = (side: Side) => {
        const { generatorBusy, generatorCpu } = generator.sides[side];
        return Number.isFinite(generatorBusy) ? `${formatPercent(generatorBusy)} / ${formatPercent(generatorCpu)}` : formatPercent(generatorCpu);
      };
      // Simultaneous slices load both sides from one generator: the figure is the same, said once.
      const shared = load('base') === load('head');
      rows.push({
        scenario: name,
        metric: 'generator busy / CPU',
        gated: false,
        base: load('base'),
        head: shared ? '' : load('head'),
        change: shared ? 'one generator loads both sides' : '',
        cell: { kind: 'generator', bound },
        notable: bound,
      });
    }
    return rows.map((row, i) => ({ ...row, firstOfScenario: i === 0 }));
  }));
}

/**
 * A hint as a sentence (numbers and perfgate's words only: the renderer adds the escaped scenario
 * name). `culprit`: the scenario's culprit in own code (found once by the assessment, src/assess/subjects.ts), when
 * it was profiled and one grew; the event-loop and CPU hints name it.
 */
export function describeHint(hint: HealthHint, culprit: string | null = null): string {
  // culprit: the CPU culprit's words, or for a possible leak what head's heap kept (leak-culprit.ts)
  switch (hint.kind) {
    case 'blocked-loop':
      return `event loop blocked up to ${formatDurationUs(hint.headMaxUs)} in head (base ${formatDurationUs(hint.baseMaxUs)}): a synchronous call holds the loop — ${culprit !== null ? culprit : hint.profiled ? 'see hot functions' : 'turn on profiling (profile: true) to see which function'}`;
    case 'possible-leak': {
      // most starts rise (the rule requires it): how many shows the leak is no one-off
      const starts = hint.headBlocksMbPer10k;
      const up = starts.filter((g) => g > 0).length;
      const blocks = starts.length > 1 ? `; rising in ${up} of ${starts.length} starts` : '';
      return `heap grows ~${formatGrowth(hint.headMbPer10k).slice(1)} per 10k requests in head only (base ${formatGrowth(hint.baseMbPer10k)}${blocks}): possible leak — ${culprit ?? 'something keeps a reference per request (a map or cache without a bound, listeners never removed)'}`;
    }
    case 'leak-gone':
      return `heap grew ~${formatGrowth(hint.baseMbPer10k).slice(1)} per 10k requests in base and no longer does in head (${formatGrowth(hint.headMbPer10k)}): a leak fixed`;
    case 'gc-pressure':
      return `garbage collection takes ${formatDurationUs(hint.headMsPer1k * 1000)} per 1,000 requests in head (base ${formatDurationUs(hint.baseMsPer1k * 1000)}): head allocates more, or keeps more alive, per request`;
    case 'cpu-per-request':
      return `CPU per request ${formatChange(hint.change)} (${formatDurationUs(hint.baseUs)} → ${formatDurationUs(hint.headUs)}): head does more work per request — ${culprit !== null ? culprit : hint.profiled ? 'see hot functions' : 'turn on profiling (profile: true) to see where'}`;
    case 'waiting-outside':
      return `latency p99 ${formatChange(hint.change)} while head's event loop was busy only ${formatPercent(hint.headUtilization)} of the time: requests wait outside the JavaScript (I/O, a downstream call, a timer), not on the CPU`;
    case 'generator-bound': {
      const service =
        hint.serviceLoadSource === 'event-loop'
          ? `the service's busiest event loop was ${formatPercent(hint.serviceLoad)} busy`
          : `the service used ${Number(hint.serviceLoad.toFixed(2))} CPU cores`;
      const generator = Number.isFinite(hint.generatorBusy)
        ? `the load generator was busy ${formatPercent(hint.generatorBusy)} of the time (${formatPercent(hint.generatorCpu)} of a CPU core)`
        : `the load generator used ${formatPercent(hint.generatorCpu)} of a CPU core`;
      return `${generator} in most ${hint.sides.join(' and ')} slices while ${service}: throughput measures the generator, not the service (its verdict is inconclusive) — raise pipelining (e.g. 10), or give the runner more cores`;
    }
  }
}

/** Hints that warn rather than explain (shown with a warning sign). */
export function isWarningHint(hint: HealthHint): boolean {
  return hint.kind === 'generator-bound' || hint.kind === 'possible-leak';
}

/** What the section measures, in a clause. */
export function describeHealthMethod(results: Results): string {
  const slices = results.scenarios.flatMap((s) => s.pairs).flatMap((p) => [p.base, p.head]);
  const inside = slices.some((s) => s.health)
    ? 'inside the service during the same slices (event loop, GC, heap; all its processes, cluster workers included)'
    : 'no data from inside the service';
  return `${inside}, and the load generator's CPU`;
}
