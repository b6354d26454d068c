/**
 * The markdown body of the PR comment and the job summary. Pure: (results, analysis) → text.
 * Everything that comes from the user's code or config goes through escapeMarkdown.
 */
import type { Analysis, Environment, MetricComparison, Results } from '../results/types.js';
import {
  escapeMarkdown,
  formatChange,
  formatCount,
  formatDurationUs,
  formatInterval,
  formatMetricName,
  formatPercent,
  formatValue,
} from './format.js';
import { collectWarnings, describeIncomplete, describeSetup, describeSides } from './run-info.js';
import { noiseBand, tallyFailures } from './samples.js';
import { countVerdicts, describeCounts, describeDecision, orderRows, type ReportRow, type Tone, verdictTone } from './verdicts.js';

export interface MarkdownOptions {
  /** Replaces "perfgate" in the heading, e.g. to name a shard or a service. */
  title?: string;
}

const VERDICT_CELLS: Record<Tone, string> = {
  fail: '❌ regression',
  warn: '⚠️ regression',
  good: '✅ improvement',
  neutral: 'unchanged',
  unknown: '❔ inconclusive',
};

/** One table row; cells must already be escaped. */
function tableRow(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** A header row and its delimiter row; `r` in `align` right-aligns a column (numbers). */
function tableHead(headers: string[], align: string): string {
  const delimiters = headers.map((_, i) => (align[i] === 'r' ? '--:' : ':--'));
  return [tableRow(headers), tableRow(delimiters)].join('\n');
}

/** The scenario on the first row of its group only, so groups stand out. */
function scenarioCell(row: ReportRow): string {
  return row.firstOfScenario ? escapeMarkdown(row.comparison.scenario) : '';
}

/** Gated metrics are bold (the legend says so). */
function metricCell(c: MetricComparison): string {
  const name = formatMetricName(c.metric);
  return c.gated ? `**${name}**` : name;
}

function renderHeadline(results: Results, analysis: Analysis, title: string): string {
  const counts = describeCounts(countVerdicts(analysis.comparisons));
  const decision = `${analysis.decision === 'pass' ? '✅' : '❌'} ${describeDecision(analysis)}`;
  const incomplete = results.status === 'complete' ? '' : ' · ⚠️ incomplete run';
  return `## ${escapeMarkdown(title)}: ${counts} — ${decision}${incomplete}`;
}

function renderIncomplete(results: Results): string | null {
  const text = describeIncomplete(results, escapeMarkdown);
  return text === null ? null : `> ⚠️ **Incomplete run:** ${text}`;
}

function renderMethodLine(results: Results): string {
  return `${describeSides(results, escapeMarkdown)} · ${describeSetup(results, escapeMarkdown)}`;
}

function renderComparisonRow(row: ReportRow): string {
  const c = row.comparison;
  return tableRow([
    scenarioCell(row),
    metricCell(c),
    formatValue(c.metric, c.baseMedian),
    formatValue(c.metric, c.headMedian),
    `${formatChange(c.change)} ${formatInterval(c.ciLow, c.ciHigh)}`,
    VERDICT_CELLS[verdictTone(c)],
  ]);
}

function renderTable(rows: ReportRow[]): string {
  if (rows.length === 0) return '_Nothing was compared: no pair was measured._';
  const head = tableHead(['scenario', 'metric', 'base', 'head', 'change (95% CI)', 'verdict'], 'llrrll');
  return [head, ...rows.map(renderComparisonRow)].join('\n');
}

/** What bold means, and a pointer to the warnings (they sit in the details). */
function renderLegend(hasRows: boolean, warningCount: number): string | null {
  const parts = hasRows
    ? ['**Bold** metrics are gated: they fail the build when they regress significantly beyond their limit; the others are information.']
    : [];
  if (warningCount > 0) parts.push(`⚠️ ${warningCount === 1 ? '1 warning' : `${warningCount} warnings`} below.`);
  return parts.length === 0 ? null : parts.join(' ');
}

/** Two or three plain sentences a reviewer can check the numbers against. */
function renderMethod(results: Results): string {
  const { load } = results.config;
  const slice = formatDurationUs(load.sliceMs * 1000);
  const blocks = load.blocks === 1 ? 'in 1 block (one start of each service)' : `over ${load.blocks} blocks (both services restarted between blocks)`;
  return [
    `**Method.** Base and head ran side by side on this runner; load alternated between them in pairs of adjacent ${slice} slices, each pair in a random order (seed ${results.seed}), ${blocks}.`,
    'Each change is the Hodges–Lehmann median of the paired log-ratios head/base with its distribution-free 95% interval, tested with the Wilcoxon signed-rank test;',
    `p-values of gated metrics are Holm-adjusted at α = ${results.config.alpha}.`,
    'A metric regresses (or improves) when its change is significant and beyond its limit, is unchanged when its whole interval lies within ±limit, and is inconclusive otherwise.',
  ].join(' ');
}

/** Detectable change beyond the limit: this run could not have seen a change of that size. */
function detectableCell(c: MetricComparison): string {
  const text = formatPercent(c.detectable);
  return c.detectable > c.limit ? `${text} ⚠️` : text;
}

function renderNoiseRow(results: Results, row: ReportRow): string {
  const c = row.comparison;
  const band = noiseBand(results, c.scenario, c.metric);
  return tableRow([
    scenarioCell(row),
    metricCell(c),
    band === null ? 'n/a' : formatInterval(band.q1, band.q3),
    detectableCell(c),
    formatPercent(c.limit),
    formatCount(c.n),
  ]);
}

function renderNoise(results: Results, rows: ReportRow[]): string | null {
  if (rows.length === 0) return null;
  const intro =
    '**Noise.** The middle half of the per-pair changes shows how much one pair moves on this machine; the smallest detectable change is what this run could have caught (80% power), next to the limit a change must exceed. ⚠️ marks a limit finer than the run could resolve.';
  const head = tableHead(['scenario', 'metric', 'per-pair change, middle half (%)', 'smallest detectable', 'limit', 'pairs used'], 'llrrrr');
  return [intro, '', head, ...rows.map((row) => renderNoiseRow(results, row))].join('\n');
}

function renderEnvironment(env: Environment): string {
  const flags = env.nodeFlags.length === 0 ? 'none' : escapeMarkdown(env.nodeFlags.join(' '));
  return [
    '**Environment.**',
    `- CPU: ${env.cpus} × ${escapeMarkdown(env.cpuModel)}`,
    `- Node: ${escapeMarkdown(env.nodeVersion)}, flags: ${flags}`,
    `- OS: ${escapeMarkdown(env.os)} (${escapeMarkdown(env.arch)}), ${formatCount(env.totalMemoryMb)} MB memory`,
  ].join('\n');
}

function renderWarnings(results: Results, analysis: Analysis): string | null {
  const warnings = collectWarnings(results, analysis);
  if (warnings.length === 0) return null;
  const items = warnings.map((w) => {
    const where = w.scenario === undefined ? '' : `${escapeMarkdown(w.scenario)}: `;
    return `- ${where}${escapeMarkdown(w.message)} _(${escapeMarkdown(w.code)})_`;
  });
  return ['**Warnings.**', ...items].join('\n');
}

function renderFailures(results: Results): string | null {
  const tallies = tallyFailures(results);
  if (tallies.length === 0) return null;
  const head = tableHead(['scenario', 'side', 'requests', 'non-2xx', 'errors', 'timeouts'], 'llrrrr');
  const rows = tallies.map((t) =>
    tableRow([escapeMarkdown(t.scenario), t.side, ...[t.requests, t.non2xx, t.errors, t.timeouts].map(formatCount)]),
  );
  return ['**Failed requests.**', '', head, ...rows].join('\n');
}

function renderDetails(results: Results, analysis: Analysis, rows: ReportRow[]): string {
  const body = [
    renderMethod(results),
    renderNoise(results, rows),
    renderEnvironment(results.environment),
    renderWarnings(results, analysis),
    renderFailures(results),
  ].filter((part) => part !== null);
  return ['<details><summary>Method, noise and warnings</summary>', ...body, '</details>'].join('\n\n');
}

/** The markdown body: headline, method line, verdict table, details, footer. */
export function renderMarkdown(results: Results, analysis: Analysis, options: MarkdownOptions = {}): string {
  const rows = orderRows(results, analysis);
  const sections = [
    renderHeadline(results, analysis, options.title ?? 'perfgate'),
    renderIncomplete(results),
    renderMethodLine(results),
    renderTable(rows),
    renderLegend(rows.length > 0, collectWarnings(results, analysis).length),
    renderDetails(results, analysis, rows),
    `<sub>perfgate ${escapeMarkdown(results.tool.version)}</sub>`,
  ];
  return sections.filter((s) => s !== null).join('\n\n') + '\n';
}
