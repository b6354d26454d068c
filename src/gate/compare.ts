import { DEFAULT_GATE } from '../config/schema.js';
import type { MetricRule } from '../config/types.js';
import type {
  Analysis,
  BenchmarkAnalysis,
  BenchmarkComparison,
  HealthAnalysis,
  HealthComparison,
  MetricComparison,
  PairedComparison,
  Results,
  RunWarning,
  Side,
  Verdict,
} from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { startOf, summarizeStarts } from './starts.js';
import { hodgesLehmannInterval } from '../stats/hodges-lehmann.js';
import { holmAdjust } from '../stats/holm.js';
import { smallestDetectableShift } from '../stats/power.js';
import { signedRankTest } from '../stats/wilcoxon.js';
import { inventoryBenchmarks } from './benchmarks.js';
import { analyzeHealth, healthSeries, healthWarnings, markGeneratorBound, type RelativeHealthComparison } from './health.js';
import { METRIC_DEFINITIONS } from './metrics.js';
import { httpLevel } from './sequential.js';
import { formatP, percentText } from './text.js';

/** Below this many pairs the verdicts are shown but flagged: the test has almost no power. */
export const MIN_RELIABLE_PAIRS = 10;
/** Below this many start pairs likewise: the signed-rank test over starts has almost no power. */
export const MIN_RELIABLE_STARTS = 8;
const CONFIDENCE = 0.95;
/**
 * "Unchanged" is an equivalence claim, tested as two one-sided tests at 5% each (Schuirmann,
 * J. Pharmacokinet. Biopharm. 1987): the change is within ±limit when the 90% interval lies
 * inside it. A 95% interval would hold equivalence to 2.5% per side, a stricter level than the
 * claim needs, and leave most no-op PRs inconclusive (docs/method.md).
 */
const EQUIVALENCE_CONFIDENCE = 0.9;

export interface CompareOptions {
  /** Level for the HTTP verdicts; default: the level of the look the run stopped at (see sequential.ts), else alpha. */
  httpLevel?: number;
}

type Draft<T extends PairedComparison> = Omit<T, 'pAdjusted' | 'verdict'>;

/**
 * One series of paired values (base and head, same index = same pair) → estimate, interval and
 * test on the log-ratios ln(head/base); null when no pair has a finite ratio. With `starts`
 * (the start pair of each pair, HTTP and health metrics), the unit is the start pair: each
 * start's pairs are summarised by the median of their log-ratios, and the estimate, interval
 * and test are over those summaries, so a start's own offset counts once, not once per slice
 * (gate/starts.ts). Without (micro-benchmarks: each round is one fresh process per side
 * already), the unit is the pair.
 */
function comparePaired(
  base: number[],
  head: number[],
  starts: readonly number[] | null,
  rule: MetricRule,
  alpha: number,
  higherIsBetter: boolean,
): Draft<PairedComparison> | null {
  const pairRatios = base.map((b, i) => Math.log(head[i]! / b));
  const finitePairs = pairRatios.filter(Number.isFinite).length;
  const perStart = starts ? summarizeStarts(pairRatios, starts) : null;
  const ratios = perStart ? perStart.map((s) => s.value) : pairRatios.filter(Number.isFinite);
  if (ratios.length === 0) return null;
  const interval = hodgesLehmannInterval(ratios, CONFIDENCE);
  // With very few units no interval reaches 95%: then the bounds are unknown, so the
  // verdict can never be "unchanged" on too little evidence.
  const reached = interval.confidence >= CONFIDENCE - 1e-9;
  const lower = reached ? interval.lower : Number.NEGATIVE_INFINITY;
  const upper = reached ? interval.upper : Number.POSITIVE_INFINITY;
  // One-sided, towards the estimate: a regression is only ever called in the worse direction (and
  // an improvement in the better one), so alpha bounds the false-fail rate itself.
  const test = signedRankTest(ratios, { alternative: interval.estimate < 0 ? 'less' : 'greater' });
  const halfWidth = (upper - lower) / 2;
  const equivalence = hodgesLehmannInterval(ratios, EQUIVALENCE_CONFIDENCE);
  const equivalent = reached && equivalence.confidence >= EQUIVALENCE_CONFIDENCE - 1e-9;
  return {
    gated: rule.gated,
    limit: rule.limit,
    n: ratios.length,
    pairs: finitePairs,
    ...(perStart && { starts: perStart.map((s) => ({ start: s.start, change: Math.expm1(s.value), pairs: s.n })) }),
    baseMedian: median(base.filter(Number.isFinite)),
    headMedian: median(head.filter(Number.isFinite)),
    change: Math.expm1(interval.estimate),
    ciLow: Math.expm1(lower),
    ciHigh: Math.expm1(upper),
    eqLow: equivalent ? Math.expm1(equivalence.lower) : Number.NEGATIVE_INFINITY,
    eqHigh: equivalent ? Math.expm1(equivalence.upper) : Number.POSITIVE_INFINITY,
    p: test.p,
    detectable: Number.isFinite(halfWidth)
      ? // one-sided level alpha = two-sided 2·alpha in the formula's terms
        Math.expm1(smallestDetectableShift(halfWidth, { confidence: CONFIDENCE, alpha: 2 * alpha }))
      : Number.NaN,
    higherIsBetter,
  };
}

