/**
 * The details' words on how a run was made and what it could see, as document lines: the method
 * paragraph, the machine, each start pair's own change, the smallest detectable changes, the
 * requests and benchmark files that failed. Names from the pull request and the machine stay
 * outside text, for the printers to escape.
 */
import type { Assessment } from '../../assess/types.js';
import type { Environment, MetricComparison, Results } from '../../results/types.js';
import { formatCount, formatDurationUs, formatInteger, formatPercent } from '../../stats/format.js';
import { formatChangeOf, formatLimit, formatMetricName } from '../format.js';
import type { ReportRow } from '../verdicts.js';
import { describeStopping } from './run-info.js';
import type { Line, List } from './types.js';

function words(text: string): Line {
  return [{ kind: 'label', text }];
}

function outside(text: string): Line {
  return [{ kind: 'text', text }];
}

/** How base and head shared the machine: at once, or alternating in random order; where each ran. */
function describeHow(results: Results): Line {
  const { load } = results.config;
  const slice = formatDurationUs(load.sliceMs * 1000);
  const placement = results.environment.placement;
  const where: Line = placement
    ? [...words(', the load generator on CPU '), ...outside(placement.generator), ...words(' and both services on CPUs '), ...outside(placement.services)]
    : [];
  return load.mode === 'simultaneous'
    ? [...words(`both under load at the same time in ${slice} slices`), ...where, ...words(', so whatever slowed the machine slowed both')]
    : [...words(`load alternated between them in pairs of adjacent ${slice} slices, each pair in a random order (seed ${formatInteger(results.seed)})`), ...where];
}

/** The HTTP part of the method: how the sides were started and paired; nothing without scenarios. */
function describeHttpMethod(results: Results): Line {
  if (results.scenarios.length === 0) return [];
  const { blocks, instances } = results.config.load;
  const starts = blocks * instances;
  const started =
    starts === 1 ? 'once' : `${formatInteger(starts)} times (${formatInteger(blocks)} ${blocks === 1 ? 'block' : 'blocks'} of ${formatInteger(instances)} fresh ${instances === 1 ? 'start' : 'starts'} each)`;
  return [
    { kind: 'label', text: 'Method.', strong: true },
    ...words(' Base and head ran side by side on this runner: '),
    ...describeHow(results),
    ...words(
      `. Each side was started ${started}, and each pair was served by one start of base and one of head. Every start of a service carries its own offset, so the start pair is the unit: its pairs are summarised by their Hodges–Lehmann estimate, and the statistics count start pairs, not slices.`,
    ),
  ];
}

/** Two or three plain paragraphs' worth of sentences a reviewer can check the numbers against, as one line. */
export function methodLine(results: Results): Line {
  const http = describeHttpMethod(results);
  const health = results.scenarios.some((s) => s.pairs.some((p) => p.base.health || p.head.health))
    ? [
        'Service health was measured inside the service during the same slices; its paired metrics get the same test, an event-loop delay must also be worse by its absolute minimum, and heap growth is judged by the trend of post-GC heap against the requests served.',
      ]
    : [];
  const benchmarks = results.benchmarks
    ? [
        `Micro-benchmarks ran in rounds: each round ran every benchmark file once on base and once on head, each time in a fresh process, the two adjacent and in a random order (seed ${formatInteger(results.seed)}); each process gave one number per benchmark, its mean ops/s, and the rounds are the pairs.`,
      ]
    : [];
  const sentences = [
    ...health,
    ...benchmarks,
    'Each change is the Hodges–Lehmann estimate over those units of the log-ratio head/base with its distribution-free 95% interval, tested with the one-sided sign-flip test (Fisher–Pitman);',
    `p-values of gated metrics are Holm-adjusted at α = ${results.config.alpha}.`,
    'A metric regresses (or improves) when its change is significant and beyond its limit, is unchanged when its 90% interval lies within ±limit (two one-sided tests at 5%), shows no regression when only the worse end of that interval does, and is inconclusive otherwise.',
  ];
  const stopping = describeStopping(results);
  // A run of micro-benchmarks alone opens its method with them.
  const lead: Line = http.length === 0 && results.benchmarks ? [{ kind: 'label', text: 'Method.', strong: true }, ...words(' ')] : http.length === 0 ? [] : [...http, ...words(' ')];
  return [...lead, ...words(sentences.join(' ')), ...(stopping === null ? [] : [...words(' '), ...stopping])];
}

