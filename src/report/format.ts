/**
 * Number and text formatting shared by every renderer (markdown, terminal). Pure and
 * locale-independent: the same input gives the same bytes on every machine, so snapshots hold.
 */
import type { MetricId } from '../config/types.js';

/** U+2212: a real minus sign, the width of a plus sign (a hyphen looks like a dash in tables). */
export const MINUS = '\u2212';
/** Inserted after `@` and `#` (and into `://`, `www.`, `GH-`) so GitHub neither pings, links an issue, nor autolinks. */
const ZERO_WIDTH_JOINER = '\u200D';
const NOT_AVAILABLE = 'n/a';

/** A magnitude unit: values at or above `divisor` (after rounding) are shown in it. */
interface Unit {
  divisor: number;
  suffix: string;
}

const RATE_UNITS: Unit[] = [
  { divisor: 1e6, suffix: 'M/s' },
  { divisor: 1e3, suffix: 'k/s' },
  { divisor: 1, suffix: '/s' },
];

const OPS_UNITS: Unit[] = [
  { divisor: 1e9, suffix: 'G' },
  { divisor: 1e6, suffix: 'M' },
  { divisor: 1e3, suffix: 'k' },
  { divisor: 1, suffix: '' },
];

const DURATION_UNITS: Unit[] = [
  { divisor: 1e6, suffix: ' s' },
  { divisor: 1e3, suffix: ' ms' },
  { divisor: 1, suffix: ' µs' },
];

/** Up to three significant digits, trailing zeros dropped: 28.4, 950, 1.2, 0.05. */
function significant(value: number): string {
  return String(Number(value.toPrecision(3)));
}

/** Inserts thousands separators into the integer part of a plain decimal string. */
function groupThousands(digits: string): string {
  const [whole, fraction] = digits.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** Picks the largest unit the value reaches once rounded (999.7 µs is "1 ms", not "1000 µs"). */
function scaleToUnit(value: number, units: Unit[]): string {
  if (!Number.isFinite(value)) return NOT_AVAILABLE;
  const sign = value < 0 ? MINUS : '';
  const magnitude = Math.abs(value);
  const unit = units.find((u) => Number((magnitude / u.divisor).toPrecision(3)) >= 1) ?? units[units.length - 1]!;
  return sign + significant(magnitude / unit.divisor) + unit.suffix;
}

/** Requests per second: 950/s, 28.4k/s, 1.23M/s. */
export function formatRate(reqPerSec: number): string {
  return scaleToUnit(reqPerSec, RATE_UNITS);
}

/** Operations per second of a micro-benchmark, under an "ops/s" header: 950, 6.3k, 256k, 1.2M. */
export function formatOpsPerSec(opsPerSec: number | null): string {
  return opsPerSec === null ? NOT_AVAILABLE : scaleToUnit(opsPerSec, OPS_UNITS);
}

/** A duration given in µs: 850 µs, 1.21 ms, 2.5 s. */
export function formatDurationUs(us: number): string {
  return scaleToUnit(us, DURATION_UNITS);
}

/** Decimals for a percentage: one below 100%, none from there on (+3,949% needs no tenths). */
function percentDecimals(magnitudePercent: number): number {
  return magnitudePercent >= 99.95 ? 0 : 1;
}

/** A signed percentage number without the % sign; a value that rounds to zero has no sign. */
function signedPercent(fraction: number, decimals: number): string {
  const digits = groupThousands(Math.abs(fraction * 100).toFixed(decimals));
  if (Number(digits.replace(/,/g, '')) === 0) return digits;
  return (fraction < 0 ? MINUS : '+') + digits;
}

/** A relative change with its sign: −12.2%, +3.1%, +3,949%. */
export function formatChange(fraction: number): string {
  if (!Number.isFinite(fraction)) return NOT_AVAILABLE;
  return signedPercent(fraction, percentDecimals(Math.abs(fraction * 100))) + '%';
}

/** An interval of relative changes in %, both ends with the same decimals: (−14.0 … −10.1). */
export function formatInterval(lo: number, hi: number): string {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return `(${NOT_AVAILABLE})`;
  const decimals = percentDecimals(Math.max(Math.abs(lo), Math.abs(hi)) * 100);
  return `(${signedPercent(lo, decimals)} … ${signedPercent(hi, decimals)})`;
}

/** An unsigned fraction as a percentage for limits and thresholds: 5%, 2.5%, 15%. */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return NOT_AVAILABLE;
  const percent = Math.abs(fraction * 100);
  const digits = percent.toFixed(percentDecimals(percent)).replace(/\.0$/, '');
  return groupThousands(digits) + '%';
}

/**
 * An integer as plain digits (a seed, a line number, a block count): never anything but digits
 * and a minus sign, whatever a results file holds there.
 */
export function formatInteger(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : NOT_AVAILABLE;
}

/** A whole count with thousands separators: 12,345. */
export function formatCount(count: number): string {
  return Number.isFinite(count) ? groupThousands(Math.round(count).toFixed(0)) : NOT_AVAILABLE;
}

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

/** A difference of two shares in percentage points, with its sign: +31.0 pt, −0.4 pt. */
export function formatPoints(fraction: number): string {
  if (!Number.isFinite(fraction)) return NOT_AVAILABLE;
  return `${signedPercent(fraction, percentDecimals(Math.abs(fraction * 100)))} pt`;
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

/** Shortens text to at most `max` characters (code points), ending in "…" when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return chars.slice(0, Math.max(0, max - 1)).join('') + '…';
}