/**
 * Holm-adjusted p-values for the gated comparisons (one family for the whole run: HTTP metrics
 * and micro-benchmarks alike); informational ones keep their own p.
 */
function adjustGated(drafts: readonly Draft<PairedComparison>[]): number[] {
  const gatedIndexes = drafts.flatMap((c, i) => (c.gated ? [i] : []));
  const adjusted = holmAdjust(gatedIndexes.map((i) => drafts[i]!.p));
  const pAdjusted = drafts.map((c) => c.p);
  gatedIndexes.forEach((index, k) => {
    pAdjusted[index] = adjusted[k]!;
  });
  return pAdjusted;
}

/**
 * Results → verdicts, as docs/method.md explains ("The statistics", "The verdicts"): per HTTP metric and
 * per service-health metric, the paired log-ratios ln(head/base) of its slices, and per
 * micro-benchmark those of its processes (one ops/s per process, paired by round); the
 * Hodges–Lehmann estimate with its distribution-free 95% interval; the Wilcoxon signed-rank p;
 * Holm across the gated comparisons of the whole run. Then gate/health.ts adds the absolute
 * floors, the memory-growth rule and the load-generator check (which can make a throughput
 * verdict inconclusive). Pure: the same results always give the same analysis (the CLI's
 * `report` relies on it).
 */
