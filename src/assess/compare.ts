import { analyzeFairness } from './fairness.js';
import { ruleFor } from '../config/scenario-rules.js';
import type { MetricRule } from '../config/types.js';
import type {
  Analysis,
  BenchmarkAnalysis,
  BenchmarkComparison,
  HealthAnalysis,
  IoAnalysis,
  LevelComparison,
  MetricComparison,
  PairedComparison,
  Results,
  StartupComparison,
  StoredBaseline,
  Verdict,
} from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { spreadWithinStarts, startOf, summarizeStarts } from './starts.js';
import { hodgesLehmannInterval } from '../stats/hodges-lehmann.js';
import { holmAdjust } from '../stats/holm.js';
import { smallestDetectableShift } from '../stats/power.js';
import { signFlipTest, studentizedAgreement } from '../stats/sign-flip.js';
import { type BenchmarkInventory, inventoryBenchmarks } from './benchmarks.js';
import { analyzeHealth, healthSeries, markGeneratorBound, type RelativeHealthComparison } from './health.js';
import { analyzeIo } from './io.js';
import { decideLevel, type LevelDraft, levelDrafts } from './levels.js';
import { equivalenceEnds, failedLevels, levelValueText } from './read.js';
import { describeHeadBroken, errorShare, headBrokenScenarios } from '../results/errors.js';
import { METRIC_DEFINITIONS } from './metrics.js';
import { hasFailures, middleHalf, pairNoise, tallyRequests } from './samples.js';
import { earlyStop, httpLevel } from './sequential.js';
import { percentText } from './text.js';
import { startupSeries } from './startup.js';
import { analysisWarnings } from './warnings.js';
import { collectSubjects } from './subjects.js';
import type { AssessedComparison, Assessment, BenchmarkRef, ScenarioRef, ServiceRef } from './types.js';
import { baselineGaps, describeBaseline, unpairedDrafts } from './unpaired.js';


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

/**
 * A comparison before Holm's adjustment and its verdict. `testable`: whether the test could ever
 * reject (false when every unit is exactly 0); `decided`: a verdict the data settle without the
 * test (the errors rule, decisiveErrors). Both are dropped once decided.
 */
type Draft<T extends PairedComparison> = Omit<T, 'pAdjusted' | 'verdict'> & { testable?: boolean; decided?: Verdict | null };

/**
 * One series of paired values (base and head, same index = same pair) → estimate, interval and
 * test on the log-ratios ln(head/base), or with scale 'difference' on the differences head −
 * base (a share, where base is often 0 and a ratio has no value); null when no pair has a finite
 * one. With `starts`
 * (the start pair of each pair, HTTP and health metrics), the unit is the start pair: each
 * start's pairs are summarised by the Hodges–Lehmann estimate of their log-ratios, and the estimate, interval
 * and test are over those summaries, so a start's own offset counts once, not once per slice
 * (assess/starts.ts). Without (micro-benchmarks: each round is one fresh process per side
 * already), the unit is the pair.
 */
