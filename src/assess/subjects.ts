/**
 * One subject per scenario and per compared micro-benchmark, with what explains its verdicts:
 * a profiled scenario's diffed profiles and culprit (computed here, once per run), its outgoing
 * I/O, its service-health hints, and what reverting its culprit gave back (the third arm). Pure.
 */
import { type AllocationExplanation, explainAllocations } from '../profile/allocation-culprit.js';
import { explainProfile } from '../profile/culprit.js';
import { explainLeak, type LeakExplanation } from '../profile/leak-culprit.js';
import { assessConfirmation } from './confirmation.js';
import type { Analysis, HealthComparison, Results, ScenarioProfile } from '../results/types.js';
import type { ScenarioSubject, Subject } from './types.js';

/**
 * Allocated bytes per request that grew by this much or more (the counter's estimate, or the
 * profiles' own totals when the run counted nothing) are worth a culprit even when the counter
 * is not gated, or its interval too wide for a verdict.
 */
export const ALLOCATION_NOTABLE_GROWTH = 0.03;

/**
 * The scenario's allocations diffed, with the allocating culprit kept only when allocations
 * regressed or grew notably: a profile of a scenario whose allocations held names sampling noise.
 */
function allocationFindings(profile: ScenarioProfile, results: Results, counter: HealthComparison | undefined): AllocationExplanation | null {
  const found = explainAllocations(profile, results.changes);
  if (found === null || found.culprit === null) return found;
  const grew = counter
    ? counter.verdict === 'regression' || (Number.isFinite(counter.change) && counter.change >= ALLOCATION_NOTABLE_GROWTH)
    : found.perRequest.base > 0 && found.perRequest.head / found.perRequest.base - 1 >= ALLOCATION_NOTABLE_GROWTH;
  return grew ? found : { ...found, culprit: null };
}

/** The scenario's heap comparison, its culprit kept only while the memory-growth rule says "possible leak". */
function leakFindings(profile: ScenarioProfile, results: Results, leaking: boolean): LeakExplanation | null {
  const found = explainLeak(profile, results.changes);
  return found === null || leaking ? found : { ...found, culprit: null };
}

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
      profile: explained
        ? {
            ...explained,
            allocations: allocationFindings(
              explained.profile,
              results,
              analysis.health?.comparisons.find((c) => c.scenario === scenario && c.metric === 'allocated_per_request'),
            ),
            leak: leakFindings(explained.profile, results, analysis.health?.heap.some((h) => h.scenario === scenario && h.verdict === 'regression') ?? false),
          }
        : null,
      io: (analysis.io?.comparisons ?? []).filter((c) => c.scenario === scenario),
      hints: (analysis.health?.hints ?? []).filter((h) => h.scenario === scenario),
      confirmation: assessConfirmation(results, scenario, analysis.failing ?? [], 0, explained?.changes),
      nextConfirmation: assessConfirmation(results, scenario, analysis.failing ?? [], 1, explained?.changes),
    };
  });
  const benchmarks = (analysis.benchmarks?.comparisons ?? []).map((c): Subject => ({ type: 'benchmark', key: c.key, label: c.label }));
  return [...scenarios, ...benchmarks];
}
