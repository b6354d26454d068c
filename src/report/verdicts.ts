/**
 * The verdicts as every view orders and counts them: row order, counts, the change that leads
 * the headline, a failing route's error shares, and whether nothing changed. Their words are the
 * document's (report/document/headline.ts).
 */
import type { Assessment } from '../assess/types.js';
import { METRICS } from '../config/types.js';
import { errorShare } from '../results/errors.js';
import type {
  Analysis,
  LoggedError,
  BenchmarkComparison,
  MetricComparison,
  PairedComparison,
  Results,
  ScenarioResults,
  UncomparedBenchmark,
} from '../results/types.js';
import { levelsClear } from './document/levels.js';
import { verdictTone } from './rows.js';

export interface VerdictCounts {
  regressions: number;
  gatedRegressions: number;
  improvements: number;
  unchanged: number;
  /** Open only on the better side: a worsening beyond the limit ruled out, an improvement not. */
  noRegression: number;
  inconclusive: number;
  gatedInconclusive: number;
}

/** A comparison in display order; `firstOfScenario` starts a scenario's group of rows. */
export interface ReportRow {
  comparison: MetricComparison;
  firstOfScenario: boolean;
  /** A fixed-rate scenario's rate in words ("at a fixed 200 req/s"), on each of its rows; absent for a closed-loop one. */
  rate?: string;
}

/** Scenarios in the order they ran, then any only the analysis knows of. */
function scenarioOrder(results: Results, comparisons: MetricComparison[]): string[] {
  const names = results.scenarios.map((s) => s.name);
  for (const c of comparisons) if (!names.includes(c.scenario)) names.push(c.scenario);
  return names;
}

/** Gated before informational, then the fixed metric order (throughput, latency, CPU). */
function byGateThenMetric(a: MetricComparison, b: MetricComparison): number {
  if (a.gated !== b.gated) return a.gated ? -1 : 1;
  return METRICS.indexOf(a.metric) - METRICS.indexOf(b.metric);
}

/** Rows grouped by scenario (run order); within a scenario gated metrics come first. */
export function orderRows(results: Results, analysis: Analysis): ReportRow[] {
  return scenarioOrder(results, analysis.comparisons).flatMap((scenario) => {
    const own = analysis.comparisons.filter((c) => c.scenario === scenario);
    const rate = rateInWords(results.scenarios.find((s) => s.name === scenario)?.rate);
    return own.sort(byGateThenMetric).map((comparison, i) => ({ comparison, firstOfScenario: i === 0, ...(rate && { rate }) }));
  });
}

/**
 * A fixed-rate scenario's rate in words: its latencies and CPU are read at that load, not at the
 * most the service can take, so the reader must see it beside the numbers. A rate set as a share
 * of capacity also says which capacity.
 */
export function rateInWords(rate: ScenarioResults['rate']): string | undefined {
  if (!rate) return undefined;
  const perSecond = (n: number) => `${Math.round(n).toLocaleString('en-US')} req/s`;
  const share = rate.source === 'capacity' && rate.baseCapacity ? ` (${Math.round((rate.perSecond / rate.baseCapacity) * 100)}% of base's ${perSecond(rate.baseCapacity)})` : '';
  return `at a fixed ${perSecond(rate.perSecond)}${share}`;
}

/** Every verdict of the Assessment's one list (I/O is information, no verdict). */
export function allComparisons(analysis: Pick<Assessment, 'all'>): Pick<PairedComparison, 'verdict' | 'gated'>[] {
  return analysis.all.flatMap((e) => (e.kind === 'io' ? [] : [e.comparison]));
}

/** Counts over every comparison shown, so the headline always agrees with the tables. */
export function countVerdicts(comparisons: readonly Pick<PairedComparison, 'verdict' | 'gated'>[]): VerdictCounts {
  const count = (keep: (c: Pick<PairedComparison, 'verdict' | 'gated'>) => boolean) => comparisons.filter(keep).length;
  return {
    regressions: count((c) => c.verdict === 'regression'),
    gatedRegressions: count((c) => c.verdict === 'regression' && c.gated),
    improvements: count((c) => c.verdict === 'improvement'),
    unchanged: count((c) => c.verdict === 'unchanged'),
    noRegression: count((c) => c.verdict === 'no-regression'),
    inconclusive: count((c) => c.verdict === 'inconclusive'),
    gatedInconclusive: count((c) => c.verdict === 'inconclusive' && c.gated),
  };
}

export interface ErrorShares {
  /** Each side's share of the scenario's requests not answered as expected, over all its slices. */
  base: number;
  head: number;
  /** What most of head's failures were: an unexpected status ("500"), "no answer" (connection errors and timeouts), or null when head had none. */
  mostly: string | null;
  /** The start of a body head answered with that status, when one was sampled (ScenarioResults.unexpectedAnswer); else null. Unescaped. */
  answer: string | null;
  /** The first error head's service logged, when it failed requests (FailureTally.logError); else null. Unescaped. */
  logError: LoggedError | null;
}

