/**
 * The markdown body of the PR comment and the job summary. Pure: (results, analysis) → text.
 * Everything that comes from the user's code or config goes through escapeMarkdown.
 */

import type { Assessment } from '../assess/types.js';
import type { Results } from '../results/types.js';
import { benchmarkRows } from './benchmarks.js';
import { chartSection } from './document/chart.js';
import { escapeMarkdown } from './escape.js';
import { healthRows } from './health.js';
import { benchmarkNoiseTable, failuresTable, noiseTable } from './document/noise.js';
import { hotFunctionsSection } from './document/hot-functions.js';
import { benchmarkIntro, benchmarkTable, healthIntro, healthTable, verdictTable } from './document/tables.js';
import { LEVELS_METHOD, LEVELS_TITLE, levelTable } from './document/levels.js';
import { hintItems } from './document/hints.js';
import { ioSection } from './document/io.js';
import { acceptedNote, headline, howToAcceptLine, incompleteNote, nothingChangedLine } from './document/headline.js';
import { describeSetup, describeSides } from './document/run-info.js';
import { warningsList } from './document/warnings.js';
import { benchmarkFailuresList, environmentList, methodLine, startsList } from './document/method.js';
import { markdownCharts } from './print/mermaid.js';
import { markdownHeadline, markdownHotFunctions, markdownIntro, markdownItem, markdownLine, markdownList, markdownNote, markdownTable, markdownTableSection } from './print/markdown.js';
import { requestSection } from './document/requests.js';
import { nothingChanged, orderRows, type ReportRow } from './verdicts.js';

export interface MarkdownOptions {
  /** Replaces "perfgate" in the heading, e.g. to name a shard or a service. */
  title?: string;
  /**
   * The pull request label that turned a failing decision into a pass (raw text): the headline
   * and a warning under it say so, so a green check never hides an accepted regression.
   */
  acceptedBy?: string;
  /** The label that would accept a failing run (raw text): a failing report says how to use it. */
  acceptLabel?: string;
  /** The workflow run's web address: the last line links to it. */
  runUrl?: string;
  /** A line of links after the verdict table, already markdown (the run's artifacts). */
  links?: string;
  /** Leaves out the collapsible details and shows this markdown line instead (to fit a size limit). */
  detailsReplacement?: string;
  /** Shows only the rows `select` keeps (they stay in display order) and `note` under the table (to fit a size limit). */
  rows?: { select(rows: ReportRow[]): ReportRow[]; note: string };
  /**
   * Links for the files a run writes next to results.json, by their path relative to the run
   * directory as results.json names them (results.profiles[].files: the flamegraphs). A file
   * without a URL is named as text.
   */
  artifactUrls?: Record<string, string>;
  /**
   * The repository's web address (https://github.com/owner/name): the base and head shas link to
   * their commits, and own functions in the hot-function tables to their line at the measured
   * commit. Default: from results.github; none for a work tree with uncommitted changes.
   */
  repositoryUrl?: string;
  /** Rows per hot-function table (default 10); 0 leaves the hot-function sections out (to fit a size limit). */
  hotFunctionRows?: number;
  /** 'notable' keeps only the service-health rows that are not unchanged, and the hints (to fit a size limit). Default 'all'. */
  healthRows?: 'all' | 'notable';
  /** false leaves out the chart of the gated changes (to fit a size limit: it repeats the table's numbers). Default true. */
  chart?: boolean;
}

/** Whether an accept label turns this run's failing decision into a pass. */
function acceptedLabel(analysis: Assessment, options: MarkdownOptions): string | null {
  return analysis.decision === 'fail' && options.acceptedBy ? options.acceptedBy : null;
}

function renderAccepted(accepted: string | null): string | null {
  return accepted === null ? null : markdownNote(acceptedNote(accepted));
}

function renderHowToAccept(analysis: Assessment, accepted: string | null, options: MarkdownOptions): string | null {
  if (analysis.decision !== 'fail' || accepted !== null || !options.acceptLabel) return null;
  return markdownLine(howToAcceptLine(options.acceptLabel));
}

