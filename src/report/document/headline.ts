/**
 * The headline in words, as document lines: the decision with the change that leads it and its
 * culprit, the other regressed scenarios, the counts, and the one line of a run where nothing
 * changed. Names from the pull request (scenarios, benchmarks, a culprit, an answer's body) stay
 * outside text, for the printers to escape.
 */
import type { Assessment } from '../../assess/types.js';
import { METRICS } from '../../config/types.js';
import type { Analysis, BenchmarkComparison, HeadBrokenRoute, HealthComparison, HeapGrowthComparison, LoggedError, MetricComparison, Results } from '../../results/types.js';
import { headBrokenParts } from '../../results/errors.js';
import { formatPercent, truncate } from '../../stats/format.js';
import { formatChangeOf, formatLimit, formatMetricChange, formatMetricName } from '../format.js';
import { describeHealthFailure, describeHealthLimit, formatHealthMetricName } from '../health.js';
import { regressionCulprits } from './function-words.js';
import { betterSideOpen, HEAP_OPEN } from '../rows.js';
import { allComparisons, countVerdicts, errorShares, type VerdictCounts, worstGatedChange } from '../verdicts.js';
import { failedLevelLimits, undecidedLevels } from './levels.js';
import { describeBaseCommands, describeIncomplete } from './run-info.js';
import type { Headline, Line } from './types.js';

function words(text: string): Line {
  return [{ kind: 'label', text }];
}