/** The machine the run measured on. */
export function environmentList(env: Environment): List {
  return {
    title: 'Environment',
    items: [
      [...words(`CPU: ${formatInteger(env.cpus)} × `), ...outside(env.cpuModel)],
      [...words('Node: '), ...outside(env.nodeVersion), ...words(', flags: '), ...(env.nodeFlags.length === 0 ? words('none') : outside(env.nodeFlags.join(' ')))],
      [...words('OS: '), ...outside(env.os), ...words(' ('), ...outside(env.arch), ...words(`), ${formatCount(env.totalMemoryMb)} MB memory`)],
    ],
  };
}

/** Each start pair's own change of the gated metrics, so a reader sees whether the starts agree; null when no metric has several start pairs that moved. */
export function startsList(rows: ReportRow[]): List | null {
  const items = rows
    .map((row) => row.comparison)
    // a row of zeros (errors neither side had) says nothing
    .filter((c) => c.gated && c.starts && c.starts.length > 1 && c.starts.some((s) => s.change !== 0))
    .map((c): Line => [...outside(c.scenario), ...words(` ${formatMetricName(c.metric)}: ${c.starts!.map((s) => formatChangeOf(c.metric, s.change)).join(', ')}`)]);
  return items.length === 0 ? null : { title: 'Each start pair', lead: ', its own change (the Hodges–Lehmann estimate of its pairs), in the order they ran:', items };
}

/** A gated metric the run could not decide: how small a change it could have seen, and each start pair's own change. */
function detectableLines(c: MetricComparison): Line[] {
  const beyond = c.detectable > c.limit ? ', larger than the limit' : '';
  const detectable: Line = [
    ...words('smallest detectable change, '),
    ...outside(c.scenario),
    ...words(` ${formatMetricName(c.metric)}: ${formatLimit(c.metric, c.detectable)} (limit ${formatLimit(c.metric, c.limit)}${beyond})`),
  ];
  const starts = c.starts && c.starts.length > 1 ? [words(`  each start pair: ${c.starts.map((s) => formatChangeOf(c.metric, s.change)).join(' ')}`)] : [];
  return [detectable, ...starts];
}

/** The range over all compared micro-benchmarks: one line, however many there are. */
function benchmarkDetectable(analysis: Assessment): Line[] {
  const comparisons = (analysis.benchmarks?.comparisons ?? []).filter((c) => Number.isFinite(c.detectable));
  if (comparisons.length === 0) return [];
  const values = comparisons.map((c) => c.detectable);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const range = formatPercent(low) === formatPercent(high) ? formatPercent(low) : `${formatPercent(low)} to ${formatPercent(high)}`;
  const limit = comparisons[0]!.limit;
  const beyond = high <= limit ? '' : comparisons.length === 1 || low > limit ? ', larger than the limit' : ', some larger than the limit';
  return [words(`smallest detectable change, micro-benchmarks: ${range} (limit ${formatPercent(limit)}${beyond})`)];
}

/** The smallest detectable change where it explains a verdict: a gated metric the run could not decide, and the micro-benchmarks' range. */
export function detectableList(rows: ReportRow[], analysis: Assessment): Line[] {
  return [...rows.filter((r) => r.comparison.gated && r.comparison.verdict === 'inconclusive').flatMap((r) => detectableLines(r.comparison)), ...benchmarkDetectable(analysis)];
}

/** The requests each side failed, per scenario: a list for a view without the failures table. */
export function failedRequestsList(analysis: Pick<Assessment, 'failedRequests'>): List | null {
  const tallies = analysis.failedRequests;
  if (tallies.length === 0) return null;
  return {
    title: 'Failed requests',
    items: tallies.map((t): Line => [
      ...outside(t.scenario),
      ...words(` ${t.side}: ${formatCount(t.non2xx)} non-2xx, ${formatCount(t.errors)} errors, ${formatCount(t.timeouts)} timeouts of ${formatCount(t.requests)} requests`),
    ]),
  };
}

/** The benchmark files that failed: which, on which side, in how many runs; their stderr as excerpts (each view shows what fits it). */
export function benchmarkFailuresList(analysis: Assessment): List | null {
  const failures = analysis.benchmarks?.failures ?? [];
  if (failures.length === 0) return null;
  return {
    title: 'Benchmark files that failed',
    items: failures.map((f): Line => [{ kind: 'text', text: f.file, strong: true }, ...words(` on ${f.side}, failed in ${f.failedRounds.length} of ${f.runs} runs: `)]),
    excerpts: failures.map((f) => f.message),
  };
}
