/**
 * The unpaired comparison: head's starts, measured in this run, against a stored baseline's
 * starts of base, measured in another run (results.baseline, written by `mode: record`). Both
 * runs measured one commit on both of the engine's sides, so each start pair (a start of each
 * side, booted back to back and loaded together) is one unit of that commit. Like the paired
 * analysis (assess/compare.ts), the start pair is the unit of replication and its slices are
 * summarised below it by their Hodges–Lehmann estimate (assess/starts.ts, Kalibera & Jones
 * 2013); the shift of head's summaries against base's is the
 * two-sample Hodges–Lehmann estimate with its rank-sum interval, and the test is the one-sided
 * Wilcoxon rank-sum test (stats/rank-sum.ts). The drafts then go through the same Holm family and
 * verdicts as the paired ones.
 *
 * What the interval does not hold: an offset of the whole run (another runner, another hour).
 * Within one run every start shares it, so it moves the shift without widening the interval;
 * docs/modes.md gives the figure bench/cross-run.mjs measures for it.
 */
import { ruleFor } from '../config/scenario-rules.js';
import type { MetricRule } from '../config/types.js';
import type { MetricComparison, Pair, Results, ScenarioResults, StoredBaseline } from '../results/types.js';
import { median } from '../stats/descriptive.js';
import { smallestDetectableShift } from '../stats/power.js';
import { rankSumTest, shiftInterval } from '../stats/rank-sum.js';
import { type MetricDefinition, METRIC_DEFINITIONS } from './metrics.js';
import { middleHalf } from './samples.js';
import { summarizeStarts } from './starts.js';

const CONFIDENCE = 0.95;
/** As the paired analysis: "unchanged" is two one-sided tests at 5% (assess/compare.ts). */
const EQUIVALENCE_CONFIDENCE = 0.9;

/** A metric's comparison before Holm's adjustment and its verdict, as assess/compare.ts drafts them. */
export type UnpairedDraft = Omit<MetricComparison, 'pAdjusted' | 'verdict'> & { testable: boolean };

/**
 * The per-start-pair summaries of one commit's run: each the Hodges–Lehmann estimate of the
 * slices' values of both its starts (both engine sides measured that commit) on the comparison's
 * scale (ln for a ratio metric). Not one unit per start: the two starts of a pair share the
 * machine's state while they run, which is what the paired analysis cancels, so they are not
 * independent; counted as two units they narrowed the rank-sum interval, and stored-baseline
 * A/A runs drawn from the recorded pools failed 4.2% of the time at alpha 0.01 (0.7% counted by
 * start pair: docs/calibration/stored-looks.md).
 */
export function startSummaries(pairs: readonly Pair[], definition: MetricDefinition): number[] {
  const scaled = (v: number) => (definition.scale === 'ratio' ? Math.log(v) : v);
  return summarizeStarts(
    pairs.flatMap((p) => [scaled(definition.value(p.base)), scaled(definition.value(p.head))]),
    pairs.flatMap((p) => [p.start, p.start]),
  ).map((s) => s.value);
}

/** Every finite value of a metric on both sides of a one-commit run, in its unit. */
function sliceValues(pairs: readonly Pair[], definition: MetricDefinition): number[] {
  return pairs.flatMap((p) => [definition.value(p.base), definition.value(p.head)]).filter(Number.isFinite);
}