function comparePaired(
  base: number[],
  head: number[],
  starts: readonly number[] | null,
  rule: MetricRule,
  alpha: number,
  higherIsBetter: boolean,
  scale: 'ratio' | 'difference' = 'ratio',
): Draft<PairedComparison> | null {
  const ratio = scale === 'ratio';
  // Back to the reported scale: a fraction of base, or the difference itself.
  const reported = ratio ? Math.expm1 : (x: number) => x;
  const pairRatios = base.map((b, i) => (ratio ? Math.log(head[i]! / b) : head[i]! - b));
  const finitePairs = pairRatios.filter(Number.isFinite).length;
  const perStart = starts ? summarizeStarts(pairRatios, starts) : null;
  const startChanges = perStart?.map((s) => ({ start: s.start, change: reported(s.value), pairs: s.n }));
  const ratios = perStart ? perStart.map((s) => s.value) : pairRatios.filter(Number.isFinite);
  if (ratios.length === 0) return null;
  // Every unit exactly 0 (both sides answered every request as expected, in every slice): no
  // sign pattern moves the sum, so the test's p is 1 whatever the design, and the interval is
  // the point 0, however few the units. Such a comparison can never be rejected, so it does not
  // join Holm's family (Tarone, Biometrics 1990: a hypothesis whose smallest attainable p is
  // above the level cannot be rejected and need not be counted; the sign-flip test conditions on
  // the units' sizes, so this depends on nothing it tests). Only a count meets it in practice.
  const testable = ratios.some((r) => r !== 0);
  const interval = testable ? hodgesLehmannInterval(ratios, CONFIDENCE) : { estimate: 0, lower: 0, upper: 0, confidence: 1 };
  // With very few units no interval reaches 95%: then the bounds are unknown, so the
  // verdict can never be "unchanged" on too little evidence.
  const reached = interval.confidence >= CONFIDENCE - 1e-9;
  const lower = reached ? interval.lower : Number.NEGATIVE_INFINITY;
  const upper = reached ? interval.upper : Number.POSITIVE_INFINITY;
  // One-sided, towards the estimate: a regression is only ever called in the worse direction (and
  // an improvement in the better one), so alpha bounds the false-fail rate itself. The sign-flip
  // test, not the signed-rank one that the interval inverts: at a dozen start pairs and Holm's
  // level the rank test's coarse steps, and one opposing start ranked high, kept clear drops from
  // failing (docs/method.md, "The statistics").
  const alternative = interval.estimate < 0 ? 'less' : 'greater';
  const test = signFlipTest(ratios, { alternative });
  // Where even the most extreme sign pattern (1/2^n) cannot reach the level (the first of three
  // looks: 8 start pairs against 0.000028), the start pairs that all moved one way are ranked by
  // the t statistic instead, so a large, consistent regression can stop the run at that look
  // (stats/sign-flip.ts, studentizedAgreement). Start pairs only: the unit whose sign is a coin
  // under the null; and ratios only: a share's difference (errors) has the errors rule for that
  // (decisiveErrors). Wherever the sign-flip test can reach, it alone decides.
  const atFloor = starts !== null && ratio && 2 ** -ratios.length >= alpha ? studentizedAgreement(ratios, alternative) : null;
  const p = atFloor === null ? test.p : Math.min(test.p, atFloor);
  const halfWidth = (upper - lower) / 2;
  const equivalence = testable ? hodgesLehmannInterval(ratios, EQUIVALENCE_CONFIDENCE) : interval;
  const equivalent = reached && equivalence.confidence >= EQUIVALENCE_CONFIDENCE - 1e-9;
  return {
    gated: rule.gated,
    limit: rule.limit,
    n: ratios.length,
    pairs: finitePairs,
    ...(startChanges && { starts: startChanges }),
    baseMedian: median(base.filter(Number.isFinite)),
    headMedian: median(head.filter(Number.isFinite)),
    change: reported(interval.estimate),
    ciLow: reported(lower),
    ciHigh: reported(upper),
    eqLow: equivalent ? reported(equivalence.lower) : Number.NEGATIVE_INFINITY,
    eqHigh: equivalent ? reported(equivalence.upper) : Number.POSITIVE_INFINITY,
    p,
    detectable: Number.isFinite(halfWidth)
      ? // one-sided level alpha = two-sided 2·alpha in the formula's terms
        reported(smallestDetectableShift(halfWidth, { confidence: CONFIDENCE, alpha: 2 * alpha }))
      : Number.NaN,
    higherIsBetter,
    noise: {
      pairs: ratio ? pairNoise(base, head) : middleHalf(pairRatios.filter(Number.isFinite)),
      starts: middleHalf((startChanges ?? []).map((s) => s.change)),
      ...(starts && { withinStarts: spreadWithinStarts(pairRatios, starts) }),
    },
    testable,
  };
}

