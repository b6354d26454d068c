/**
 * The warnings of an analysis, every one built here with its code (src/results/warnings.ts lists
 * them): what a reader must know to trust the verdicts (an incomplete run, too few pairs or
 * starts, failed requests, no power, starts that disagree, inconclusive gated metrics, failed
 * micro-benchmarks, a load generator at its limit, a service without health data). Pure.
 */
import { DEFAULT_PAIRS } from '../config/defaults.js';
import type {
  BenchmarkAnalysis,
  FailureTally,
  HealthAnalysis,
  HealthComparison,
  MetricComparison,
  Results,
  RunWarning,
  Side,
} from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { formatP } from '../stats/format.js';
import { startOf } from './starts.js';
import { percentText } from './text.js';

const SIDES: readonly Side[] = ['base', 'head'];

/** "+9.2%", "-5.4%": a change with its sign. */
const signedPercent = (x: number) => `${x > 0 ? '+' : ''}${percentText(x)}`;

/** Below this many pairs the verdicts are shown but flagged: the test has almost no power. */
export const MIN_RELIABLE_PAIRS = 10;
/** Below this many start pairs likewise: the paired test over starts has almost no power. */
export const MIN_RELIABLE_STARTS = 8;

/**
 * The exact one-sided sign-flip test's smallest p with n pairs is 1/2^n (all pairs agree);
 * Holm multiplies the smallest p by the number of gated comparisons of the run. Below that
 * floor no regression can ever be found, whatever the data. Returns the pairs (or rounds)
 * needed, or null when n is enough.
 */
export function pairsNeeded(n: number, gatedCount: number, alpha: number): number | null {
  if (gatedCount * 2 ** -n < alpha) return null;
  return Math.floor(Math.log2(gatedCount / alpha)) + 1;
}

/**
 * How far the starts' own log-changes spread: the median absolute deviation scaled by 1.4826,
 * a robust estimate of their standard deviation (Rousseeuw & Croux, JASA 1993).
 */
export function startSpread(logChanges: readonly number[]): number {
  const center = median(logChanges);
  return 1.4826 * median(logChanges.map((x) => Math.abs(x - center)));
}

/** "2 gated metrics", or "2 gated metrics and 3 gated micro-benchmarks": the Holm family. */
function describeFamily(metrics: number, benchmarks: number): string {
  const plural = (n: number, word: string) => `${n} gated ${word}${n === 1 ? '' : 's'}`;
  if (benchmarks === 0) return plural(metrics, 'metric');
  if (metrics === 0) return plural(benchmarks, 'micro-benchmark');
  return `${plural(metrics, 'metric')} and ${plural(benchmarks, 'micro-benchmark')}`;
}

