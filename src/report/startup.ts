/** The start-up rows of the health table: every start's time to listen and memory at ready, base against head. Pure. */
import type { StartupMetricId } from '../config/types.js';
import type { Analysis, StartupComparison } from '../results/types.js';
import { formatChange, formatDurationUs, formatInterval } from '../stats/format.js';
import { betterSideOpen, type HealthRow, verdictTone } from './rows.js';

/** What the rows' first column says: these come from the starts, not from a scenario's load. */
export const STARTUP_LABEL = 'service start';

const NAMES: Record<StartupMetricId, string> = {
  startup_time: 'time to listen',
  startup_memory: 'memory at ready',
};

function startupValue(metric: StartupMetricId, value: number): string {
  if (!Number.isFinite(value)) return '–';
  return metric === 'startup_time' ? formatDurationUs(value * 1000) : `${(value / 1e6).toFixed(1)} MB`;
}

function startupRow(c: StartupComparison): Omit<HealthRow, 'firstOfScenario'> {
  const tone = verdictTone(c);
  return {
    scenario: STARTUP_LABEL,
    metric: NAMES[c.metric],
    gated: c.gated,
    base: startupValue(c.metric, c.baseMedian),
    head: startupValue(c.metric, c.headMedian),
    change: `${formatChange(c.change)} ${formatInterval(c.ciLow, c.ciHigh)}`,
    cell: { kind: 'verdict', tone, open: betterSideOpen(c) },
    notable: tone !== 'neutral',
  };
}

export function startupRows(analysis: Analysis): Omit<HealthRow, 'firstOfScenario'>[] {
  return (analysis.startup ?? []).map(startupRow);
}