/**
 * The errors metric's verdict where the data settle it without the test: a regression when base
 * answered every request of every slice as expected and in every start pair head's share (its
 * Hodges–Lehmann summary, the unit the test counts) exceeds the limit; an improvement the other
 * way round; null otherwise, and the test decides.
 *
 * Why a rule beside the test: the one-sided sign-flip test over k start pairs reaches at best
 * p = 1/2^k, so below log2(m/alpha) start pairs (5 alone at alpha 0.05, 9 with Holm over 4 gated
 * comparisons at 0.01) it cannot reject even a head that answers 500 to every request, and a
 * short run would pass a route head broke. The test guards the speed metrics against each
 * start's offset and each slice's noise, which move both sides a little; an error share has no
 * such noise on a side that answered every one of its thousands of requests as expected: base
 * shows, in every one of its starts, that the route, the requests, the load and the machine
 * allow a clean answer. Head failing beyond the limit in every start of its own, with no start
 * of base against it, is then what head's code does, not noise. A route that fails on base too
 * (flaky, or under too much load) is left to the test: there both sides' shares move.
 */
function decisiveErrors(base: readonly number[], head: readonly number[], starts: readonly number[], limit: number): Verdict | null {
  const finite = base.map((b, i) => Number.isFinite(b) && Number.isFinite(head[i]!));
  if (!finite.some(Boolean)) return null;
  const keep = <T>(values: readonly T[]) => values.filter((_, i) => finite[i]);
  const [b, h, s] = [keep(base), keep(head), keep(starts)];
  const cleanBeside = (clean: number[], failing: number[]) =>
    clean.every((x) => x === 0) && summarizeStarts(failing, s).every((start) => start.value > limit);
  if (cleanBeside(b, h)) return 'regression';
  if (cleanBeside(h, b)) return 'improvement';
  return null;
}

/**
 * A comparison before Holm's adjustment, tagged with its subject and kind, and the level its
 * verdict is held to (HTTP, health and start-up: the sequential design's nominal level at the
 * look the run stopped, never above alpha; micro-benchmarks: alpha).
 */
type TaggedDraft = { level: number } & (
  | { kind: 'http'; subject: ScenarioRef; draft: Draft<MetricComparison> }
  | { kind: 'health'; subject: ScenarioRef; draft: Draft<RelativeHealthComparison> }
  | { kind: 'startup'; subject: ServiceRef; draft: Draft<StartupComparison> }
  | { kind: 'benchmark'; subject: BenchmarkRef; draft: Draft<BenchmarkComparison> }
);

/** The comparison each kind of paired comparison decides into. */
interface ComparisonOf {
  http: MetricComparison;
  health: RelativeHealthComparison;
  startup: StartupComparison;
  benchmark: BenchmarkComparison;
}

/** A tagged draft decided: its comparison carries pAdjusted and its verdict. */
type Decided =
  | { kind: 'http'; subject: ScenarioRef; comparison: MetricComparison }
  | { kind: 'health'; subject: ScenarioRef; comparison: RelativeHealthComparison }
  | { kind: 'startup'; subject: ServiceRef; comparison: StartupComparison }
  | { kind: 'benchmark'; subject: BenchmarkRef; comparison: BenchmarkComparison };

/**
 * Every paired comparison of the run, in one list: per HTTP metric of each scenario, per
 * micro-benchmark, per service-health metric (assess/health.ts: measured on the same slices as
 * the HTTP metrics, so held to the same level) and per start-up metric (assess/startup.ts: one
 * unit per start pair). Against a stored baseline (results.baseline) the HTTP metrics are
 * compared unpaired, start by start across the two runs; this run's two sides measured the same
 * commit, so health, start-up and micro-benchmarks, which only ever set one side against the
 * other, give no verdict then.
 */
