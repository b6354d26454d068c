/**
 * The sticky pull request comment and the job summary: the markdown report, a line of links to
 * the run's artifacts, and a size limit. Pure: (results, analysis, options) → text.
 *
 * GitHub refuses a comment over 65,536 characters, so a report that does not fit first loses
 * its collapsible details and its unchanged service-health rows, then the chart of the gated
 * changes (it repeats the table's numbers), then its least notable rows (regressions are kept
 * longest), each time with a note that links the full report.
 */
import type { Assessment } from '../assess/types.js';
import type { Results } from '../results/types.js';
import { formatCount } from '../stats/format.js';
import { escapeMarkdown, escapeUrl } from './escape.js';
import { type MarkdownOptions, renderMarkdown } from './markdown.js';
import { type Tone, verdictTone } from './rows.js';
import { orderRows, type ReportRow } from './verdicts.js';

/** GitHub's maximum comment body, in characters. */
export const COMMENT_LIMIT = 65_536;
/** The job summary may hold 1 MiB; half of it in characters leaves room for multi-byte text. */
export const SUMMARY_LIMIT = 512 * 1024;

/** A gate id: it goes into the hidden marker, so it must not be able to close the HTML comment. */
export const GATE_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface ArtifactLink {
  /** What the reader sees (raw text, escaped here). */
  label: string;
  url: string;
  /** The file's path relative to the run directory, for a file results.json names (a flamegraph). */
  file?: string;
}

export interface ReportOptions {
  /** The label that turned a failing decision into a pass, if any. */
  acceptedBy?: string;
  /** The label that would accept a failing run: a failing report says how to use it. */
  acceptLabel?: string;
  /** The workflow run's web address, linked at the end. */
  runUrl?: string;
  /** The repository's web address: the base and head shas link to their commits, own code in the hot-function tables to its lines. */
  repositoryUrl?: string;
  /** Links to the run's artifacts, in the order shown. */
  artifacts?: ArtifactLink[];
  /** The artifact with the complete report, linked when something had to be left out. */
  fullReport?: ArtifactLink;
  /** Characters the text may have (default: a comment's limit). */
  maxChars?: number;
}

/** Most notable first: a row is cut only after every row of a later tone is gone. */
const CUT_ORDER: Tone[] = ['fail', 'warn', 'good', 'unknown', 'neutral'];
/** Hot-function rows per table kept once a report has to shrink (the full report has them all). */
const SHORT_HOT_FUNCTION_ROWS = 3;

/**
 * The hidden first line that identifies perfgate's comment for one gate id, so every run finds
 * and edits the same comment. Report text can never contain it: escapeMarkdown turns `<` into `&lt;`.
 */
export function commentMarker(id: string, workflow: string | null = null): string {
  if (!GATE_ID_PATTERN.test(id)) throw new Error(`Invalid gate id "${id}"`);
  // The workflow that posts the comment (a path of the repository): another workflow's comment,
  // even by the same bot, is not this one's to edit.
  const safeWorkflow = workflow !== null && /^[\w./-]{1,200}$/.test(workflow) && !workflow.includes('--') ? workflow : null;
  return `<!-- perfgate:comment id=${id}${safeWorkflow ? ` workflow=${safeWorkflow}` : ''} -->`;
}

/** A markdown link whose text is escaped; the URL (built by perfgate) gets no parenthesis that could end it. */
function markdownLink(link: ArtifactLink): string {
  return `[${escapeMarkdown(link.label)}](${escapeUrl(link.url)})`;
}

/**
 * The files results.json names (flamegraphs), relative to the run directory: the hot-function
 * sections link them themselves, given their artifact URLs.
 */
export function filesNamedByResults(results: Results): string[] {
  const files = (results.profiles ?? []).flatMap((p) => [p.files.head, p.files.base, p.files.diff]);
  return files.filter((f): f is string => typeof f === 'string');
}

/**
 * The "Artifacts:" line. Files the hot-function sections link are left out while those sections
 * are shown (`linkedElsewhere`), so no link appears twice.
 */
function renderLinks(artifacts: ArtifactLink[], linkedElsewhere: Set<string>): string | undefined {
  const shown = artifacts.filter((a) => a.file === undefined || !linkedElsewhere.has(a.file));
  if (shown.length === 0) return undefined;
  return `**Artifacts:** ${shown.map(markdownLink).join(' · ')}`;
}

/** Where the reader finds what a cut comment leaves out. */
function fullReportPointer(fullReport: ArtifactLink | undefined): string {
  return fullReport ? `the full report is in ${markdownLink(fullReport)}` : "the full report is in this run's job summary";
}