function compareUnpaired(
  base: readonly number[],
  head: readonly number[],
  rule: MetricRule,
  alpha: number,
  definition: MetricDefinition,
): Omit<UnpairedDraft, 'metric' | 'scenario' | 'baseMedian' | 'headMedian' | 'pairs'> | null {
  if (base.length === 0 || head.length === 0) return null;
  const reported = definition.scale === 'ratio' ? Math.expm1 : (x: number) => x;
  // Every summary of both runs equal (a share that is 0 everywhere): no ranking can move the
  // test, so it can never reject and stays out of Holm's family (Tarone 1990, as compare.ts).
  const testable = new Set([...base, ...head]).size > 1;
  const flat = { estimate: 0, lower: 0, upper: 0, confidence: 1 };
  const interval = testable ? shiftInterval(base, head, CONFIDENCE) : flat;
  const reached = interval.confidence >= CONFIDENCE - 1e-9;
  const lower = reached ? interval.lower : Number.NEGATIVE_INFINITY;
  const upper = reached ? interval.upper : Number.POSITIVE_INFINITY;
  const equivalence = testable ? shiftInterval(base, head, EQUIVALENCE_CONFIDENCE) : flat;
  const equivalent = reached && equivalence.confidence >= EQUIVALENCE_CONFIDENCE - 1e-9;
  // One-sided towards the estimate, as the paired test: a regression is only called in the worse direction.
  const p = testable ? rankSumTest(base, head, interval.estimate < 0 ? 'less' : 'greater').p : 1;
  const halfWidth = (upper - lower) / 2;
  return {
    gated: rule.gated,
    limit: rule.limit,
    n: base.length + head.length,
    change: reported(interval.estimate),
    ciLow: reported(lower),
    ciHigh: reported(upper),
    eqLow: equivalent ? reported(equivalence.lower) : Number.NEGATIVE_INFINITY,
    eqHigh: equivalent ? reported(equivalence.upper) : Number.POSITIVE_INFINITY,
    p,
    detectable: Number.isFinite(halfWidth) ? reported(smallestDetectableShift(halfWidth, { confidence: CONFIDENCE, alpha: 2 * alpha })) : Number.NaN,
    higherIsBetter: definition.higherIsBetter,
    // Head's starts against the baseline's middle: the spread a reader judges the change against.
    noise: { pairs: null, starts: middleHalf(head.map((h) => reported(h - median(base)))) },
    testable,
  };
}

/**
 * One draft per HTTP metric of every scenario that both this run and the baseline measured. A
 * scenario the baseline lacks gets none (baselineGaps names it).
 */
export function unpairedDrafts(results: Results, baseline: StoredBaseline, alpha: number): UnpairedDraft[] {
  const drafts: UnpairedDraft[] = [];
  for (const scenario of results.scenarios) {
    const stored = baseline.scenarios.find((s) => s.name === scenario.name);
    if (!stored || scenario.pairs.length === 0 || stored.pairs.length === 0) continue;
    for (const definition of METRIC_DEFINITIONS) {
      const draft = compareUnpaired(
        startSummaries(stored.pairs, definition),
        startSummaries(scenario.pairs, definition),
        ruleFor(results.config, scenario.name, definition.id),
        alpha,
        definition,
      );
      if (!draft) continue;
      drafts.push({
        metric: definition.id,
        scenario: scenario.name,
        ...draft,
        pairs: scenario.pairs.length,
        baseMedian: median(sliceValues(stored.pairs, definition)),
        headMedian: median(sliceValues(scenario.pairs, definition)),
      });
    }
  }
  return drafts;
}

/** The scenarios this run measured that the baseline has no pairs of: they get no verdict. */
export function baselineGaps(results: Results, baseline: StoredBaseline): string[] {
  const stored = new Map<string, ScenarioResults>(baseline.scenarios.map((s) => [s.name, s]));
  return results.scenarios.filter((s) => s.pairs.length > 0 && !(stored.get(s.name)?.pairs.length)).map((s) => s.name);
}

/** The report's plain statement of what was compared. */
export function describeBaseline(baseline: StoredBaseline): string {
  const run = baseline.runId ? `run ${baseline.runId}` : 'a results file';
  return (
    `Compared with a stored baseline of ${baseline.sha.slice(0, 7)} from ${run} (${baseline.recordedAt.slice(0, 10)}), measured in another run, ` +
    'possibly on another runner: the verdicts rest on head\'s starts against the baseline\'s (unpaired), so the intervals are wider than a same-runner A/B\'s, ' +
    'and an offset between the two runs is not in them (docs/modes.md, "Stored baseline").'
  );
}