function httpWarnings(
  results: Results,
  tallies: FailureTally[],
  comparisons: (MetricComparison | HealthComparison)[],
  family: string,
  gatedCount: number,
  level: number,
): RunWarning[] {
  const warnings: RunWarning[] = [];
  if (results.status !== 'complete') {
    warnings.push({
      code: 'incomplete',
      message: `The run did not finish (${results.error ?? results.status}); verdicts use the pairs measured before it stopped.`,
    });
  }
  for (const scenario of results.scenarios) {
    const n = scenario.pairs.length;
    if (n > 0 && n < MIN_RELIABLE_PAIRS) {
      warnings.push({
        code: 'few-pairs',
        scenario: scenario.name,
        message: `Only ${n} pairs: too few for a reliable verdict (use at least ${MIN_RELIABLE_PAIRS}; ${DEFAULT_PAIRS} is the default).`,
      });
    }
    const starts = new Set(scenario.pairs.map(startOf)).size;
    if (n > 0 && starts < MIN_RELIABLE_STARTS) {
      warnings.push({
        code: 'few-starts',
        scenario: scenario.name,
        message: `Only ${starts} start pair${starts === 1 ? '' : 's'}: the verdicts count starts, not slices (each start carries its own offset), and ${starts} cannot support a reliable verdict. Use at least ${MIN_RELIABLE_STARTS} (load.blocks × load.instances).`,
      });
    }
    for (const { side, requests, non2xx, errors } of tallies.filter((t) => t.scenario === scenario.name)) {
      // Every timeout is among the errors already (autocannon's count, and both generators' since).
      const failures = errors;
      if (non2xx > 0) {
        const share = requests ? ((100 * non2xx) / requests).toFixed(1) : '100';
        warnings.push({
          code: 'non-2xx',
          scenario: scenario.name,
          message: `${side} answered ${non2xx} of ${requests} requests with a non-2xx status (${share}%): the comparison may be measuring an error path. Check the request (method, path, headers, body) and the service log.`,
        });
      }
      if (failures > 0) {
        warnings.push({
          code: 'request-errors',
          scenario: scenario.name,
          message: `${side} had ${failures} connection errors or timeouts. Check the service log.`,
        });
      }
    }
  }
  // Judged on the design, not on the look the run stopped at: an interim look's level is meant to
  // be out of reach for a small change, and a run that stopped early had the planned starts to go.
  const design = designedPower(results, level);
  for (const c of comparisons.filter((c) => c.gated)) {
    const n = Math.max(c.n, design.starts);
    const needed = pairsNeeded(n, gatedCount, design.level);
    if (needed !== null) {
      warnings.push({
        code: 'underpowered',
        scenario: c.scenario,
        message: `With ${n} start pairs and ${family} no change can reach significance at level ${formatP(design.level)} by the sign-flip test: only a regression that slows every start pair alike can be detected. Use at least ${needed} starts per side (load.blocks × load.instances).`,
      });
      break;
    }
  }
  // The starts themselves disagree: a reader should see why a run is inconclusive, and which of
  // the two ways to narrow the interval fits this service (startsOrPairs).
  for (const c of comparisons.filter((c) => c.gated && c.verdict === 'inconclusive' && c.starts && c.starts.length >= 3)) {
    const spread = startSpread(c.starts!.map((s) => Math.log1p(s.change)));
    if (spread > c.limit) {
      const changes = c.starts!.map((s) => s.change);
      warnings.push({
        code: 'starts-disagree',
        scenario: c.scenario,
        message: `${c.metric}: the ${changes.length} start pairs disagree by more than the limit (each start's own change from ${signedPercent(Math.min(...changes))} to ${signedPercent(Math.max(...changes))}, spread ±${percentText(Math.expm1(spread))} against a limit of ${percentText(c.limit)}). ${startsOrPairs(c, spread).advice}`,
      });
    }
  }
  // Generator-bound throughput has its own warning (assess/health.ts): more pairs would not help.
  const undecided = comparisons.filter((c) => c.gated && c.verdict === 'inconclusive' && !('generatorBound' in c && c.generatorBound));
  for (const c of undecided) {
    warnings.push({ code: 'inconclusive', scenario: c.scenario, message: undecidedMessage(c, family, level) });
  }
  return warnings;
}

/**
 * The start pairs and the level the run was designed to reach: after an early stop, the planned
 * starts (load.blocks × load.instances) and the final look's level; otherwise what was measured
 * and decided (`level`), so an incomplete run is still judged on what it has.
 */
function designedPower(results: Results, level: number): { starts: number; level: number } {
  const sequential = results.sequential;
  const stopped = sequential?.taken.some((look) => look.decision === 'stop-regression' || look.decision === 'stop-clear') ?? false;
  if (!sequential || !stopped) return { starts: 0, level };
  const { blocks, instances } = results.config.load;
  return { starts: blocks * instances, level: sequential.looks.at(-1)?.nominalAlpha ?? level };
}

/** A start pair's summary of k pairs (their Hodges–Lehmann estimate) spreads about this many times σ/√k from the pairs' noise alone: 1.01 at k = 3, 1.03–1.04 from k = 4 on (normal noise, simulated), √(π/3) = 1.023 for large k. */
const START_SUMMARY_SPREAD = 1.03;

/**
 * Which way to narrow an interval that the starts' spread makes wide. That spread has two parts:
 * each pair's own noise, which a start's summary of k pairs carries at about 1.03 σ/√k (σ: how far
 * a pair moves inside its start, `noise.withinStarts`), and each start's own offset, which only
 * more starts average out. When the pairs' noise alone accounts for half the starts' variance or
 * more, more pairs per start narrow the interval as well as more starts do, and cost less (a start
 * also costs its boot and its warm-up): so it was on express 5, whose starts spread 3.3–3.5% with
 * 3 pairs each and 2.1–2.5% with 6 (docs/calibration-log.md, "A ninth pass"). With one pair per start,
 * or without starts, nothing tells the two apart, and more starts is the advice that always holds.
 */
