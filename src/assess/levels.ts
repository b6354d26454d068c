/**
 * Service levels: an absolute `max` on a latency or on the errors share (gate.<metric>.max),
 * checked on head alone. Pure.
 *
 * The unit is head's start, as for the relative verdicts (assess/starts.ts): each start's slices
 * are summarised by their Hodges–Lehmann estimate, so a start's own offset counts once. The
 * question is one-sided, "is head above the level?": a one-sample location test on the starts'
 * values set against the level, ln(value / max) for a latency (a ratio scale, as the relative
 * latency verdicts) and value − max for the errors share (a share is often 0, where a log has no
 * value). The test is the sign-flip (Fisher's one-sample randomisation) test, the dual of a
 * one-sided interval at the same level: p < level exactly when the one-sided interval of head's
 * value lies wholly above the level. Its p joins the one Holm family of the gated comparisons
 * (Holm, Scand. J. Statist. 1979), so a run with levels keeps its family-wise false-fail rate.
 * Where even 1/2^n cannot reach the level (few starts), a latency's starts that all lie above
 * the level are ranked by the t statistic instead, as the relative verdicts do
 * (stats/sign-flip.ts, studentizedAgreement).
 *
 * Verdicts: fail when significant (head is above the level beyond its start-to-start noise);
 * pass when the whole 95% Hodges–Lehmann interval of head's value is at or below the level;
 * inconclusive otherwise (the run cannot tell).
 */
import { ruleFor } from '../config/scenario-rules.js';
import { LEVEL_METRICS, type LevelMetricId } from '../config/types.js';
import type { LevelComparison, LevelVerdict, Results } from '../results/types.js';
import { hodgesLehmannInterval } from '../stats/hodges-lehmann.js';
import { signFlipTest, studentizedAgreement } from '../stats/sign-flip.js';
import { METRIC_DEFINITIONS } from './metrics.js';
import { startOf, summarizeStarts } from './starts.js';

const CONFIDENCE = 0.95;

/** A level before Holm's adjustment. `testable`: false when every start sits exactly on the level (no sign pattern moves the sum). */
export type LevelDraft = Omit<LevelComparison, 'pAdjusted' | 'verdict'> & { testable: boolean };

/** Every service level of the run: per scenario with pairs, per metric whose rule has a level. */
export function levelDrafts(results: Results, level: number): LevelDraft[] {
  return results.scenarios.flatMap((scenario) =>
    METRIC_DEFINITIONS.flatMap((definition): LevelDraft[] => {
      if (!(LEVEL_METRICS as readonly string[]).includes(definition.id)) return [];
      const rule = ruleFor(results.config, scenario.name, definition.id).level;
      if (!rule) return [];
      const values = scenario.pairs.map((p) => definition.value(p.head));
      const draft = checkLevel(values, scenario.pairs.map(startOf), rule.max, definition.scale, level);
      return draft ? [{ scenario: scenario.name, metric: definition.id as LevelMetricId, max: rule.max, gated: rule.gated, ...draft }] : [];
    }),
  );
}

/**
 * Head's values (one per slice, with the start of each) against a level: estimate, 95% interval
 * and the one-sided p of "above". null when no slice has a finite value (e.g. p99.9 of a closed
 * loop, which records none).
 */
export function checkLevel(
  values: readonly number[],
  starts: readonly number[],
  max: number,
  scale: 'ratio' | 'difference',
  level: number,
): Pick<LevelDraft, 'n' | 'estimate' | 'low' | 'high' | 'p' | 'testable'> | null {
  const ratio = scale === 'ratio';
  const against = values.map((v) => (ratio ? Math.log(v / max) : v - max));
  const units = summarizeStarts(against, starts).map((s) => s.value);
  if (units.length === 0) return null;
  const back = (u: number) => (ratio ? max * Math.exp(u) : max + u);
  const testable = units.some((u) => u !== 0);
  const interval = testable ? hodgesLehmannInterval(units, CONFIDENCE) : { estimate: 0, lower: 0, upper: 0, confidence: 1 };
  const reached = interval.confidence >= CONFIDENCE - 1e-9;
  const test = signFlipTest(units, { alternative: 'greater' });
  const atFloor = ratio && 2 ** -units.length >= level ? studentizedAgreement(units, 'greater') : null;
  return {
    n: units.length,
    estimate: back(interval.estimate),
    low: reached ? back(interval.lower) : Number.NEGATIVE_INFINITY,
    high: reached ? back(interval.upper) : Number.POSITIVE_INFINITY,
    p: atFloor === null ? test.p : Math.min(test.p, atFloor),
    testable,
  };
}

/** A level's verdict once its p is adjusted (see the module's comment). */
export function decideLevel(draft: Pick<LevelDraft, 'estimate' | 'high' | 'max'>, pAdjusted: number, level: number): LevelVerdict {
  if (pAdjusted < level && draft.estimate > draft.max) return 'fail';
  if (draft.high <= draft.max) return 'pass';
  return 'inconclusive';
}