function draftComparisons(results: Results, level: number, inventory: BenchmarkInventory | null): TaggedDraft[] {
  const { config, baseline } = results;
  const http: Draft<MetricComparison>[] = baseline ? unpairedDrafts(results, baseline, level) : [];
  for (const scenario of baseline ? [] : results.scenarios) {
    if (scenario.pairs.length === 0) continue;
    for (const definition of METRIC_DEFINITIONS) {
      const base = scenario.pairs.map((p) => definition.value(p.base));
      const head = scenario.pairs.map((p) => definition.value(p.head));
      const starts = scenario.pairs.map(startOf);
      const rule = ruleFor(config, scenario.name, definition.id);
      const draft = comparePaired(base, head, starts, rule, level, definition.higherIsBetter, definition.scale);
      if (!draft) continue;
      const decided = definition.id === 'errors' ? decisiveErrors(base, head, starts, rule.limit) : null;
      http.push({ metric: definition.id, scenario: scenario.name, ...draft, decided });
    }
  }
  const benchmarks = (inventory?.series ?? []).flatMap((series): TaggedDraft[] => {
    const draft = comparePaired(series.base, series.head, null, config.gate.benchmarks, config.alpha, true);
    const { key, label } = series.identity;
    return draft ? [{ kind: 'benchmark', subject: { type: 'benchmark', key, label }, draft: { ...series.identity, ...draft }, level: config.alpha }] : [];
  });
  const health = (baseline ? [] : healthSeries(results)).flatMap((series): TaggedDraft[] => {
    const draft = comparePaired(series.base, series.head, series.starts, series.rule, level, false);
    const subject: ScenarioRef = { type: 'scenario', scenario: series.scenario };
    return draft ? [{ kind: 'health', subject, draft: { metric: series.metric, scenario: series.scenario, ...draft }, level }] : [];
  });
  const startup = (baseline ? [] : startupSeries(results)).flatMap((series): TaggedDraft[] => {
    const draft = comparePaired(series.base, series.head, null, config.gate[series.metric], level, false);
    return draft ? [{ kind: 'startup', subject: { type: 'service' }, draft: { metric: series.metric, ...draft }, level }] : [];
  });
  return [
    ...http.map((draft): TaggedDraft => ({ kind: 'http', subject: { type: 'scenario', scenario: draft.scenario }, draft, level })),
    ...benchmarks,
    ...health,
    ...startup,
  ];
}

/**
 * Holm's adjustment over one family, the gated comparisons of the whole run (HTTP metrics,
 * micro-benchmarks, service health and start-up alike), then each comparison's verdict at its
 * own level; informational ones keep their own p. An untestable comparison (every unit 0) can
 * never be rejected: it keeps its p of 1 and does not make the others' adjustment stricter
 * (comparePaired). A draft the data settle (decisiveErrors) keeps that verdict.
 */
function decideFamily(drafts: readonly TaggedDraft[], levels: readonly LevelDraft[], level: number): { decided: Decided[]; levels: LevelComparison[] } {
  const family = drafts.filter((d) => d.draft.gated && d.draft.testable !== false);
  // The gated service levels join the same family (assess/levels.ts), held to the HTTP level.
  const levelFamily = levels.filter((l) => l.gated && l.testable);
  const adjusted = holmAdjust([...family.map((d) => d.draft.p), ...levelFamily.map((l) => l.p)]);
  const pAdjusted = new Map<TaggedDraft | LevelDraft, number>([...family, ...levelFamily].map((d, k) => [d, adjusted[k]!]));
  const decided = drafts.map((tagged) => {
    const { testable: _, decided, ...draft } = tagged.draft;
    const withP = { ...draft, pAdjusted: pAdjusted.get(tagged) ?? draft.p };
    const comparison = { ...withP, verdict: decided ?? decideVerdict(withP, tagged.level) };
    return { kind: tagged.kind, subject: tagged.subject, comparison } as Decided;
  });
  const checked = levels.map((draft): LevelComparison => {
    const { testable: _, ...rest } = draft;
    const p = pAdjusted.get(draft) ?? draft.p;
    return { ...rest, pAdjusted: p, verdict: decideLevel(draft, p, level) };
  });
  return { decided, levels: checked };
}

/** Holm's family size per kind of unit, for the underpowered warning (assess/warnings.ts). */
function familySizes(drafts: readonly TaggedDraft[]): { metrics: number; benchmarks: number } {
  const inFamily = drafts.filter((d) => d.draft.gated && d.draft.testable !== false);
  return {
    metrics: inFamily.filter((d) => d.kind === 'http' || d.kind === 'health').length,
    benchmarks: drafts.filter((d) => d.kind === 'benchmark' && d.draft.gated).length,
  };
}

