/**
 * What every renderer says about the verdicts: row order, counts, the decision and the tone of
 * each verdict. Renderers only choose how it looks (emoji and markdown, or symbols and colour).
 */
import type { Assessment } from '../assess/types.js';
import { METRICS } from '../config/types.js';
import { errorShare } from '../results/errors.js';
import type {
  Analysis,
  BenchmarkComparison,
  HealthComparison,
  HeapGrowthComparison,
  MetricComparison,
  PairedComparison,
  Results,
  ScenarioResults,
  UncomparedBenchmark,
} from '../results/types.js';
import { formatPercent } from '../stats/format.js';
import { formatChangeOf, formatLimit, formatMetricChange, formatMetricName } from './format.js';
import { failedLevelLimits, levelsClear, undecidedLevels } from './document/levels.js';
import { describeHealthFailure, describeHealthLimit, formatHealthMetricName } from './health.js';
import { type Tone, verdictTone } from './rows.js';

/** How a view makes outside text safe inside perfgate's words: escapeMarkdown, or sanitizeText for a terminal. */
export type Escape = (text: string) => string;

export interface VerdictCounts {
  regressions: number;
  gatedRegressions: number;
  improvements: number;
  unchanged: number;
  inconclusive: number;
  gatedInconclusive: number;
}

/** A comparison in display order; `firstOfScenario` starts a scenario's group of rows. */
export interface ReportRow {
  comparison: MetricComparison;
  firstOfScenario: boolean;
  /** A fixed-rate scenario's rate in words ("at a fixed 200 req/s"), on each of its rows; absent for a closed-loop one. */
  rate?: string;
  /** The scenario's errors regressed: head fails requests base answered, so its other rows measure failures. */
  headFails?: boolean;
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
    const headFails = own.some((c) => c.metric === 'errors' && c.verdict === 'regression');
    const rate = rateInWords(results.scenarios.find((s) => s.name === scenario)?.rate);
    return own.sort(byGateThenMetric).map((comparison, i) => ({ comparison, firstOfScenario: i === 0, ...(rate && { rate }), ...(headFails && { headFails }) }));
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

/**
 * A row's tone: its verdict's, except that an improvement of a scenario whose head fails
 * requests base answered is not one: an error page is cheaper than the route's work, so the
 * faster head measures its failures (rowVerdictNote says so).
 */
export function rowTone(row: ReportRow): Tone {
  const tone = verdictTone(row.comparison);
  return tone === 'good' && row.headFails && row.comparison.metric !== 'errors' ? 'unknown' : tone;
}

/** What the verdict cell says instead of "improvement" for such a row. */
export const FAILING_IMPROVEMENT = 'not comparable: head fails requests';

/**
 * Every verdict of the Assessment's one list (I/O is information, no verdict). An HTTP
 * improvement of a scenario whose head fails requests counts as inconclusive, as its row reads
 * (rowTone): the counts and the chart must agree with the table.
 */
export function allComparisons(analysis: Pick<Assessment, 'all'>): Pick<PairedComparison, 'verdict' | 'gated'>[] {
  const failing = new Set(
    analysis.all.flatMap((e) => (e.kind === 'http' && e.comparison.metric === 'errors' && e.comparison.verdict === 'regression' ? [e.subject.scenario] : [])),
  );
  return analysis.all.flatMap((e) => {
    if (e.kind === 'io') return [];
    const c = e.comparison;
    const headFails = e.kind === 'http' && c.verdict === 'improvement' && e.comparison.metric !== 'errors' && failing.has(e.subject.scenario);
    return [headFails ? { verdict: 'inconclusive' as const, gated: c.gated } : c];
  });
}

/** Counts over every comparison shown, so the headline always agrees with the tables. */
export function countVerdicts(comparisons: readonly Pick<PairedComparison, 'verdict' | 'gated'>[]): VerdictCounts {
  const count = (keep: (c: Pick<PairedComparison, 'verdict' | 'gated'>) => boolean) => comparisons.filter(keep).length;
  return {
    regressions: count((c) => c.verdict === 'regression'),
    gatedRegressions: count((c) => c.verdict === 'regression' && c.gated),
    improvements: count((c) => c.verdict === 'improvement'),
    unchanged: count((c) => c.verdict === 'unchanged'),
    inconclusive: count((c) => c.verdict === 'inconclusive'),
    gatedInconclusive: count((c) => c.verdict === 'inconclusive' && c.gated),
  };
}

function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}

/**
 * "1 regression", or "2 regressions (1 gated)" when some cannot fail the build: on a run whose
 * ungated rows are folded away, a reader must not go looking for what the gate never weighed.
 */
function describeGated(text: string, all: number, gated: number): string {
  if (gated === all) return text;
  return `${text} (${gated === 0 ? 'none' : gated} gated)`;
}