function outside(text: string): Line {
  return [{ kind: 'text', text }];
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

/** "1 regression · 1 improvement · 5 unchanged" (+ "· 1 no regression" and "· 2 inconclusive" when any, "(none gated)" when no gated one is). */
export function describeCounts(counts: VerdictCounts): string {
  const parts = [
    describeGated(plural(counts.regressions, 'regression'), counts.regressions, counts.gatedRegressions),
    plural(counts.improvements, 'improvement'),
    `${counts.unchanged} unchanged`,
  ];
  if (counts.noRegression > 0) parts.push(`${counts.noRegression} no regression`);
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

/** The gated metrics a passing run could not decide, errors first: a route that may fail matters more than a speed the run could not tell. */
function undecided(analysis: Analysis): string[] {
  return [
    ...analysis.comparisons
      .filter((c) => c.gated && c.verdict === 'inconclusive')
      .sort((a, b) => Number(b.metric === 'errors') - Number(a.metric === 'errors'))
      .map((c) => `${c.scenario} ${formatMetricName(c.metric)}`),
    ...(analysis.health?.comparisons ?? []).filter((c) => c.gated && c.verdict === 'inconclusive').map((c) => `${c.scenario} ${formatHealthMetricName(c.metric)}`),
    ...(analysis.health?.heap ?? []).filter((c) => c.gated && c.verdict === 'inconclusive').map((c) => `${c.scenario} heap growth`),
    ...(analysis.benchmarks?.comparisons ?? []).filter((c) => c.gated && c.verdict === 'inconclusive').map((c) => `micro-benchmark ${c.label}`),
    ...undecidedLevels(analysis),
  ];
}

/**
 * "failing (throughput limit 5%)" or "passing", then what could not be compared:
 * "passing; 1 micro-benchmark could not be compared: parse (bench/parse.bench.js failed on head)".
 * The lists name scenarios and benchmarks from the PR's code: outside text.
 */
export function decisionLine(analysis: Analysis): Line {
  let line: Line = words('passing');
  if (analysis.decision === 'fail') {
    const limits = [...describeFailingLimits(analysis.failing, analysis.benchmarks?.failing ?? [], analysis.health?.failing ?? []), ...failedLevelLimits(analysis)];
    line = words(limits.length === 0 ? 'failing' : `failing (${limits.join(', ')})`);
  } else {
    // A pass is not "unchanged": a gated metric the run could not decide is said here.
    const names = undecided(analysis);
    if (names.length > 0) line = [...line, ...words(', but inconclusive: '), ...outside(listSome(names))];
  }
  const notCompared = analysis.benchmarks?.notCompared ?? [];
  if (notCompared.length > 0) {
    const what = notCompared.length === 1 ? '1 micro-benchmark' : `${notCompared.length} micro-benchmarks`;
    line = [...line, ...words(`; ${what} could not be compared: `), ...outside(listSome(notCompared))];
  }
  return line;
}

/**
 * "GET /hello throughput −12.6% (limit 2%)": a gated change with the limit it is judged against.
 * Errors read as what head answered: "GET /users/:id answered 33.3% errors (base 0%, limit 1 pt):
 * mostly 500", each side's share over all its requests (the verdict's estimate is the typical
 * start pair's difference; the shares are what a reader checks against the service's log).
 */
export function limitedChangeLine(c: MetricComparison, analysis?: Pick<Analysis, 'failedRequests'>): Line {
  if (c.metric === 'errors' && analysis) {
    const shares = errorShares(analysis, c.scenario);
    // The body is the service's own text: outside text like every name from the pull request.
    const quoted: Line = shares.answer ? [...words(' "'), ...outside(truncate(shares.answer, QUOTE_CHARS)), ...words('"')] : [];
    const mostly: Line = shares.mostly === null ? [] : [...words(`: mostly ${shares.mostly}`), ...quoted];
    return [
      ...outside(c.scenario),
      ...words(` answered ${formatPercent(shares.head)} errors (base ${formatPercent(shares.base)}, limit ${formatLimit(c.metric, c.limit)})`),
      ...mostly,
      ...loggedErrorLine(shares.logError),
    ];
  }
  return [...outside(c.scenario), ...words(` ${formatMetricName(c.metric)} ${formatChangeOf(c.metric, c.change)} (limit ${formatLimit(c.metric, c.limit)})`)];
}

/** How head broke a route, its answer's body outside text (the service's own). */
function headBrokenLine(route: HeadBrokenRoute): Line {
  return headBrokenParts(route).map((part) => (part.quoted ? { kind: 'text' as const, text: truncate(part.text, QUOTE_CHARS) } : { kind: 'label' as const, text: part.text }));
}

/** How much of a body or a logged error the headline quotes: enough for the message, short enough for one line. */
const QUOTE_CHARS = 120;

/** A logged error's line that names it (`TypeError: user is undefined`), past Node's source place and caret above it. */
const ERROR_LINE = /^\s*(?:Uncaught\s+)?[\w.$]*(?:Error|Exception)\b/;

/**
 * "; head's log: "TypeError: user is undefined" at server.js:12 (logs/head.log line 7)": the
 * service's own account of the failure, which the answered status and body seldom give (a
 * framework's error page hides the stack). Nothing when head logged no error.
 */
function loggedErrorLine(error: LoggedError | null): Line {
  if (!error) return [];
  const lines = error.text.split('\n');
  const named = (lines.find((line) => ERROR_LINE.test(line)) ?? lines.find((line) => line.trim()) ?? '').trim();
  return [
    ...words("; head's log: \""),
    ...outside(truncate(named, QUOTE_CHARS)),
    ...words('"'),
    ...(error.place ? [...words(' at '), ...outside(error.place)] : []),
    ...words(` (${error.log} line ${error.line})`),
  ];
}

/** " (and 2 more gated regressions)", or nothing for none. */
function others(more: number): Line {
  return more > 0 ? words(` (and ${more} more gated regression${more === 1 ? '' : 's'})`) : [];
}

function culpritAfter(culprit: string | null): Line {
  return culprit ? [...words(': '), ...outside(culprit)] : [];
}

/**
 * The headline's answer, decision first: "failing: GET /users/:id throughput −38.6% (limit 2%):
 * most new time in resolvePermissions (server.js:25)", "passing: largest gated change GET /hello
 * latency p99 +1.2% (limit 5%)", or the decision's own words when no HTTP change leads it (a
 * micro-benchmark or health limit failed; something was inconclusive). `culpritOf` gives the
 * culprit's text of a scenario, or null.
 */
export function answerLine(analysis: Analysis, culpritOf: (scenario: string) => string | null): Line {
  const unfair = analysis.unfair?.[0];
  if (unfair) {
    // Before any verdict: the verdicts of an unfair run measure the interference, not the code.
    const whose = unfair.side === 'head' ? 'head' : 'base';
    const other = unfair.side === 'head' ? 'base' : 'head';
    return words(`not a fair comparison: ${whose}'s idle service used ${Number((unfair.idleCoreShare * 100).toFixed(1))}% of a core more while ${other} was measured; no verdict (see the warnings)`);
  }
  const broken = analysis.headBroken?.[0];
  if (broken) {
    // Before any measured change: head broke a route, so the run stopped at its warm-up.
    const more = (analysis.headBroken?.length ?? 0) - 1;
    return [
      ...words('failing: '),
      ...outside(broken.scenario),
      ...words(': '),
      ...headBrokenLine(broken),
      ...(more > 0 ? words(`; ${plural(more, 'more route')} head broke`) : []),
      ...words('; the run stopped at the first warm-up'),
      ...loggedErrorLine(broken.logError ?? null),
    ];
  }
  const decision = decisionLine(analysis);
  const worst = worstGatedChange(analysis);
  const health = analysis.health?.failing[0];
  if (worst === null && analysis.decision === 'fail' && health) {
    // No HTTP metric failed: the service-health limit that did leads, with the scenario's culprit.
    const more = (analysis.health?.failing.length ?? 0) - 1 + (analysis.benchmarks?.failing.length ?? 0);
    return [...words('failing: '), ...outside(describeHealthFailure(health)), ...culpritAfter(culpritOf(health.scenario)), ...others(more)];
  }
  if (worst === null) return decision;
  if (analysis.decision === 'fail') {
    const more = analysis.failing.length - 1 + (analysis.benchmarks?.failing.length ?? 0) + (analysis.health?.failing.length ?? 0);
    return [...words('failing: '), ...limitedChangeLine(worst, analysis), ...culpritAfter(culpritOf(worst.scenario)), ...others(more)];
  }
  const passing = decision.length === 1 && decision[0]!.text === 'passing';
  return passing ? [...words('passing: largest gated change '), ...limitedChangeLine(worst, analysis)] : decision;
}

/**
 * The headline of a run; `accepted` is the pull request label that turned its failing decision
 * into a pass (a view that shows labels passes it), said before the answer.
 */
export function headline(results: Results, analysis: Assessment, accepted: string | null = null): Headline {
  const culprits = regressionCulprits(analysis);
  const culpritOf = (scenario: string) => culprits.find((c) => c.scenario === scenario)?.culprit?.text ?? null;
  const answer = answerLine(analysis, culpritOf);
  // The answer's own scenario is said in it when the run fails on it.
  const lead = analysis.decision === 'fail' ? worstGatedChange(analysis) : null;
  const why = describeIncomplete(results, analysis);
  return {
    mark: accepted !== null ? 'warn' : analysis.decision === 'pass' ? 'good' : 'fail',
    answer: accepted === null ? answer : [...words('accepted by label '), { kind: 'text', text: accepted, strong: true }, ...words(': '), ...answer],
    others: [
      // The routes head broke after the one the answer names, each in its own words.
      ...(analysis.headBroken ?? []).slice(1).map((route) => ({ about: route.scenario, found: false, line: headBrokenLine(route) })),
      ...culprits
        .filter((c) => c.scenario !== lead?.scenario)
        .map((c) => ({
          about: c.scenario,
          found: c.culprit !== null,
          line: [...outside(c.regression), ...(c.culprit ? [...words(' · '), ...outside(c.culprit.text)] : [])],
        })),
    ],
    // A route head broke is a gated regression that no comparison holds: the counts say it with the rest.
    counts: describeCounts(countVerdicts([...allComparisons(analysis), ...(analysis.headBroken ?? []).map(() => ({ verdict: 'regression' as const, gated: true }))])),
    incomplete: why === null ? null : { flag: 'incomplete run', why },
    baseCommands: describeBaseCommands(results),
  };
}

/**
 * The gated metrics open only on the better side, each with what it leaves open: "POST /orders
 * throughput: an improvement of up to +2.4% not ruled out". Names from the pull request stay
 * outside text.
 */
function openBetterLines(analysis: Assessment): Line[] {
  return analysis.all.flatMap((e): Line[] => {
    if (e.kind === 'io' || !e.comparison.gated || e.comparison.verdict !== 'no-regression') return [];
    const open = e.kind === 'heap' ? HEAP_OPEN : betterSideOpen(e.comparison);
    const [about, what] =
      e.kind === 'http'
        ? [e.subject.scenario, formatMetricName(e.comparison.metric)]
        : e.kind === 'health'
          ? [e.subject.scenario, formatHealthMetricName(e.comparison.metric)]
          : e.kind === 'heap'
            ? [e.subject.scenario, 'heap growth']
            : e.kind === 'benchmark'
              ? [e.comparison.label, 'micro-benchmark']
              : ['start-up', e.comparison.metric.replace(/_/g, ' ')];
    return [[...outside(about), ...words(` ${what}: ${open}`)]];
  });
}

/**
 * What a run where nothing changed says in its one line: "all 4 gated metrics are unchanged (GET
 * /hello: throughput +0.4% (−2.1 … +2.7); …)", the gated changes of the first three scenarios.
 * Where some gated metric is open only on the better side, the line says so and names it: "No
 * regression beyond its limit: 3 of 4 gated metrics are unchanged and 1 shows no regression
 * (POST /orders throughput: an improvement of up to +2.4% not ruled out) (…)."
 */
export function nothingChangedLine(analysis: Assessment): Line {
  const byScenario = new Map<string, MetricComparison[]>();
  for (const c of analysis.comparisons.filter((c) => c.gated)) byScenario.set(c.scenario, [...(byScenario.get(c.scenario) ?? []), c]);
  const scenarios = [...byScenario.entries()].map(([scenario, cs]): Line => [
    ...outside(scenario),
    ...words(
      `: ${cs
        // errors that neither side had would only add "+0 pt (0 … 0)" to every scenario
        .filter((c) => !(c.metric === 'errors' && c.baseMedian === 0 && c.headMedian === 0 && c.change === 0))
        .map((c) => `${formatMetricName(c.metric)} ${formatMetricChange(c)}`)
        .join(', ')}`,
    ),
  ]);
  const shown = scenarios.slice(0, 3);
  if (scenarios.length > shown.length) shown.push(words(`and ${scenarios.length - shown.length} more scenarios`));
  const count = allComparisons(analysis).filter((c) => c.gated).length;
  const joined = (lines: Line[]): Line => [...words(' ('), ...lines.flatMap((line, i) => (i === 0 ? line : [...words('; '), ...line])), ...words(')')];
  const list: Line = shown.length > 0 ? joined(shown) : [];
  const open = openBetterLines(analysis);
  if (open.length === 0) {
    return [{ kind: 'label', text: 'Nothing changed beyond its limit:', strong: true }, ...words(` ${count === 1 ? 'the gated metric is' : `all ${count} gated metrics are`} unchanged`), ...list, ...words('.')];
  }
  const openNamed = open.length > 3 ? [...open.slice(0, 3), words(`and ${open.length - 3} more`)] : open;
  return [
    { kind: 'label', text: 'No regression beyond its limit:', strong: true },
    ...words(` ${count - open.length} of ${count} gated metrics ${count - open.length === 1 ? 'is' : 'are'} unchanged and ${open.length} ${open.length === 1 ? 'shows' : 'show'} no regression`),
    ...joined(openNamed),
    ...list,
    ...words('.'),
  ];
}

/** Said above everything when a label accepted the failing decision, so a green check never hides an accepted regression. */
export function acceptedNote(accepted: string): Line {
  return [
    { kind: 'label', text: 'Regression accepted.', strong: true },
    ...words(' The label '),
    { kind: 'text', text: accepted, strong: true },
    ...words(' is on this pull request, so the gated regression below passes the check instead of failing it. Remove the label to gate again.'),
  ];
}

/** How a failing run is accepted: the label `acceptLabel` on the pull request. */
export function howToAcceptLine(acceptLabel: string): Line {
  return [
    ...words('If this regression is intended, add the label '),
    { kind: 'text', text: acceptLabel, strong: true },
    ...words(' to the pull request: the check then passes and this comment says it was accepted.'),
  ];
}

/** The incomplete run's reason under its flag: "Incomplete run: the run failed: …". */
export function incompleteNote(why: Line): Line {
  return [{ kind: 'label', text: 'Incomplete run:', strong: true }, ...words(' '), ...why];
}