export function compareResults(results: Results, options: CompareOptions = {}): Analysis {
  const { config } = results;
  const level = options.httpLevel ?? httpLevel(results);
  const metricDrafts: Draft<MetricComparison>[] = [];
  for (const scenario of results.scenarios) {
    if (scenario.pairs.length === 0) continue;
    for (const definition of METRIC_DEFINITIONS) {
      const base = scenario.pairs.map((p) => definition.value(p.base));
      const head = scenario.pairs.map((p) => definition.value(p.head));
      const starts = scenario.pairs.map(startOf);
      const draft = comparePaired(base, head, starts, config.gate[definition.id], level, definition.higherIsBetter);
      if (draft) metricDrafts.push({ metric: definition.id, scenario: scenario.name, ...draft });
    }
  }
  const inventory = results.benchmarks ? inventoryBenchmarks(results.benchmarks) : null;
  const benchRule = config.gate.benchmarks ?? DEFAULT_GATE.benchmarks;
  const benchDrafts: Draft<BenchmarkComparison>[] = (inventory?.series ?? []).flatMap((series) => {
    const draft = comparePaired(series.base, series.head, null, benchRule, config.alpha, true);
    return draft ? [{ ...series.identity, ...draft }] : [];
  });

  // Service health (gate/health.ts): measured on the same slices as the HTTP metrics, so held
  // to the same level; the gated health metrics join the same Holm family.
  const healthDrafts: Draft<RelativeHealthComparison>[] = healthSeries(results).flatMap((series) => {
    const draft = comparePaired(series.base, series.head, series.starts, series.rule, level, false);
    return draft ? [{ metric: series.metric, scenario: series.scenario, ...draft }] : [];
  });

  const pAdjusted = adjustGated([...metricDrafts, ...benchDrafts, ...healthDrafts]);
  // One Holm family; each comparison is held to its own level (HTTP and health: the sequential
  // design's nominal level at the look the run stopped, never above alpha; micro-benchmarks: alpha).
  const decide = <T extends PairedComparison>(draft: Draft<T>, p: number, at: number): T => {
    const withP = { ...draft, pAdjusted: p } as Omit<T, 'verdict'>;
    return { ...withP, verdict: decideVerdict(withP, at) } as T;
  };
  const decided = metricDrafts.map((d, i) => decide<MetricComparison>(d, pAdjusted[i]!, level));
  const healthOffset = metricDrafts.length + benchDrafts.length;
  const health: HealthAnalysis | undefined = analyzeHealth(
    results,
    healthDrafts.map((d, i) => decide<RelativeHealthComparison>(d, pAdjusted[healthOffset + i]!, level)),
    decided,
  );
  // Throughput measured on a generator-bound side cannot support its verdict.
  const comparisons = health ? markGeneratorBound(decided, health.generator) : decided;
  const failing = comparisons.filter((c) => c.gated && c.verdict === 'regression');
  let benchmarks: BenchmarkAnalysis | undefined;
  if (inventory) {
    const benchComparisons = benchDrafts.map((d, i) => decide<BenchmarkComparison>(d, pAdjusted[metricDrafts.length + i]!, config.alpha));
    benchmarks = {
      comparisons: benchComparisons,
      uncompared: inventory.uncompared,
      failures: inventory.failures,
      failing: benchComparisons.filter((c) => c.gated && c.verdict === 'regression'),
      notCompared: inventory.notCompared,
    };
  }
  const healthComparisons = health?.comparisons ?? [];
  const all: PairedComparison[] = [...comparisons, ...(benchmarks?.comparisons ?? []), ...healthComparisons];
  const gatedCount = all.filter((c) => c.gated).length;
  const family = describeFamily(
    [...comparisons, ...healthComparisons].filter((c) => c.gated).length,
    (benchmarks?.comparisons ?? []).filter((c) => c.gated).length,
  );
  // The memory-growth verdicts count like the others, but are no paired test (not in Holm's family).
  const verdicts = [...all, ...(health?.heap ?? [])];
  return {
    comparisons,
    decision: failing.length > 0 || (benchmarks?.failing.length ?? 0) > 0 || (health?.failing.length ?? 0) > 0 ? 'fail' : 'pass',
    regressions: verdicts.filter((c) => c.verdict === 'regression').length,
    improvements: verdicts.filter((c) => c.verdict === 'improvement').length,
    failing,
    warnings: [
      ...results.warnings,
      ...deriveWarnings(results, [...comparisons, ...healthComparisons], family, gatedCount, level),
      ...(benchmarks ? benchmarkWarnings(results, benchmarks, family, gatedCount) : []),
      ...(health ? healthWarnings(results, health) : []),
    ],
    ...(benchmarks && { benchmarks }),
    ...(health && { health }),
  };
}

/**
 * docs/method.md, "The verdicts": regression = significant and worse than the limit; improvement =
 * significant and better than the limit; unchanged = the whole 90% interval inside ±limit
 * (equivalence, two one-sided tests at 5%);
 * anything else is inconclusive (the run cannot tell).
 */
export function decideVerdict(
  c: Pick<PairedComparison, 'change' | 'ciLow' | 'ciHigh' | 'eqLow' | 'eqHigh' | 'pAdjusted' | 'limit' | 'higherIsBetter'>,
  alpha: number,
): Verdict {
  const worse = c.higherIsBetter ? -c.change : c.change;
  const significant = c.pAdjusted < alpha;
  if (significant && worse > c.limit) return 'regression';
  if (significant && -worse > c.limit) return 'improvement';
  // Results from before the equivalence interval held only the 95% one.
  const low = c.eqLow ?? c.ciLow;
  const high = c.eqHigh ?? c.ciHigh;
  if (low > -c.limit && high < c.limit) return 'unchanged';
  return 'inconclusive';
}