/** The repository's web address: the caller's, else the one the action recorded in results.json; null for neither. */
function repositoryOf(results: Results, options: MarkdownOptions): string | null {
  const repository = options.repositoryUrl ?? (results.github ? `https://github.com/${results.github.repository}` : null);
  return repository === null ? null : repository.replace(/\/+$/, '');
}

function renderMethodLine(results: Results, analysis: Assessment, options: MarkdownOptions): string {
  return `${markdownLine(describeSides(results, repositoryOf(results, options)))} · ${markdownLine(describeSetup(results, analysis))}`;
}

function renderTable(rows: ReportRow[], limit: MarkdownOptions['rows']): string {
  if (rows.length === 0) return '_Nothing was compared: no pair was measured._';
  if (limit === undefined) return markdownTable(verdictTable(rows));
  const kept = new Set(limit.select(rows));
  return [markdownTable(verdictTable(rows.filter((row) => kept.has(row)))), limit.note].join('\n\n');
}

/** The "Micro-benchmarks" table: one row per benchmark, compared or listed. */
function renderBenchmarks(results: Results, analysis: Assessment): string | null {
  if (!results.benchmarks) return null;
  const rows = benchmarkRows(analysis);
  const intro = markdownIntro(benchmarkIntro(results));
  if (rows.length === 0) return `${intro}

_No micro-benchmark gave a number on either side._`;
  return [intro, '', markdownTable(benchmarkTable(rows))].join('\n');
}

/** The service levels' table, when the run has levels. */
function renderLevels(analysis: Assessment): string | null {
  const table = levelTable(analysis);
  return table && [`**${LEVELS_TITLE}** · ${LEVELS_METHOD}`, '', markdownTable(table)].join('\n');
}

/** What bold means, and a pointer to the warnings (they sit in the details). */
function renderLegend(hasRows: boolean, warningCount: number, hasBenchmarks = false): string | null {
  const what = hasBenchmarks ? 'metrics and micro-benchmarks are' : 'metrics are';
  const parts = hasRows
    ? [
        `**Bold** ${what} gated: they fail the build when they regress significantly beyond their limit; the others are information. Base and head are each side's median; the change is paired: the typical head/base change of the start pairs (Hodges–Lehmann), not the ratio of the medians.`,
      ]
    : [];
  if (warningCount > 0) parts.push(`⚠️ ${warningCount === 1 ? '1 warning' : `${warningCount} warnings`} below.`);
  return parts.length === 0 ? null : parts.join(' ');
}

function renderNoise(rows: ReportRow[]): string | null {
  if (rows.length === 0) return null;
  const intro =
    '**Noise.** The middle half of the per-pair and of the per-start changes shows how much one pair and one start pair move on this machine; the smallest detectable change is what this run could have caught (80% power), next to the limit a change must exceed. ⚠️ marks a limit finer than the run could resolve.';
  const starts = startsList(rows);
  return [[intro, '', markdownTable(noiseTable(rows))].join('\n'), starts === null ? null : markdownList(starts)].filter(Boolean).join('\n\n');
}

function renderFailures(analysis: Assessment): string | null {
  const tallies = analysis.failedRequests;
  if (tallies.length === 0) return null;
  return ['**Failed requests.**', '', markdownTable(failuresTable(analysis))].join('\n');
}

function renderBenchmarkNoise(analysis: Assessment): string | null {
  if ((analysis.benchmarks?.comparisons ?? []).length === 0) return null;
  return ['**Micro-benchmark noise.** How much one round moves (processes differ more than samples inside one process do), and the smallest change this run could have caught.', '', markdownTable(benchmarkNoiseTable(analysis))].join('\n');
}

function renderDetails(results: Results, analysis: Assessment, rows: ReportRow[]): string {
  const warnings = warningsList(analysis);
  const benchmarkFailures = benchmarkFailuresList(analysis);
  const body = [
    markdownLine(methodLine(results)),
    renderNoise(rows),
    renderBenchmarkNoise(analysis),
    markdownList(environmentList(results.environment)),
    warnings === null ? null : markdownList(warnings),
    renderFailures(analysis),
    benchmarkFailures === null ? null : markdownList(benchmarkFailures),
  ].filter((part) => part !== null);
  return ['<details><summary>Method, noise and warnings</summary>', ...body, '</details>'].join('\n\n');
}

