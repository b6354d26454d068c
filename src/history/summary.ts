/**
 * The markdown of `perfgate history`: the commits where a gated metric shifted, by how much, and
 * whether the runner's environment changed there too, for the terminal and the job summary. Pure.
 */
import type { MetricId } from '../config/types.js';
import { escapeMarkdown, escapeUrl, formatMetricName, formatValue } from '../report/format.js';
import { formatChange } from '../stats/format.js';
import type { EnvironmentChange, History, Shift } from './series.js';

const KEY_NAMES: Record<EnvironmentChange['key'], string> = {
  cpu: 'CPU',
  cpus: 'CPU count',
  kernel: 'kernel',
  image: 'image',
  node: 'Node',
  v8: 'V8',
  flags: 'Node flags',
  perfgate: 'perfgate',
  configuration: 'configuration',
};

/** "environment changed: kernel 6.5.0 → 6.8.0", or null when only the code changed. */
export function describeEnvironmentChange(changes: readonly EnvironmentChange[]): string | null {
  if (changes.length === 0) return null;
  return `environment changed: ${changes.map((c) => `${KEY_NAMES[c.key]} ${c.before} → ${c.after}`).join(', ')}`;
}

function commitCell(sha: string, repository: string | null): string {
  const short = sha.slice(0, 7);
  if (!repository || !/^[\w.-]+\/[\w.-]+$/.test(repository) || !/^[0-9a-f]{40}$/.test(sha)) return `\`${short}\``;
  return `[\`${short}\`](${escapeUrl(`https://github.com/${repository}/commit/${sha}`)})`;
}

export interface SummaryOptions {
  /** owner/name, to link commits (from the runs' GitHub record); null: plain shas. */
  repository: string | null;
  /** Where the HTML page was written, to point at it. */
  htmlPath: string | null;
  maxPValue: number;
  windowLength: number;
  /** Files or artifacts that could not be read or were not trusted, listed with the runs left out. */
  unreadable?: readonly { file: string; reason: string }[];
}

export function renderHistorySummary(history: History, options: SummaryOptions): string {
  const lines = ['## perfgate history', ''];
  const shifts = history.series.flatMap((s) => s.shifts.map((shift) => ({ series: s, shift })));
  shifts.sort((a, b) => (a.shift.time < b.shift.time ? -1 : a.shift.time > b.shift.time ? 1 : 0));
  lines.push(
    `${history.runs} commit${history.runs === 1 ? '' : 's'} of history, ${history.series.length} series (scenario × gated metric), ` +
      `change points by E-divisive means (Otava's split and merge, windows of ${options.windowLength}, level ${options.maxPValue}).`,
    '',
  );
  if (shifts.length === 0) {
    lines.push('No metric shifted.');
  } else {
    lines.push('| commit | measured | scenario | metric | before → after | change | cause |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const { series, shift } of shifts) lines.push(row(series.scenario, series.metric, shift, options.repository));
  }
  const leftOut = [...(options.unreadable ?? []), ...history.runsLeftOut];
  if (leftOut.length) {
    lines.push('', `<details><summary>${leftOut.length} run${leftOut.length === 1 ? '' : 's'} left out</summary>`, '');
    for (const r of leftOut) lines.push(`- ${escapeMarkdown(r.file)}: ${escapeMarkdown(r.reason)}`);
    lines.push('', '</details>');
  }
  if (options.htmlPath) lines.push('', `Charts: ${escapeMarkdown(options.htmlPath)}`);
  return `${lines.join('\n')}\n`;
}

function row(scenario: string, metric: MetricId, shift: Shift, repository: string | null): string {
  const cause = describeEnvironmentChange(shift.environment) ?? 'this commit (or one just before it)';
  return `| ${commitCell(shift.sha, repository)} | ${shift.time.slice(0, 10)} | ${escapeMarkdown(scenario)} | ${formatMetricName(metric)} | ${formatValue(metric, shift.meanBefore)} → ${formatValue(metric, shift.meanAfter)} | ${formatChange(shift.change)} | ${escapeMarkdown(cause)} |`;
}
