/**
 * One subject per scenario and per compared micro-benchmark, with what explains its verdicts:
 * a profiled scenario's diffed profiles and culprit (computed here, once per run), its outgoing
 * I/O, its service-health hints, and what reverting its culprit gave back (the third arm). Pure.
 */
import { explainProfile } from '../profile/culprit.js';
import { assessConfirmation } from './confirmation.js';
import type { Analysis, Results } from '../results/types.js';
import type { ScenarioSubject, Subject } from './types.js';

export function collectSubjects(results: Results, analysis: Pick<Analysis, 'io' | 'health' | 'benchmarks'> & Partial<Pick<Analysis, 'failing'>>): Subject[] {
  const profiles = results.profiles ?? [];
  // A profile of a scenario the results no longer list (a shard's merge) still has its subject.
  const names = [...new Set([...results.scenarios.map((s) => s.name), ...profiles.map((p) => p.scenario)])];
  const scenarios = names.map((scenario): ScenarioSubject => {
    const profile = profiles.find((p) => p.scenario === scenario);
    const explained = profile ? { profile, ...explainProfile(profile, results) } : null;
    return {
      type: 'scenario',
      scenario,
      profile: explained,
      io: (analysis.io?.comparisons ?? []).filter((c) => c.scenario === scenario),
      hints: (analysis.health?.hints ?? []).filter((h) => h.scenario === scenario),
      confirmation: assessConfirmation(results, scenario, analysis.failing ?? [], 0, explained?.changes),
      nextConfirmation: assessConfirmation(results, scenario, analysis.failing ?? [], 1, explained?.changes),
    };
  });
  const benchmarks = (analysis.benchmarks?.comparisons ?? []).map((c): Subject => ({ type: 'benchmark', key: c.key, label: c.label }));
  return [...scenarios, ...benchmarks];
}