/** "1 regression · 1 improvement · 5 unchanged" (+ "· 2 inconclusive" when any, "(none gated)" when no gated one is). */
export function describeCounts(counts: VerdictCounts): string {
  const parts = [
    describeGated(plural(counts.regressions, 'regression'), counts.regressions, counts.gatedRegressions),
    plural(counts.improvements, 'improvement'),
    `${counts.unchanged} unchanged`,
  ];
  if (counts.inconclusive > 0) parts.push(describeGated(`${counts.inconclusive} inconclusive`, counts.inconclusive, counts.gatedInconclusive));
  return parts.join(' · ');
}

/**
 * The limits that failed the build, once per metric and limit, in metric order, then the
 * micro-benchmarks' and service health's: "throughput limit 5%", "micro-benchmark limit 10%",
 * "event-loop delay p99 limit 50% and 10 ms".
 */
function describeFailingLimits(
  failing: MetricComparison[],
  benchmarks: BenchmarkComparison[],
  health: (HealthComparison | HeapGrowthComparison)[],
): string[] {
  const ordered = [...failing].sort((a, b) => METRICS.indexOf(a.metric) - METRICS.indexOf(b.metric));
  const limits = ordered.map((c) => `${formatMetricName(c.metric)} limit ${formatLimit(c.metric, c.limit)}`);
  limits.push(...benchmarks.map((c) => `micro-benchmark limit ${formatPercent(c.limit)}`));
  limits.push(...health.map(describeHealthLimit));
  return [...new Set(limits)];
}

/** Listed names: the first few, then how many more. */
function listSome(items: readonly string[], shown = 2): string {
  const more = items.length - shown;
  return more > 0 ? `${items.slice(0, shown).join('; ')}; and ${more} more` : items.join('; ');
}

/**
 * "failing (throughput limit 5%)" or "passing", then what could not be compared:
 * "passing; 1 micro-benchmark could not be compared: parse (bench/parse.bench.js failed on head)".
 * The names come from the PR's code: they go through the renderer's `escapeText`.
 */
export function describeDecision(analysis: Analysis, escapeText: Escape): string {
  let text = 'passing';
  if (analysis.decision === 'fail') {
    const limits = [...describeFailingLimits(analysis.failing, analysis.benchmarks?.failing ?? [], analysis.health?.failing ?? []), ...failedLevelLimits(analysis)];
    text = limits.length === 0 ? 'failing' : `failing (${limits.join(', ')})`;
  } else {
    // A pass is not "unchanged": a gated metric the run could not decide is said here.
    const undecided = [
      // errors first: a route that may fail matters more than a speed the run could not tell
      ...analysis.comparisons
        .filter((c) => c.gated && c.verdict === 'inconclusive')
        .sort((a, b) => Number(b.metric === 'errors') - Number(a.metric === 'errors'))
        .map((c) => `${c.scenario} ${formatMetricName(c.metric)}`),
      ...(analysis.health?.comparisons ?? [])
        .filter((c) => c.gated && c.verdict === 'inconclusive')
        .map((c) => `${c.scenario} ${formatHealthMetricName(c.metric)}`),
      ...(analysis.health?.heap ?? []).filter((c) => c.gated && c.verdict === 'inconclusive').map((c) => `${c.scenario} heap growth`),
      ...(analysis.benchmarks?.comparisons ?? []).filter((c) => c.gated && c.verdict === 'inconclusive').map((c) => `micro-benchmark ${c.label}`),
      ...undecidedLevels(analysis),
    ];
    if (undecided.length > 0) text += `, but inconclusive: ${escapeText(listSome(undecided))}`;
  }
  const notCompared = analysis.benchmarks?.notCompared ?? [];
  if (notCompared.length > 0) {
    const what = notCompared.length === 1 ? '1 micro-benchmark' : `${notCompared.length} micro-benchmarks`;
    text += `; ${what} could not be compared: ${escapeText(listSome(notCompared))}`;
  }
  return text;
}

/**
 * "GET /hello throughput −12.6% (limit 2%)": a gated change with the limit it is judged against.
 * Errors read as what head answered: "GET /users/:id answered 33.3% errors (base 0%, limit 1 pt):
 * mostly 500", each side's share over all its requests (the verdict's estimate is the typical
 * start pair's difference; the shares are what a reader checks against the service's log).
 */
export function describeLimitedChange(c: MetricComparison, escapeText: Escape, analysis?: Pick<Analysis, 'failedRequests'>): string {
  if (c.metric === 'errors' && analysis) {
    const shares = errorShares(analysis, c.scenario);
    // The body is the service's own text: escaped like every name from the pull request.
    const quoted = shares.answer ? ` "${escapeText(shares.answer)}"` : '';
    const mostly = shares.mostly === null ? '' : `: mostly ${shares.mostly}${quoted}`;
    return `${escapeText(c.scenario)} answered ${formatPercent(shares.head)} errors (base ${formatPercent(shares.base)}, limit ${formatLimit(c.metric, c.limit)})${mostly}`;
  }
  return `${escapeText(c.scenario)} ${formatMetricName(c.metric)} ${formatChangeOf(c.metric, c.change)} (limit ${formatLimit(c.metric, c.limit)})`;
}