/** A scenario's error shares per side, from the failed-request tallies (a side without any failure has none there: 0). */
export function errorShares(analysis: Pick<Analysis, 'failedRequests'>, scenario: string): ErrorShares {
  const tally = (side: 'base' | 'head') => analysis.failedRequests.find((t) => t.scenario === scenario && t.side === side);
  const share = (side: 'base' | 'head') => {
    const t = tally(side);
    return t ? errorShare(t) : 0;
  };
  const head = tally('head');
  let mostly: string | null = null;
  let answer: string | null = null;
  if (head) {
    const [status, count] = Object.entries(head.statuses ?? {}).sort(([, a], [, b]) => b - a)[0] ?? [null, 0];
    if (head.errors > count) mostly = 'no answer (connection errors, timeouts)';
    else if (status !== null) {
      mostly = status;
      if (head.answer && String(head.answer.status) === status && head.answer.body) answer = head.answer.body;
    }
  }
  return { base: share('base'), head: share('head'), mostly, answer, logError: head?.logError ?? null };
}

/** How far a change went in the worse direction, in limits (2: twice the limit worse; negative: better). */
function limitsWorse(c: MetricComparison): number {
  return ((c.higherIsBetter ? -1 : 1) * c.change) / c.limit;
}

/**
 * The change the headline leads with: on a failing run the gated HTTP regression furthest past
 * its limit; on a passing one the gated change that went furthest the worse way (null when
 * every gated change improved, or nothing was compared).
 */
export function worstGatedChange(analysis: Analysis): MetricComparison | null {
  const pool = analysis.decision === 'fail' ? analysis.failing : analysis.comparisons.filter((c) => c.gated && limitsWorse(c) > 0);
  // A failing route leads a failing run, whatever its speed did: an error page is often faster.
  const errorsFirst = (c: MetricComparison) => (analysis.decision === 'fail' && c.metric === 'errors' ? 1 : 0);
  return [...pool].sort((a, b) => errorsFirst(b) - errorsFirst(a) || limitsWorse(b) - limitsWorse(a))[0] ?? null;
}

/** Micro-benchmark rows in display order: compared (file order), then added, removed, failed. */
export function orderBenchmarkRows(analysis: Analysis): (BenchmarkComparison | UncomparedBenchmark)[] {
  const benchmarks = analysis.benchmarks;
  if (!benchmarks) return [];
  const uncompared = (['added', 'removed', 'failed'] as const).flatMap((status) =>
    benchmarks.uncompared.filter((b) => b.status === status),
  );
  return [...benchmarks.comparisons, ...uncompared];
}

/**
 * Nothing for a reviewer to look at: a complete, passing run whose every gated comparison (HTTP
 * metrics, micro-benchmarks, service health) is unchanged or, open only on the better side, no
 * regression (nothingChangedLine names those), with no health hint and no
 * micro-benchmark left uncompared. Both reports then fold their tables away. The informational
 * rows do not keep a run open: there are several per scenario, each decided at the run's level
 * without a gate's correction, so on a pull request that changed nothing one of them is often
 * inconclusive or marked by chance; they stay one command (or one click) away.
 */
export function nothingChanged(results: Results, analysis: Assessment): boolean {
  const gated = allComparisons(analysis).filter((c) => c.gated);
  return (
    results.status === 'complete' &&
    analysis.decision === 'pass' &&
    gated.length > 0 &&
    gated.every((c) => c.verdict === 'unchanged' || c.verdict === 'no-regression') &&
    (analysis.health?.hints.length ?? 0) === 0 &&
    (analysis.benchmarks?.uncompared.length ?? 0) === 0 &&
    levelsClear(analysis)
  );
}

/**
 * The rows a reader needs first, and the scenarios that need only a line. A scenario whose every
 * row is unchanged says nothing the one line of its gated changes does not; of any other, the
 * rows that moved or could not be decided carry the story, and its unchanged rows wait in the
 * full table with every other number.
 */
export function splitStoryRows(rows: readonly ReportRow[]): { story: ReportRow[]; unchanged: ReportRow[][] } {
  const scenarios = new Map<string, ReportRow[]>();
  for (const row of rows) scenarios.set(row.comparison.scenario, [...(scenarios.get(row.comparison.scenario) ?? []), row]);
  const story: ReportRow[] = [];
  const unchanged: ReportRow[][] = [];
  for (const own of scenarios.values()) {
    const moved = own.filter((row) => verdictTone(row.comparison) !== 'neutral');
    if (moved.length === 0) unchanged.push(own);
    else story.push(...moved.map((row, i) => ({ ...row, firstOfScenario: i === 0 })));
  }
  return { story, unchanged };
}
