import type { Results, TakenLook } from '../results/types.js';
import { scenarioMoved, scenarioUnchanged } from './read.js';
import { assessResults } from './compare.js';
import { decideLook } from './sequential.js';

/**
 * The stopping rule the compare service hands the engine for the pre-registered looks: the
 * verdicts at the look's nominal level (sequential.ts's design) decide whether the run stops.
 * The engine measures; the gate decides.
 */
export const interimLook = (results: Results, index: number): TakenLook =>
  decideLook(results, index, assessResults(results, { httpLevel: results.sequential!.looks[index]!.nominalAlpha }));

/**
 * The scenarios profile.when: changed leaves unprofiled, at the run's final level: those whose
 * every verdict is unchanged (the same test that keeps a culprit line out of the report), and,
 * once some scenario regressed or improved on a metric a CPU profile explains, those that did
 * not (assess/read.ts, scenarioMoved). The decided scenarios are what the reader needs
 * explained; an undecided one beside them changes no decision, and its profile, 2 ×
 * profile.duration of the run, would most often name noise. Where no scenario moved, the
 * inconclusive ones are profiled: then they are the run's open question.
 */
export const unprofiledScenarios = (results: Results): string[] => {
  const analysis = assessResults(results);
  const names = results.scenarios.map((s) => s.name);
  const moved = names.filter((name) => scenarioMoved(analysis, name));
  return names.filter((name) => scenarioUnchanged(analysis, name) || (moved.length > 0 && !moved.includes(name)));
};

/**
 * The scenarios whose culprit the engine tests with a third arm (engine/phases/confirm.ts): those
 * with a gated HTTP regression at the run's final level. A pass has nothing to explain, and an
 * A/A run therefore never confirms.
 */
export const confirmableScenarios = (results: Results): string[] =>
  results.config.profile.confirm ? [...new Set(assessResults(results).failing.map((c) => c.scenario))] : [];