/* ---------- service health ---------- */

/** The "Service health" table and its hints; null when the run has no health data. */
function renderHealth(results: Results, analysis: Assessment, mode: MarkdownOptions['healthRows']): string | null {
  const rows = healthRows(results, analysis);
  const hints = hintItems(analysis);
  if (rows.length === 0 && hints.length === 0) return null;
  const shown = mode === 'notable' ? rows.filter((r) => r.notable) : rows;
  const parts = [markdownIntro(healthIntro(results))];
  if (shown.length > 0) {
    parts.push(markdownTable(healthTable(shown)));
  }
  if (shown.length < rows.length) parts.push('_Unchanged health metrics are left out to keep this text short._');
  if (hints.length > 0) {
    parts.push(hints.map(markdownItem).join('\n'));
  }
  return parts.join('\n\n');
}

/** The "I/O per request" section; null when the run counted no outgoing I/O. */
export function renderIoMarkdown(analysis: Assessment): string | null {
  const section = ioSection(analysis);
  if (section === null) return null;
  return [markdownIntro(section.intro), ...section.items.map((line) => `- ${markdownLine(line)}`)].join('\n');
}

/**
 * The markdown body: headline, method line, the chart of the gated changes, verdict table,
 * details, footer. When nothing changed, one line says so and the chart and tables fold away, so
 * the comment stays a few lines long.
 */
export function renderMarkdown(results: Results, analysis: Assessment, options: MarkdownOptions = {}): string {
  const rows = orderRows(results, analysis);
  const accepted = acceptedLabel(analysis, options);
  const top = headline(results, analysis, accepted);
  const chart = options.chart === false ? null : markdownCharts(chartSection(results, analysis));
  const tables = [
    // A project with micro-benchmarks alone has no HTTP table.
    results.scenarios.length > 0 || !results.benchmarks ? renderTable(rows, options.rows) : null,
    renderBenchmarks(results, analysis),
    renderLevels(analysis),
    renderLegend(rows.length > 0 || benchmarkRows(analysis).length > 0, analysis.warnings.length, results.benchmarks !== undefined),
  ];
  const requests = requestSection(results);
  const inside = [
    requests === null ? null : markdownTableSection(requests),
    renderHealth(results, analysis, options.healthRows),
    renderIoMarkdown(analysis),
    markdownHotFunctions(
      hotFunctionsSection(results, analysis, { rows: options.hotFunctionRows, repository: repositoryOf(results, options), artifactUrls: options.artifactUrls }),
    ),
  ];
  const quiet = nothingChanged(results, analysis);
  // A clean pass folds the chart away with the tables: a picture of every change inside its
  // limit is what the one visible line already says, and the fold is what keeps that comment short.
  const folded = [chart, ...tables, ...inside].filter((s) => s !== null);
  const sections = [
    markdownHeadline(top, options.title ?? 'perfgate'),
    renderAccepted(accepted),
    renderHowToAccept(analysis, accepted, options),
    top.incomplete === null ? null : markdownNote(incompleteNote(top.incomplete.why)),
    renderMethodLine(results, analysis, options),
    ...(quiet
      ? [markdownLine(nothingChangedLine(analysis)), options.links ?? null, `<details><summary>Every metric${inside.some((s) => s !== null) ? ', service health and hot functions' : ''}</summary>\n\n${folded.join('\n\n')}\n\n</details>`]
      : [chart, ...tables, options.links ?? null, ...inside]),
    options.detailsReplacement ?? renderDetails(results, analysis, rows),
    `<sub>perfgate ${escapeMarkdown(results.tool.version)}${options.runUrl ? ` · [workflow run](${options.runUrl})` : ''}</sub>`,
  ];
  return sections.filter((s) => s !== null).join('\n\n') + '\n';
}
