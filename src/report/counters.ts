/**
 * The work counters in the "Service health" section (bytes allocated, collections, system calls
 * and socket bytes per request; docs/health.md, "Work counters"), compactly: the counters that
 * did not change share one row, and each one that did gets its own, its change in words ("head
 * allocates 1.9 kB more per request (+4.1%, CI +2.9 … +5.3%)"). Shared by every renderer; pure.
 */
import { COUNTER_METRICS, type CounterMetricId, type HealthMetricId } from '../config/types.js';
import type { HealthComparison } from '../results/types.js';
import { formatAmount, formatBytes, formatChange, formatInterval } from '../stats/format.js';
import { betterSideOpen, type HealthRow, healthVerdictCell } from './rows.js';

/** The names readers see in the metric column and the headline. */
export const COUNTER_NAMES: Readonly<Record<CounterMetricId, string>> = {
  allocated_per_request: 'allocated / request',
  gc_count_per_request: 'GCs / 1k requests',
  syscalls_per_request: 'syscalls / request',
  socket_written_per_request: 'socket bytes written / request',
  socket_read_per_request: 'socket bytes read / request',
};

/** The counter's short label in the shared row: "41.2 kB allocated", "6.1 syscalls". */
const SHORT_LABELS: Readonly<Record<CounterMetricId, string>> = {
  allocated_per_request: 'allocated',
  gc_count_per_request: 'GCs/1k',
  syscalls_per_request: 'syscalls',
  socket_written_per_request: 'written',
  socket_read_per_request: 'read',
};

const BYTES: ReadonlySet<CounterMetricId> = new Set(['allocated_per_request', 'socket_written_per_request', 'socket_read_per_request']);

export function isCounter(metric: HealthMetricId): metric is CounterMetricId {
  return (COUNTER_METRICS as readonly string[]).includes(metric);
}

/** A counter's value in its unit: bytes for allocations and socket bytes, a plain amount for the others. */
export function formatCounterValue(metric: CounterMetricId, value: number): string {
  return BYTES.has(metric) ? formatBytes(value) : formatAmount(value);
}

/** What head does more (or less) of, per request: the verb phrase around the amount. */
function action(metric: CounterMetricId, amount: string, comparative: 'more' | 'less' | 'fewer'): string {
  switch (metric) {
    case 'allocated_per_request':
      return `allocates ${amount} ${comparative === 'fewer' ? 'less' : comparative} per request`;
    case 'gc_count_per_request':
      return `runs ${amount} ${comparative} garbage collections per 1,000 requests`;
    case 'syscalls_per_request':
      return `makes ${amount} ${comparative} system calls per request`;
    case 'socket_written_per_request':
      return `writes ${amount} ${comparative === 'fewer' ? 'less' : comparative} to sockets per request`;
    case 'socket_read_per_request':
      return `reads ${amount} ${comparative === 'fewer' ? 'less' : comparative} from sockets per request`;
  }
}

/**
 * A counter's change in words, from the absolute estimate (head − base per request, Hodges–Lehmann
 * over the start pairs) and the relative one with its interval: "head allocates 1.9 kB more per
 * request (+4.1%, CI +2.9 … +5.3%)".
 */
export function describeCounterChange(c: HealthComparison & { metric: CounterMetricId }): string {
  // With too few start pairs for an interval (a run stopped at its first look), the change alone.
  const interval = Number.isFinite(c.ciLow) && Number.isFinite(c.ciHigh) ? `, CI ${formatInterval(c.ciLow, c.ciHigh).slice(1, -1)}%` : '';
  const relative = `${formatChange(c.change)}${interval}`;
  if (!Number.isFinite(c.absoluteChange) || c.absoluteChange === 0) return `head ${action(c.metric, 'no', 'more')} (${relative})`;
  const amount = formatCounterValue(c.metric, Math.abs(c.absoluteChange));
  const fewer = BYTES.has(c.metric) ? 'less' : 'fewer';
  return `head ${action(c.metric, amount, c.absoluteChange > 0 ? 'more' : fewer)} (${relative})`;
}

/**
 * One scenario's counter rows: those that changed (or could not be told apart), one row each in
 * words; the unchanged ones in one shared row of base's and head's values. None without counters.
 * `allocationCulprit`: the function head allocates more in (profile/allocation-culprit.ts), said
 * after the allocations' change.
 */
export function counterRows(comparisons: readonly HealthComparison[], allocationCulprit: string | null = null): Omit<HealthRow, 'firstOfScenario'>[] {
  const counters = comparisons.filter((c): c is HealthComparison & { metric: CounterMetricId } => isCounter(c.metric));
  const changed = counters.filter((c) => c.verdict !== 'unchanged');
  const unchanged = counters.filter((c) => c.verdict === 'unchanged');
  const rows: Omit<HealthRow, 'firstOfScenario'>[] = changed.map((c) => {
    return {
      scenario: c.scenario,
      metric: COUNTER_NAMES[c.metric],
      gated: c.gated,
      base: formatCounterValue(c.metric, c.baseMedian),
      head: formatCounterValue(c.metric, c.headMedian),
      change: describeCounterChange(c),
      ...(c.metric === 'allocated_per_request' && allocationCulprit !== null && { culprit: allocationCulprit }),
      cell: healthVerdictCell(c, betterSideOpen(c)),
      notable: true,
    };
  });
  if (unchanged.length === 0) return rows;
  const values = (side: 'baseMedian' | 'headMedian') =>
    unchanged.map((c) => `${formatCounterValue(c.metric, c[side])} ${SHORT_LABELS[c.metric]}`).join(' · ');
  rows.push({
    scenario: unchanged[0]!.scenario,
    metric: changed.length === 0 ? 'work / request' : 'other work / request',
    gated: unchanged.some((c) => c.gated),
    base: values('baseMedian'),
    head: values('headMedian'),
    change: '',
    cell: { kind: 'verdict', tone: 'neutral' },
    // The one line that says the work per request held: kept in the shortened comment too.
    notable: changed.length === 0,
  });
  return rows;
}
