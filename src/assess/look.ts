import { nextOwnCulprit } from '../profile/culprit.js';
import type { ConfirmTarget, Results, StoredBaseline, TakenLook } from '../results/types.js';
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
 * The same stopping rule against a stored record: head's starts so far against all of the
 * record's, unpaired (assess/unpaired.ts), at the levels of the design planned for that
 * comparison (engine/plan.ts, planSequential 'unpaired'). The run's results get the baseline
 * only once measured (compare/variant.ts), so each look sees them with it.
 */
export const interimLookAgainst =
  (baseline: StoredBaseline) =>
  (results: Results, index: number): TakenLook =>
    interimLook({ ...results, baseline }, index);

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
  // A possible leak is explained by the profile phase's heap snapshots: it counts as moved.
  const leaking = leakingScenarios(analysis);
  const moved = names.filter((name) => scenarioMoved(analysis, name) || leaking.includes(name));
  return names.filter((name) => scenarioUnchanged(analysis, name) || (moved.length > 0 && !moved.includes(name)));
};

/** Scenarios whose memory-growth rule says "possible leak" (a heap-growth regression). */
function leakingScenarios(analysis: ReturnType<typeof assessResults>): string[] {
  return (analysis.health?.heap ?? []).filter((h) => h.verdict === 'regression').map((h) => h.scenario);
}

/**
 * The scenarios whose profiled restart takes heap snapshots at the start and end of the load
 * (engine/phases/profile.ts): those the memory-growth rule flagged a possible leak, at the run's
 * final level. Snapshots pause the service, so they are taken only where a leak is to be named.
 */
export const leakScenarios = (results: Results): string[] => leakingScenarios(assessResults(results));

/**
 * The culprits the engine tests with a third arm (engine/phases/confirm.ts): those of the
 * scenarios with a gated HTTP regression at the run's final level, as the Assessment found them.
 * A pass has nothing to explain, so an A/A run never confirms.
 */
export const confirmTargets = (results: Results): ConfirmTarget[] => {
  if (!results.config.profile.confirm) return [];
  const analysis = assessResults(results);
  const failing = new Set(analysis.failing.map((c) => c.scenario));
  return analysis.subjects.flatMap((subject) => {
    const culprit = subject.type === 'scenario' && failing.has(subject.scenario) ? subject.profile?.culprit : null;
    if (!culprit || subject.type !== 'scenario') return [];
    const { name, file, line, endLine } = culprit.fn;
    return [{ scenario: subject.scenario, culprit: { name, file, line, ...(endLine !== undefined && { endLine }), package: culprit.package?.name ?? null } }];
  });
};

/**
 * Whether the engine measures another block of a scenario's last arm (engine/phases/confirm.ts
 * asks after each, up to its budget of blocks): when its answer so far is unclear, its share's
 * interval across the 50% line or too few start pairs for one. A confirmed or explains-little
 * answer stands; a skipped one (the reverted head failed its requests) is not helped by more.
 */
export const confirmAgain = (results: Results, scenario: string): boolean => {
  const tried = (results.confirmations ?? []).filter((c) => c.scenario === scenario).length;
  if (tried === 0) return false;
  const subject = assessResults(results).subjects.find((s) => s.type === 'scenario' && s.scenario === scenario);
  if (subject?.type !== 'scenario') return false;
  const last = tried === 1 ? subject.confirmation : subject.nextConfirmation;
  return last?.status === 'unclear';
};

/**
 * The next culprit the engine reverts for a scenario after its last arm (engine/phases/confirm.ts
 * asks, up to its budget of arms): when that arm's revert explained less than half of the drop
 * (explains little, or unclear), the own function this PR changed that grew most after those
 * already tried; null when the last arm confirmed its culprit, was skipped, or none is left.
 */
export const nextConfirmTarget = (results: Results, scenario: string): ConfirmTarget['culprit'] | null => {
  const tried = (results.confirmations ?? []).filter((c) => c.scenario === scenario);
  if (tried.length === 0) return null;
  const subject = assessResults(results).subjects.find((s) => s.type === 'scenario' && s.scenario === scenario);
  if (subject?.type !== 'scenario' || !subject.profile) return null;
  const last = tried.length === 1 ? subject.confirmation : subject.nextConfirmation;
  if (last?.status !== 'explains-little' && last?.status !== 'unclear') return null;
  const fn = nextOwnCulprit(subject.profile.changes, results.changes, tried.map((t) => t.culprit));
  if (fn === null) return null;
  return { name: fn.name, file: fn.file, line: fn.line, ...(fn.endLine !== undefined && { endLine: fn.endLine }), package: null };
};