/** The comparisons of one kind, in the order of the list. */
function ofKind<K extends keyof ComparisonOf>(decided: readonly Decided[], kind: K): ComparisonOf[K][] {
  return decided.flatMap((d) => (d.kind === kind ? [d.comparison as ComparisonOf[K]] : []));
}

/**
 * Results → the Assessment, as docs/method.md explains ("The statistics", "The verdicts"): per
 * HTTP metric and per service-health metric, the paired log-ratios ln(head/base) of its slices,
 * and per micro-benchmark those of its processes (one ops/s per process, paired by round); the
 * Hodges–Lehmann estimate with its distribution-free 95% interval; the sign-flip test's p; Holm
 * across the gated comparisons of the whole run. Then assess/health.ts adds the absolute floors,
 * the memory-growth rule and the load-generator check (which can make a throughput verdict
 * inconclusive), and assess/subjects.ts what explains each scenario's verdicts. Pure: the same
 * results always give the same assessment (the CLI's `report` relies on it).
 */
export function assessResults(results: Results, options: CompareOptions = {}): Assessment {
  const level = options.httpLevel ?? httpLevel(results);
  const { baseline } = results;
  const inventory = results.benchmarks && !baseline ? inventoryBenchmarks(results.benchmarks) : null;
  const drafts = draftComparisons(results, level, inventory);
  const { decided, levels } = decideFamily(drafts, levelDrafts(results, level), level);
  const http = ofKind(decided, 'http');
  const health: HealthAnalysis | undefined = baseline ? undefined : analyzeHealth(results, ofKind(decided, 'health'), http);
  // Throughput measured on a generator-bound side cannot support its verdict (nor, at a fixed
  // rate, latency: it counts the generator's own delay).
  const fixedRate = new Set(results.scenarios.filter((s) => s.pairs.some((p) => p.base.offered)).map((s) => s.name));
  const bound = health ? markGeneratorBound(http, health.generator, fixedRate) : http;
  const failingRoutes = new Set(bound.flatMap((c) => (c.metric === 'errors' && c.verdict === 'regression' ? [c.scenario] : [])));
  const comparisons = bound.map((c) => (c.metric === 'errors' ? c : notComparable(c, failingRoutes)));
  if (health) {
    health.comparisons = health.comparisons.map((c) => notComparable(c, failingRoutes));
    health.heap = health.heap.map((c) => notComparable(c, failingRoutes));
  }
  const benchComparisons = ofKind(decided, 'benchmark');
  const benchmarks: BenchmarkAnalysis | undefined = inventory
    ? {
        comparisons: benchComparisons,
        uncompared: inventory.uncompared,
        failures: inventory.failures,
        failing: benchComparisons.filter((c) => c.gated && c.verdict === 'regression'),
        notCompared: inventory.notCompared,
      }
    : undefined;
  const startup = ofKind(decided, 'startup');
  // Outgoing I/O per request says why a verdict moved; it is no verdict itself.
  const io = baseline ? undefined : analyzeIo(results);
  const all = tagAll(comparisons, health, benchComparisons, startup, io);
  const analysis = summarize(results, all, { level, familySizes: familySizes(drafts), benchmarks, health, startup, io, levels });
  return { ...analysis, all, subjects: collectSubjects(results, analysis) };
}

/**
 * An improvement of a scenario whose head fails requests base answered, in its load metrics or
 * in its service health (fewer GCs on a route that now answers an error page), is no improvement:
 * an error page is cheaper than the route's work. It is inconclusive, marked `headFails`, for
 * every reader alike: the counts, the tables, the chart and verdicts.json.
 */
function notComparable<C extends { scenario: string; verdict: Verdict; headFails?: true }>(c: C, failingRoutes: ReadonlySet<string>): C {
  return c.verdict === 'improvement' && failingRoutes.has(c.scenario) ? { ...c, verdict: 'inconclusive', headFails: true } : c;
}