/** The `count` most notable rows: gated regressions first, unchanged metrics last; ties keep display order. */
export function selectNotableRows(rows: ReportRow[], count: number): ReportRow[] {
  const rank = (row: ReportRow) => CUT_ORDER.indexOf(verdictTone(row.comparison));
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => rank(a.row) - rank(b.row) || a.index - b.index)
    .slice(0, count)
    .map((entry) => entry.row);
}

/**
 * The report under `maxChars`: whole if it fits; else without the details; else without the
 * chart too; else with shorter hot-function tables and the most verdict rows that fit; else
 * without hot functions too.
 */
export function renderReport(results: Results, analysis: Assessment, options: ReportOptions = {}): string {
  const max = options.maxChars ?? COMMENT_LIMIT;
  const limit = formatCount(max);
  const pointer = fullReportPointer(options.fullReport);
  const artifacts = options.artifacts ?? [];
  const base: MarkdownOptions = {
    ...(options.acceptedBy !== undefined && { acceptedBy: options.acceptedBy }),
    ...(options.acceptLabel !== undefined && { acceptLabel: options.acceptLabel }),
    ...(options.runUrl !== undefined && { runUrl: options.runUrl }),
    ...(options.repositoryUrl !== undefined && { repositoryUrl: options.repositoryUrl }),
    artifactUrls: Object.fromEntries(artifacts.flatMap((a) => (a.file === undefined ? [] : [[a.file, a.url]]))),
    links: renderLinks(artifacts, new Set(filesNamedByResults(results))),
  };
  const fits = (text: string) => text.length <= max;

  const full = renderMarkdown(results, analysis, base);
  if (fits(full)) return full;

  const collapsed: MarkdownOptions = {
    ...base,
    detailsReplacement: `_Method, noise and warnings are left out to keep this text under ${limit} characters: ${pointer}._`,
    healthRows: 'notable',
  };
  const withoutDetails = renderMarkdown(results, analysis, collapsed);
  if (fits(withoutDetails)) return withoutDetails;

  // From here on the chart is gone: a picture of the numbers is worth less than the numbers.
  const noChart: MarkdownOptions = {
    ...collapsed,
    chart: false,
    detailsReplacement: `_The chart, method, noise and warnings are left out to keep this text under ${limit} characters: ${pointer}._`,
  };
  const withoutChart = renderMarkdown(results, analysis, noChart);
  if (fits(withoutChart)) return withoutChart;

  const total = orderRows(results, analysis).length;
  const withRows = (stage: MarkdownOptions, count: number) =>
    renderMarkdown(results, analysis, {
      ...stage,
      rows: {
        select: (rows) => selectNotableRows(rows, count),
        note: `⚠️ **${formatCount(count)} of ${formatCount(total)} rows shown** (the most notable; unchanged metrics are left out first) to keep this text under ${limit} characters: ${pointer}.`,
      },
    });
  const shortHotFunctions: MarkdownOptions = { ...noChart, hotFunctionRows: SHORT_HOT_FUNCTION_ROWS };
  // Without hot-function sections their flamegraph links go back into the artifacts line.
  const noHotFunctions: MarkdownOptions = { ...noChart, hotFunctionRows: 0, links: renderLinks(artifacts, new Set()) };
  for (const stage of [shortHotFunctions, noHotFunctions]) {
    const text = renderMarkdown(results, analysis, stage);
    if (fits(text)) return text;
    const best = mostRowsThatFit(total, (count) => withRows(stage, count), fits);
    if (best !== null) return best;
  }

  // Only absurdly long names (a crafted results.json) get here: cut the text itself. Every
  // piece of outside text is escaped already, so a cut can break formatting but never inject.
  const note = `\n\n⚠️ **This report was cut** to stay under ${limit} characters: ${pointer}.\n`;
  return cutToLength(withRows(noHotFunctions, 0), max - note.length) + note;
}

/** The text with the most rows (fewer than `total`) that fits, by bisection: more rows never make it shorter. */
function mostRowsThatFit(total: number, render: (count: number) => string, fits: (text: string) => boolean): string | null {
  let best: string | null = null;
  for (let lo = 0, hi = total - 1; lo <= hi; ) {
    const mid = Math.floor((lo + hi) / 2);
    const text = render(mid);
    if (fits(text)) {
      best = text;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

/** The first `length` UTF-16 units (GitHub's count), without splitting a surrogate pair. */
function cutToLength(text: string, length: number): string {
  const cut = text.slice(0, Math.max(0, length));
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** The comment body: the hidden marker, then the report under GitHub's comment limit. */
export function renderComment(results: Results, analysis: Assessment, id: string, options: ReportOptions = {}, workflow: string | null = null): string {
  const marker = `${commentMarker(id, workflow)}\n`;
  return marker + renderReport(results, analysis, { ...options, maxChars: (options.maxChars ?? COMMENT_LIMIT) - marker.length });
}