/**
 * The exact one-sided signed-rank test's smallest p with n pairs is 1/2^n (all pairs agree);
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

function deriveWarnings(
  results: Results,
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
        message: `Only ${n} pairs: too few for a reliable verdict (use at least ${MIN_RELIABLE_PAIRS}; 60 is the default).`,
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
    for (const side of ['base', 'head'] as Side[]) {
      const slices = scenario.pairs.map((p) => p[side]);
      const requests = slices.reduce((a, s) => a + s.requests, 0);
      const non2xx = slices.reduce((a, s) => a + s.non2xx, 0);
      const failures = slices.reduce((a, s) => a + s.errors + s.timeouts, 0);
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
  for (const c of comparisons.filter((c) => c.gated)) {
    const needed = pairsNeeded(c.n, gatedCount, level);
    if (needed !== null) {
      warnings.push({
        code: 'underpowered',
        scenario: c.scenario,
        message: `With ${c.n} start pairs and ${family} no change can reach significance at level ${formatP(level)}: a regression cannot be detected. Use at least ${needed} starts per side (load.blocks × load.instances).`,
      });
      break;
    }
  }
  // The starts themselves disagree: a reader should see why a run is inconclusive. How much of
  // that spread is a per-start offset and how much is pair noise varies (docs/calibration.md,
  // "Where the noise is"), so both ways to narrow the interval are named.
  for (const c of comparisons.filter((c) => c.gated && c.verdict === 'inconclusive' && c.starts && c.starts.length >= 3)) {
    const spread = startSpread(c.starts!.map((s) => Math.log1p(s.change)));
    if (spread > c.limit) {
      const changes = c.starts!.map((s) => s.change);
      const signed = (x: number) => `${x > 0 ? '+' : ''}${percentText(x)}`;
      warnings.push({
        code: 'starts-disagree',
        scenario: c.scenario,
        message: `${c.metric}: the ${changes.length} start pairs disagree by more than the limit (each start's own change from ${signed(Math.min(...changes))} to ${signed(Math.max(...changes))}, spread ±${percentText(Math.expm1(spread))} against a limit of ${percentText(c.limit)}): more start pairs (load.blocks × load.instances) narrow the interval, and more pairs per start (load.pairs) as far as the spread is pair noise.`,
      });
    }
  }
  // Generator-bound throughput has its own warning (gate/health.ts): more pairs would not help.
  const undecided = comparisons.filter((c) => c.gated && c.verdict === 'inconclusive' && !('generatorBound' in c && c.generatorBound));
  for (const c of undecided) {
    warnings.push({
      code: 'inconclusive',
      scenario: c.scenario,
      message: `${c.metric} is inconclusive: the run could detect changes of about ${percentText(c.detectable)} but the limit is ${percentText(c.limit)}. More starts (load.blocks × load.instances) narrow the interval.`,
    });
  }
  return warnings;
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
      message: `inconclusive: the run could detect changes of about ${percentText(c.detectable)} but the limit is ${percentText(c.limit)}. More rounds (benchmarks.rounds) narrow the interval.`,
    });
  }
  return warnings;
}

/** One line per gated regression, HTTP, micro-benchmarks and service health, for a failed check's message. */
export function describeFailing(analysis: Analysis): string[] {
  return [
    ...analysis.failing.map((c) => `${c.metric} of ${c.scenario} ${percentText(c.change)} (limit ${percentText(c.limit)})`),
    ...(analysis.benchmarks?.failing ?? []).map((c) => `benchmark ${c.label} ${percentText(c.change)} (limit ${percentText(c.limit)})`),
    ...(analysis.health?.failing ?? []).map((c) =>
      'metric' in c
        ? `${c.metric} of ${c.scenario} ${percentText(c.change)} (limit ${percentText(c.limit)}${c.min > 0 ? ` and ${c.min / 1000} ms` : ''})`
        : `heap_growth of ${c.scenario} +${c.change.toFixed(2)} MB per 10k requests: possible leak (limit ${c.limit} MB)`,
    ),
  ];
}