/** The final list: the HTTP comparisons after the generator check, health with its floors, the memory-growth rule, micro-benchmarks, start-up, then I/O. */
function tagAll(
  http: MetricComparison[],
  health: HealthAnalysis | undefined,
  benchmarks: BenchmarkComparison[],
  startup: StartupComparison[],
  io: IoAnalysis | undefined,
): AssessedComparison[] {
  const scenario = (name: string): ScenarioRef => ({ type: 'scenario', scenario: name });
  return [
    ...http.map((comparison): AssessedComparison => ({ kind: 'http', subject: scenario(comparison.scenario), comparison })),
    ...(health?.comparisons ?? []).map((comparison): AssessedComparison => ({ kind: 'health', subject: scenario(comparison.scenario), comparison })),
    ...(health?.heap ?? []).map((comparison): AssessedComparison => ({ kind: 'heap', subject: scenario(comparison.scenario), comparison })),
    ...benchmarks.map((comparison): AssessedComparison => ({ kind: 'benchmark', subject: { type: 'benchmark', key: comparison.key, label: comparison.label }, comparison })),
    ...startup.map((comparison): AssessedComparison => ({ kind: 'startup', subject: { type: 'service' }, comparison })),
    ...(io?.comparisons ?? []).map((comparison): AssessedComparison => ({ kind: 'io', subject: scenario(comparison.scenario), comparison })),
  ];
}

/**
 * The decision and the counts over the one list (I/O is information, no verdict), the warnings,
 * and the per-kind views the tables read. The memory-growth verdicts count like the others,
 * but are no paired test (not in Holm's family).
 */
function summarize(
  results: Results,
  all: readonly AssessedComparison[],
  parts: {
    level: number;
    familySizes: { metrics: number; benchmarks: number };
    benchmarks: BenchmarkAnalysis | undefined;
    health: HealthAnalysis | undefined;
    startup: StartupComparison[];
    io: IoAnalysis | undefined;
    levels: LevelComparison[];
  },
): Analysis {
  const { baseline } = results;
  const { benchmarks, health, startup, io, levels } = parts;
  const verdicts = all.flatMap((entry) => (entry.kind === 'io' ? [] : [entry.comparison]));
  const comparisons = all.flatMap((entry) => (entry.kind === 'http' ? [entry.comparison] : []));
  const failing = comparisons.filter((c) => c.gated && c.verdict === 'regression');
  const tallies = tallyRequests(results);
  // A side that burned CPU while the other was measured decided the verdicts itself: never a pass.
  const unfair = analyzeFairness(results);
  const gatedRegression = verdicts.some((c) => c.gated && c.verdict === 'regression') || levels.some((l) => l.gated && l.verdict === 'fail');
  // A route head broke at its warm-up fails the run without a comparison: no pair was measured.
  const headBroken = headBrokenScenarios(results).map(({ name, method, path, headBroken }) => ({
    scenario: name,
    method,
    path,
    ...headBroken!,
    ...(results.serviceErrors?.head && { logError: results.serviceErrors.head }),
  }));
  return {
    comparisons,
    decision: unfair.length > 0 || gatedRegression || headBroken.length > 0 ? 'fail' : 'pass',
    regressions: verdicts.filter((c) => c.verdict === 'regression').length,
    improvements: verdicts.filter((c) => c.verdict === 'improvement').length,
    failing,
    warnings: [
      ...(baseline ? storedBaselineWarnings(results, baseline) : []),
      ...unfair.map((finding) => ({ code: 'unfair-comparison' as const, message: finding.message })),
      ...analysisWarnings(results, {
        tallies,
        comparisons: [...comparisons, ...(health?.comparisons ?? [])],
        benchmarks,
        health,
        gated: parts.familySizes,
        level: parts.level,
      }),
    ],
    failedRequests: tallies.filter(hasFailures),
    earlyStop: earlyStop(results),
    ...(benchmarks && { benchmarks }),
    ...(health && { health }),
    ...(startup.length > 0 && { startup }),
    ...(io && { io }),
    ...(levels.length > 0 && { levels }),
    ...(unfair.length > 0 && { unfair }),
    ...(headBroken.length > 0 && { headBroken }),
  };
}

