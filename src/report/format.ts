/**
 * Metric-aware formatting shared by every renderer (markdown, terminal). Plain numbers are
 * formatted by stats/format.ts; text from outside perfgate is made safe by escape.ts.
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
import { escapeUrl } from './escape.js';

export { escapeMarkdown, escapeUrl, sanitizeText } from './escape.js';

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