function startsOrPairs(
  c: MetricComparison | HealthComparison,
  spread: number | null = c.starts && c.starts.length >= 3 ? startSpread(c.starts.map((s) => Math.log1p(s.change))) : null,
): { pairNoise: boolean; advice: string } {
  const within = c.noise.withinStarts;
  const perStart = c.pairs !== undefined && c.n > 0 ? c.pairs / c.n : 0;
  if (within == null || spread === null || !(spread > 0) || perStart < 2) {
    return { pairNoise: false, advice: 'More start pairs (load.blocks × load.instances) narrow the interval.' };
  }
  const fromPairs = (START_SUMMARY_SPREAD * within) / Math.sqrt(perStart);
  const k = Number.isInteger(perStart) ? String(perStart) : perStart.toFixed(1);
  const alone = `their pairs' own noise alone would spread them ±${percentText(Math.expm1(fromPairs))} with ${k} pairs per start`;
  if ((fromPairs / spread) ** 2 >= 0.5) {
    return {
      pairNoise: true,
      advice: `Most of it is pair noise (${alone}): more pairs per start (load.pairs) narrow the interval as well as more start pairs (load.blocks × load.instances) do, in less time.`,
    };
  }
  return {
    pairNoise: false,
    advice: `Each start carries an offset of its own beyond its pairs' noise (${alone}): more start pairs (load.blocks × load.instances) narrow the interval; more pairs per start help little.`,
  };
}

/**
 * The smallest change the run could detect, against the limit. With too few pairs or rounds for
 * the level, the interval has no finite bound and there is no such size: that is said instead.
 */
function detectableText(c: { detectable: number; limit: number }, units: 'pairs' | 'start pairs' | 'rounds'): string {
  return Number.isFinite(c.detectable)
    ? `the run could detect changes of about ${percentText(c.detectable)} but the limit is ${percentText(c.limit)}`
    : `the run had too few ${units} for its interval to have finite bounds, so no change of any size could be detected against the ${percentText(c.limit)} limit`;
}

/**
 * Why a gated metric is inconclusive. Usually the interval is too wide for the limit. But a
 * change can be worse than the limit, even with its 95% interval beyond it, and still not be
 * significant at the run's level: the test is one-sided at alpha after Holm across the gated
 * family, a stricter level than the interval's, and start pairs that went the other way weigh
 * by their size (a fastify run measured −5.4% (−6.2 … −3.7) with one start pair at +9.2%,
 * adjusted p 0.013 against 0.01). Saying "could detect about 2%" there would be wrong.
 */
function undecidedMessage(c: MetricComparison | HealthComparison, family: string, level: number): string {
  const worse = c.higherIsBetter ? -c.change : c.change;
  const byPairs = Boolean(startsOrPairs(c).pairNoise);
  const more = byPairs
    ? 'More pairs per start (load.pairs) or more starts (load.blocks × load.instances) narrow the interval.'
    : 'More starts (load.blocks × load.instances) narrow the interval.';
  // Significant and worse, yet inconclusive: another rule held it back (an absolute floor).
  // Open only on the better side is "no regression", not inconclusive (compare.ts, decideVerdict).
  if (worse <= c.limit || c.pAdjusted < level) {
    return `${c.metric} is inconclusive: ${detectableText(c, byPairs ? 'pairs' : 'start pairs')}. ${more}`;
  }
  const opposed = (c.starts ?? []).filter((s) => (c.change < 0 ? s.change > 0 : s.change < 0)).map((s) => s.change);
  const against =
    opposed.length > 0
      ? ` ${opposed.length} of ${c.starts!.length} start pairs went the other way (${opposed.map(signedPercent).join(', ')}).`
      : '';
  return `${c.metric} ${signedPercent(c.change)} is worse than the ${percentText(c.limit)} limit but not significant at this run's level: adjusted p ${formatP(c.pAdjusted)} (Holm across ${family}) is not below ${formatP(level)}.${against} ${more}`;
}

/** What a reader of the micro-benchmark verdicts must know: failures, budget, too few rounds, power. */
function benchmarkWarnings(results: Results, benchmarks: BenchmarkAnalysis, family: string, gatedCount: number): RunWarning[] {
  const warnings: RunWarning[] = [];
  const { alpha } = results.config;
  const stoppedEarly = results.benchmarks?.stoppedEarly ?? null;
  if (stoppedEarly !== null) {
    warnings.push({
      code: 'benchmark-budget',
      message: `The micro-benchmarks stopped early: ${stoppedEarly}. Raise benchmarks.budget, or lower benchmarks.rounds or the suites' own run times.`,
    });
  }
  for (const failure of benchmarks.failures) {
    warnings.push({
      code: 'benchmark-failed',
      benchmark: failure.file,
      message: `failed on ${failure.side} in ${failure.failedRounds.length} of ${failure.runs} runs: ${failure.message.split('\n')[0]}`,
    });
  }
  const fewest = Math.min(...benchmarks.comparisons.map((c) => c.n));
  if (benchmarks.comparisons.length > 0 && fewest < MIN_RELIABLE_PAIRS) {
    warnings.push({
      code: 'few-rounds',
      message: `Some micro-benchmarks have only ${fewest} rounds with both sides: too few for a reliable verdict (use at least ${MIN_RELIABLE_PAIRS}; 10 is the default).`,
    });
  }
  for (const c of benchmarks.comparisons.filter((c) => c.gated)) {
    const needed = pairsNeeded(c.n, gatedCount, alpha);
    if (needed !== null) {
      warnings.push({
        code: 'underpowered',
        benchmark: c.label,
        message: `With ${c.n} rounds and ${family} no micro-benchmark change can reach significance at alpha ${alpha}: a regression cannot be detected. Use at least ${needed} rounds (benchmarks.rounds), or gate fewer benchmarks (gate.benchmarks).`,
      });
      break;
    }
  }
  for (const c of benchmarks.comparisons.filter((c) => c.gated && c.verdict === 'inconclusive')) {
    warnings.push({
      code: 'inconclusive',
      benchmark: c.label,
      message: `inconclusive: ${detectableText(c, 'rounds')}. More rounds (benchmarks.rounds) narrow the interval.`,
    });
  }
  return warnings;
}

