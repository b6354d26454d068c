/**
 * Metric-aware formatting and markdown-safe text shared by every renderer (markdown, terminal).
 * Plain numbers are formatted by stats/format.ts.
 */
import type { MetricId } from '../config/types.js';
import {
  formatChange,
  formatDurationUs,
  formatInteger,
  formatInterval,
  formatPercent,
  formatPoints,
  formatRate,
} from '../stats/format.js';

/** Inserted after `@` and `#` (and into `://`, `www.`, `GH-`) so GitHub neither pings, links an issue, nor autolinks. */
const ZERO_WIDTH_JOINER = '\u200D';

const METRIC_NAMES: Record<MetricId, string> = {
  throughput: 'throughput',
  latency_p50: 'latency p50',
  latency_p90: 'latency p90',
  latency_p99: 'latency p99',
  latency_p999: 'latency p99.9',
  cpu_per_request: 'CPU / request',
  errors: 'errors',
};

/** The name readers see: throughput, latency p99, CPU / request. */
export function formatMetricName(metric: MetricId): string {
  return METRIC_NAMES[metric] ?? metric;
}

/** A metric's value in its own unit: req/s for throughput, µs for latency and CPU per request, a share of requests for errors. */
export function formatValue(metric: MetricId, value: number): string {
  if (metric === 'errors') return formatPercent(value);
  return metric === 'throughput' ? formatRate(value) : formatDurationUs(value);
}

/**
 * A comparison's change with its 95% interval, as a table shows it: relative for every metric
 * (−12.2% (−14.0 … −10.1)), but in percentage points for errors, whose change is head's share
 * minus base's (+31.0 pt (+28.4 … +33.3)).
 */
export function formatMetricChange(c: { metric: MetricId; change: number; ciLow: number; ciHigh: number }): string {
  return `${formatChangeOf(c.metric, c.change)} ${formatInterval(c.ciLow, c.ciHigh)}`;
}

/** A metric's change alone: relative (−12.2%), or in points for errors (+31.0 pt). */
export function formatChangeOf(metric: MetricId, change: number): string {
  return metric === 'errors' ? formatPoints(change) : formatChange(change);
}

/** A metric's limit: 2% for the relative ones, 1 pt (percentage point) for errors. */
export function formatLimit(metric: MetricId, limit: number): string {
  if (metric !== 'errors' || !Number.isFinite(limit)) return formatPercent(limit);
  return `${formatPercent(limit).replace(/%$/, '')} pt`;
}

/**
 * Characters that draw nothing but change how text reads or matches, by Unicode property so no
 * range is missed: controls (Cc), format characters (Cf: zero-width spaces and joiners,
 * bidirectional marks, embeddings, overrides and isolates, Unicode tags, musical and shorthand
 * format controls), lone surrogates (Cs), and every other Default_Ignorable_Code_Point (Hangul
 * fillers, unassigned tag-plane code points, variation selectors). UCD PropList.txt and
 * DerivedCoreProperties.txt. The emoji presentation selectors U+FE0E/U+FE0F stay, one after a
 * character: emoji need them, and a run of them could carry hidden bits.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]|(?![\uFE0E\uFE0F])\p{Default_Ignorable_Code_Point}/gu;
const REPEATED_PRESENTATION_SELECTOR = /(^|[\uFE0E\uFE0F])[\uFE0E\uFE0F]+/gu;

/**
 * Makes text from outside perfgate safe on one line: a line break (with the indentation around
 * it) and a tab become one space; control characters (ANSI escapes start with one) and
 * invisible characters (which can make text read differently than it is) are removed.
 */
export function sanitizeText(text: string): string {
  return String(text)
    .replace(/[ \t]*(?:\r\n|[\r\n\u2028\u2029])\s*/g, ' ')
    .replace(/\t/g, ' ')
    .replace(INVISIBLE, '')
    .replace(REPEATED_PRESENTATION_SELECTOR, '$1');
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '|': '&#124;',
  '`': '&#96;',
};

/**
 * Makes user-controlled text (scenario names, paths, refs, messages) inert in GitHub markdown,
 * including table cells: no HTML, no table break, no code span, no emphasis or link, no math,
 * no @mention ping, no #123 or GH-123 reference, and no autolink (`https://…`, `www.…`,
 * `user@host`; GFM spec, "Autolinks (extension)"). The result is one line.
 */
export function escapeMarkdown(text: string): string {
  return sanitizeText(text)
    .replace(/[\\*_[\]~$]/g, (c) => `\\${c}`)
    .replace(/[@#]/g, (c) => c + ZERO_WIDTH_JOINER)
    .replace(/:\/\//g, `:${ZERO_WIDTH_JOINER}//`)
    .replace(/(www)\./gi, `$1${ZERO_WIDTH_JOINER}.`)
    .replace(/(GH)-(?=\d)/gi, `$1${ZERO_WIDTH_JOINER}-`)
    .replace(/[&<>|`]/g, (c) => HTML_ENTITIES[c]!);
}

/**
 * A URL perfgate built, made safe as a markdown link target: parentheses (which could end the
 * link early) and anything URL syntax does not allow are percent-encoded.
 */
export function escapeUrl(url: string): string {
  return new URL(url).href.replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));
}

/** A commit id as git writes it: 40 (SHA-1) or 64 (SHA-256) hex digits. */
const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The web address of a line of a file in `repository` at commit `sha`, or null when the
 * address would not stay there: the path and sha come from a results file (written by a job
 * that ran the pull request's code), and a `..` segment, once the URL is resolved, climbs out
 * of the commit, the repository and its owner to any page of the server.
 */
export function repositoryFileUrl(repository: string, sha: string, file: string, line: number): string | null {
  if (!COMMIT_SHA.test(sha)) return null;
  const segments = file.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  const inside = `${repository.replace(/\/+$/, '')}/blob/${sha}/`;
  let url: string;
  try {
    url = escapeUrl(`${inside}${segments.map(encodeURIComponent).join('/')}#L${formatInteger(line)}`);
  } catch {
    return null;
  }
  return url.startsWith(escapeUrl(inside)) ? url : null;
}
