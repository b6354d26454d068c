/**
 * The picture of the gated HTTP changes as a document part: per gated metric, a chart with a row
 * per scenario, its change with the 95% interval against the metric's limit, and the words that
 * title, describe and explain it. report/print/mermaid.ts draws it as a Mermaid `xychart-beta`.
 * Pure.
 *
 * One chart per metric because the limit is per metric: every row of a chart shares one line.
 * Changes are drawn in the worse direction, right is worse for every metric (a throughput drop,
 * a latency rise), so "past the red line" means the same thing in every chart.
 */
import { METRICS, type MetricId } from '../../config/types.js';
import type { Analysis, MetricComparison, Results } from '../../results/types.js';
import { formatPercent } from '../../stats/format.js';
import { formatMetricName } from '../format.js';
import { verdictTone } from '../rows.js';
import { orderRows, type ReportRow } from '../verdicts.js';
import { CHART_TONES, type ChartRow, type ChartSection, type ChartTone, type ChartWords, type MetricChart } from './types.js';

/** Rows per chart; beyond it the most notable scenarios are kept (the table has them all). */
export const MAX_CHART_ROWS = 20;

const TONE_WORDS: Record<ChartTone, string> = { fail: 'regression', unknown: 'inconclusive', good: 'improvement', neutral: 'unchanged' };

/** Percent beyond which a change is drawn at the bound (a results file can hold any ratio; Mermaid reads no exponent). */
const MAX_PERCENT = 1e6;

/** A change in the worse direction, in percent: a throughput drop and a latency rise are both positive. */
function worsePercent(c: Pick<MetricComparison, 'higherIsBetter'>, fraction: number): number {
  const percent = (c.higherIsBetter ? -fraction : fraction) * 100;
  return Number.isFinite(percent) ? Math.min(MAX_PERCENT, Math.max(-MAX_PERCENT, percent)) : percent;
}

function chartRow(row: ReportRow): ChartRow | null {
  const c = row.comparison;
  if (!Number.isFinite(c.change)) return null;
  const tone = verdictTone(row.comparison);
  const ends = [worsePercent(c, c.ciLow), worsePercent(c, c.ciHigh)].sort((a, b) => a - b) as [number, number];
  return {
    scenario: c.scenario,
    // A gated regression is always 'fail'; 'warn' (an ungated one) cannot occur here.
    tone: tone === 'warn' ? 'fail' : tone,
    worse: worsePercent(c, c.change),
    interval: ends.every(Number.isFinite) ? ends : null,
    ...(c.verdict === 'no-regression' && { noRegression: true }),
  };
}

/** The most notable `count` rows, kept in their order: regressions, then inconclusive, improvements, unchanged. */
function notableRows(rows: ChartRow[], count: number): ChartRow[] {
  const keep = new Set(
    rows
      .map((row, index) => ({ row, index }))
      .sort((a, b) => CHART_TONES.indexOf(a.row.tone) - CHART_TONES.indexOf(b.row.tone) || a.index - b.index)
      .slice(0, count)
      .map((entry) => entry.row),
  );
  return rows.filter((row) => keep.has(row));
}

/** The words of a metric's chart. */
function chartWords(metric: MetricId, higherIsBetter: boolean, limit: number): ChartWords {
  const name = formatMetricName(metric);
  const percent = formatPercent(limit);
  // Errors change by percentage points of the requests (head's share minus base's), not relatively.
  const unit = metric === 'errors' ? 'pt' : '%';
  return {
    title: `${name}: change against its limit of ${percent}`,
    accessibleTitle: `${name}, change per scenario against the limit`,
    description: `Each bar is a scenario's 95% interval of the change in ${name}, with a dark tick at the estimate; right is worse; the red line is the limit.`,
    axis: `${unit} ${higherIsBetter ? 'drop' : 'rise'} in ${name} (right is worse)`,
    zone: `limit ±${percent}`,
    series: { ...TONE_WORDS, within: `within ±${percent}`, estimate: 'estimate', limit: `limit ${percent}`, zero: 'no change' },
  };
}

/**
 * The charts of a run: one per gated HTTP metric that was compared, in metric order; empty when
 * nothing gated was compared (a micro-benchmark-only run, or every scenario failed before a pair).
 */
export function gatedCharts(results: Results, analysis: Analysis): MetricChart[] {
  const gated = orderRows(results, analysis).filter((row) => row.comparison.gated);
  const charts: MetricChart[] = [];
  for (const metric of METRICS) {
    const own = gated.filter((row) => row.comparison.metric === metric);
    // The limit is set per metric; results whose rows disagree get a chart per limit, so no row is drawn against another's line.
    for (const limit of [...new Set(own.map((row) => row.comparison.limit))]) {
      const rows = own.filter((row) => row.comparison.limit === limit).flatMap((row) => chartRow(row) ?? []);
      const higherIsBetter = own[0]!.comparison.higherIsBetter;
      // Errors are drawn only where some request failed: a chart of zeros says nothing the table does not.
      if (metric === 'errors' && rows.every((row) => row.worse === 0 && (row.interval ?? [0, 0]).every((end) => end === 0))) continue;
      if (rows.length > 0) {
        charts.push({ metric, higherIsBetter, limit, rows: notableRows(rows, MAX_CHART_ROWS), total: rows.length, words: chartWords(metric, higherIsBetter, limit) });
      }
    }
  }
  return charts;
}

/** The charts of the gated changes and how to read them (GitHub's Mermaid draws no legend); null when there is nothing gated to draw. */
export function chartSection(results: Results, analysis: Analysis): ChartSection | null {
  const charts = gatedCharts(results, analysis);
  if (charts.length === 0) return null;
  const cut = charts.filter((c) => c.total > c.rows.length);
  const note = cut.map((c) => ` ${formatMetricName(c.metric)} shows ${c.rows.length} of ${c.total} scenarios, the most notable.`).join('');
  const legend = `Each bar is a scenario's 95% interval of the change, the dark tick its estimate; right is worse for every metric (a drop in throughput, a rise in latency), the red line is the limit and the bottom row the ±limit zone. Colour: red regression, yellow inconclusive, green improvement, grey unchanged${charts.some((c) => c.rows.some((r) => r.noRegression)) ? ' or no regression' : ''}.${note}`;
  return { charts, legend };
}

/**
 * The chart a reader needs first, the one of the metric that fails the build (else the first
 * undecided one), and the others, which say how to read them only when the first is not shown
 * with them (`legend` empty).
 */
export function leadChart(section: ChartSection): { lead: ChartSection; rest: ChartSection | null } {
  const rank = (chart: MetricChart) => {
    const tones = chart.rows.map((row) => row.tone);
    return tones.includes('fail') ? 0 : tones.includes('unknown') ? 1 : 2;
  };
  const lead = section.charts.reduce((best, chart) => (rank(chart) < rank(best) ? chart : best));
  const rest = section.charts.filter((chart) => chart !== lead);
  return { lead: { charts: [lead], legend: section.legend }, rest: rest.length === 0 ? null : { charts: rest, legend: '' } };
}