/** What a reader of the health verdicts must know: generator-bound throughput, services that sent no health data (inconclusive gated health metrics are warned about with the HTTP metrics). */
function healthWarnings(results: Results, health: HealthAnalysis): RunWarning[] {
  const warnings: RunWarning[] = [];
  for (const check of health.generator.filter((g) => g.bound.length > 0)) {
    const loads = check.bound.map((side) => check.sides[side]);
    const busy = Math.max(...loads.map((l) => l.generatorBusy));
    const cpu = Math.max(...loads.map((l) => l.generatorCpu));
    const service = Math.max(...loads.map((l) => l.serviceLoad));
    const generatorText = Number.isFinite(busy) ? `was busy ${share(busy)} of the time (${share(cpu)} of a CPU core)` : `used ${share(cpu)} of a CPU core`;
    const serviceText =
      loads[0]!.serviceLoadSource === 'event-loop'
        ? `its busiest event loop was ${share(service)} busy`
        : `it used ${service.toFixed(2)} CPU cores`;
    warnings.push({
      code: 'load-generator-bound',
      scenario: check.scenario,
      message: `In most ${check.bound.join(' and ')} slices the load generator (autocannon, one thread of perfgate) ${generatorText} while the service was not at its limit (${serviceText}): throughput measured the generator, not the service, so its verdict is inconclusive. Raise the scenario's pipelining (e.g. 10) so each request costs the generator less, or give the runner more cores; see docs/health.md.`,
    });
  }
  for (const scenario of results.scenarios) {
    for (const side of SIDES) {
      const slices = scenario.pairs.map((p) => p[side]);
      // null: measured with health on, and no process reported; undefined: older results.
      if (slices.length > 0 && slices.every((s) => s.health === null)) {
        warnings.push({
          code: 'no-health',
          scenario: scenario.name,
          message: `The ${side} service sent no health data (event loop, GC, heap): none of its processes loaded perfgate's preload. Is it a Node.js process, and does its start command keep NODE_OPTIONS?`,
        });
      }
    }
  }
  return warnings;
}

/** A share of a core or of the time: 0.973 → "97%", 0.052 → "5.2%". */
function share(fraction: number): string {
  return `${Number((100 * fraction).toFixed(fraction < 0.1 ? 1 : 0))}%`;
}

/** What the parts of an analysis need warned about. */
export interface WarningInputs {
  /** Requests per scenario and side (assess/samples.ts). */
  tallies: FailureTally[];
  /** HTTP and service-health comparisons. */
  comparisons: (MetricComparison | HealthComparison)[];
  benchmarks?: BenchmarkAnalysis | undefined;
  health?: HealthAnalysis | undefined;
  /** Gated comparisons of the whole run, and how many metrics and micro-benchmarks of them (Holm's family). */
  gated: { metrics: number; benchmarks: number };
  /** The level the HTTP verdicts were decided at. */
  level: number;
}

/**
 * Every warning of a run once: those recorded while it ran (results.warnings), then the ones the
 * analysis derives; a repeat (the same code, subject and message) is dropped.
 */
export function analysisWarnings(results: Results, inputs: WarningInputs): RunWarning[] {
  const family = describeFamily(inputs.gated.metrics, inputs.gated.benchmarks);
  const gatedCount = inputs.gated.metrics + inputs.gated.benchmarks;
  const all = [
    ...results.warnings,
    ...httpWarnings(results, inputs.tallies, inputs.comparisons, family, gatedCount, inputs.level),
    ...(inputs.benchmarks ? benchmarkWarnings(results, inputs.benchmarks, family, gatedCount) : []),
    ...(inputs.health ? healthWarnings(results, inputs.health) : []),
  ];
  const seen = new Set<string>();
  return all.filter((w) => {
    const key = JSON.stringify([w.code, w.scenario ?? null, w.benchmark ?? null, w.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
