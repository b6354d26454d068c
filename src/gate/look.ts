import type { CompareRequest } from '../engine/run.js';
import { scenarioUnchanged } from '../results/verdicts.js';
import { compareResults } from './compare.js';
import { decideLook } from './sequential.js';

/**
 * The stopping rule the compare service hands the engine for the pre-registered looks: the
 * verdicts at the look's nominal level (sequential.ts's design) decide whether the run stops.
 * The engine measures; the gate decides.
 */
export const interimLook: NonNullable<CompareRequest['look']> = (results, index) =>
  decideLook(results, index, compareResults(results, { httpLevel: results.sequential!.looks[index]!.nominalAlpha }));

/**
 * The scenarios profile.when: changed leaves unprofiled: every verdict unchanged (the same test
 * that keeps a culprit line out of the report), at the run's final level.
 */
export const unchangedScenarios: NonNullable<CompareRequest['unchangedScenarios']> = (results) => {
  const analysis = compareResults(results);
  return results.scenarios.map((s) => s.name).filter((name) => scenarioUnchanged(analysis, name));
};