/** What a reader must know about a comparison with a stored baseline: first among the warnings. */
function storedBaselineWarnings(results: Results, baseline: StoredBaseline): Analysis['warnings'] {
  const gaps = baselineGaps(results, baseline);
  return [
    { code: 'stored-baseline', message: describeBaseline(baseline) },
    ...(gaps.length > 0
      ? [{ code: 'stored-baseline' as const, message: `The stored baseline has no pairs of ${gaps.join(', ')}: no verdict for ${gaps.length === 1 ? 'it' : 'them'}.` }]
      : []),
  ];
}

/**
 * docs/method.md, "The verdicts": regression = significant and worse than the limit; improvement =
 * significant and better than the limit; unchanged = the whole 90% interval inside ±limit
 * (equivalence, two one-sided tests at 5%); no regression = only its worse end inside the limit
 * (that one-sided test alone: a worsening beyond the limit is ruled out at 5%, an improvement
 * beyond it is not); anything else is inconclusive (the run cannot tell).
 */
export function decideVerdict(
  c: Pick<PairedComparison, 'change' | 'ciLow' | 'ciHigh' | 'eqLow' | 'eqHigh' | 'pAdjusted' | 'limit' | 'higherIsBetter'>,
  alpha: number,
): Verdict {
  const worse = c.higherIsBetter ? -c.change : c.change;
  const significant = c.pAdjusted < alpha;
  if (significant && worse > c.limit) return 'regression';
  if (significant && -worse > c.limit) return 'improvement';
  const { worst, best } = equivalenceEnds(c);
  if (worst < c.limit && best > -c.limit) return 'unchanged';
  if (worst < c.limit) return 'no-regression';
  return 'inconclusive';
}

/** A limit on a difference of shares in percentage points: "1 point", "2.5 points". */
function pointsText(fraction: number): string {
  const points = Number((100 * fraction).toFixed(1));
  return `${points} point${points === 1 ? '' : 's'}`;
}

/** A side's share of a scenario's requests not answered as expected, over all its slices (0 when none failed). */
function sideShare(analysis: Analysis, scenario: string, side: 'base' | 'head'): number {
  const tally = analysis.failedRequests.find((t) => t.scenario === scenario && t.side === side);
  return tally ? errorShare(tally) : 0;
}

/** One line per gated regression, HTTP, micro-benchmarks and service health, for a failed check's message. */
export function describeFailing(analysis: Analysis): string[] {
  return [
    ...(analysis.headBroken ?? []).map((route) => `${route.scenario} (${route.method} ${route.path}): ${describeHeadBroken(route)}, at its first warm-up`),
    ...analysis.failing.map((c) =>
      c.metric === 'errors'
        ? `errors of ${c.scenario}: head ${percentText(sideShare(analysis, c.scenario, 'head'))} of requests not answered as expected, base ${percentText(sideShare(analysis, c.scenario, 'base'))} (limit ${pointsText(c.limit)})`
        : `${c.metric} of ${c.scenario} ${percentText(c.change)} (limit ${percentText(c.limit)})`,
    ),
    ...(analysis.benchmarks?.failing ?? []).map((c) => `benchmark ${c.label} ${percentText(c.change)} (limit ${percentText(c.limit)})`),
    ...(analysis.health?.failing ?? []).map((c) =>
      'metric' in c
        ? `${c.metric} of ${c.scenario} ${percentText(c.change)} (limit ${percentText(c.limit)}${c.min > 0 ? ` and ${c.min / 1000} ms` : ''})`
        : `heap_growth of ${c.scenario} +${c.change.toFixed(2)} MB per 10k requests: possible leak (limit ${c.limit} MB)`,
    ),
    ...(analysis.startup ?? [])
      .filter((c) => c.gated && c.verdict === 'regression')
      .map((c) => `${c.metric} ${percentText(c.change)} (limit ${percentText(c.limit)})`),
    ...failedLevels(analysis).map(
      (l) => `${l.metric} of ${l.scenario} ${levelValueText(l.metric, l.estimate)}, above its service level of ${levelValueText(l.metric, l.max)}`,
    ),
  ];
}