export interface ErrorShares {
  /** Each side's share of the scenario's requests not answered as expected, over all its slices. */
  base: number;
  head: number;
  /** What most of head's failures were: an unexpected status ("500"), "no answer" (connection errors and timeouts), or null when head had none. */
  mostly: string | null;
  /** The start of a body head answered with that status, when one was sampled (ScenarioResults.unexpectedAnswer); else null. Unescaped. */
  answer: string | null;
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
  return { base: share('base'), head: share('head'), mostly, answer };
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

/**
 * The headline's answer, decision first: "failing: GET /users/:id throughput −38.6% (limit 2%):
 * most new time in resolvePermissions (server.js:25)", "passing: largest gated change GET /hello
 * latency p99 +1.2% (limit 5%)", or the decision's own words when no HTTP change leads it (a
 * micro-benchmark or health limit failed; something was inconclusive). `culpritOf` gives the
 * culprit's text of a scenario, or null.
 */
export function describeAnswer(analysis: Analysis, escapeText: Escape, culpritOf: (scenario: string) => string | null): string {
  const unfair = analysis.unfair?.[0];
  if (unfair) {
    // Before any verdict: the verdicts of an unfair run measure the interference, not the code.
    const whose = unfair.side === 'head' ? 'head' : 'base';
    const other = unfair.side === 'head' ? 'base' : 'head';
    return `not a fair comparison: ${whose}'s idle service used ${Number((unfair.idleCoreShare * 100).toFixed(1))}% of a core more while ${other} was measured; no verdict (see the warnings)`;
  }
  const decision = describeDecision(analysis, escapeText);
  const worst = worstGatedChange(analysis);
  const health = analysis.health?.failing[0];
  if (worst === null && analysis.decision === 'fail' && health) {
    // No HTTP metric failed: the service-health limit that did leads, with the scenario's culprit.
    const culprit = culpritOf(health.scenario);
    const more = (analysis.health?.failing.length ?? 0) - 1 + (analysis.benchmarks?.failing.length ?? 0);
    const others = more > 0 ? ` (and ${more} more gated regression${more === 1 ? '' : 's'})` : '';
    return `failing: ${escapeText(describeHealthFailure(health))}${culprit ? `: ${escapeText(culprit)}` : ''}${others}`;
  }
  if (worst === null) return decision;
  if (analysis.decision === 'fail') {
    const culprit = culpritOf(worst.scenario);
    const more = analysis.failing.length - 1 + (analysis.benchmarks?.failing.length ?? 0) + (analysis.health?.failing.length ?? 0);
    const others = more > 0 ? ` (and ${more} more gated regression${more === 1 ? '' : 's'})` : '';
    return `failing: ${describeLimitedChange(worst, escapeText, analysis)}${culprit ? `: ${escapeText(culprit)}` : ''}${others}`;
  }
  return decision === 'passing' ? `passing: largest gated change ${describeLimitedChange(worst, escapeText, analysis)}` : decision;
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
 * metrics, micro-benchmarks, service health) is unchanged, with no health hint and no
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
    gated.every((c) => c.verdict === 'unchanged') &&
    (analysis.health?.hints.length ?? 0) === 0 &&
    (analysis.benchmarks?.uncompared.length ?? 0) === 0 &&
    levelsClear(analysis)
  );
}

/**
 * What a run where nothing changed says in its one line: "all 4 gated metrics are unchanged (GET
 * /hello: throughput +0.4% (−2.1 … +2.7); …)", the gated changes of the first three scenarios.
 */
export function describeNothingChanged(analysis: Assessment, escapeText: Escape): string {
  const byScenario = new Map<string, MetricComparison[]>();
  for (const c of analysis.comparisons.filter((c) => c.gated)) byScenario.set(c.scenario, [...(byScenario.get(c.scenario) ?? []), c]);
  const scenarios = [...byScenario.entries()].map(
    ([scenario, cs]) =>
      `${escapeText(scenario)}: ${cs
        // errors that neither side had would only add "+0 pt (0 … 0)" to every scenario
        .filter((c) => !(c.metric === 'errors' && c.baseMedian === 0 && c.headMedian === 0 && c.change === 0))
        .map((c) => `${formatMetricName(c.metric)} ${formatMetricChange(c)}`)
        .join(', ')}`,
  );
  const shown = scenarios.slice(0, 3);
  if (scenarios.length > shown.length) shown.push(`and ${scenarios.length - shown.length} more scenarios`);
  const count = allComparisons(analysis).filter((c) => c.gated).length;
  return `${count === 1 ? 'the gated metric is' : `all ${count} gated metrics are`} unchanged${shown.length > 0 ? ` (${shown.join('; ')})` : ''}`;
}
