/**
 * The service levels (gate.<metric>.max) as the report says them: their table, grouped by
 * scenario, and their words in the headline. A level is checked on head alone, so its row has no
 * base and no change: the level, head's value with its interval, and the verdict.
 */
import { failedLevels, levelValueText } from '../../assess/read.js';
import type { Analysis, LevelComparison } from '../../results/types.js';
import { formatMetricName } from '../format.js';
import type { Cell, Table } from './types.js';

/** What a reader needs to read the table: what is tested, and what fails. */
export const LEVELS_TITLE = 'Service levels';
export const LEVELS_METHOD =
  "head alone, each start one unit (the Hodges–Lehmann estimate of its slices); fail: significantly above the level (one-sided, Holm with the gated metrics); pass: the whole 95% interval at or below it";

function verdictOf(l: LevelComparison): Cell {
  if (l.verdict === 'fail') return { kind: 'verdict', mark: l.gated ? 'fail' : 'warn', words: 'above the level' };
  if (l.verdict === 'pass') return { kind: 'verdict', mark: 'good', words: 'within the level' };
  return { kind: 'verdict', mark: 'unknown', words: 'inconclusive' };
}

function headCell(l: LevelComparison): Cell {
  const bound = (x: number) => (Number.isFinite(x) ? levelValueText(l.metric, x) : 'n/a');
  return { kind: 'figure', text: `${levelValueText(l.metric, l.estimate)} (${bound(l.low)} … ${bound(l.high)})` };
}

/** The levels' table: one row per level, grouped by scenario; null when the run has none. */
export function levelTable(analysis: Pick<Analysis, 'levels'>): Table | null {
  const levels = analysis.levels ?? [];
  if (levels.length === 0) return null;
  return {
    group: 'scenario',
    columns: [
      { header: 'metric', align: 'left' },
      { header: 'level', long: 'level (max)', align: 'right' },
      { header: 'head (95% CI)', long: 'head (95% CI over its starts)', align: 'right' },
      { header: 'verdict', align: 'left' },
    ],
    rows: levels.map((l) => ({
      group: { name: l.scenario },
      cells: [
        { kind: 'label', text: formatMetricName(l.metric), gated: l.gated },
        { kind: 'figure', text: levelValueText(l.metric, l.max) },
        headCell(l),
        verdictOf(l),
      ],
    })),
  };
}

/** The headline's words for the levels that failed the build: "latency p99 level 300 ms", once each. */
export function failedLevelLimits(analysis: Pick<Analysis, 'levels'>): string[] {
  return [...new Set(failedLevels(analysis).map((l) => `${formatMetricName(l.metric)} level ${levelValueText(l.metric, l.max)}`))];
}

/** The gated levels the run could not decide, for a passing headline: "GET /x latency p99 level". Names are outside text. */
export function undecidedLevels(analysis: Pick<Analysis, 'levels'>): string[] {
  return (analysis.levels ?? []).filter((l) => l.gated && l.verdict === 'inconclusive').map((l) => `${l.scenario} ${formatMetricName(l.metric)} level`);
}

/** Whether every gated level passed: a run with one in doubt is not one where "nothing changed". */
export function levelsClear(analysis: Pick<Analysis, 'levels'>): boolean {
  return (analysis.levels ?? []).every((l) => !l.gated || l.verdict === 'pass');
}
