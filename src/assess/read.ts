/**
 * Read helpers over the assessment: questions a report or a later stage asks of what the gate
 * decided, answered from its verdicts alone. They decide nothing themselves, so the renderers
 * may use them. Pure.
 */
import type { AllocationCulprit } from '../profile/allocation-culprit.js';
import type { Culprit } from '../profile/culprit.js';
import type { LeakCulprit } from '../profile/leak-culprit.js';
import type { Analysis, LevelComparison, MetricComparison, PairedComparison } from '../results/types.js';
import { formatDurationUs, formatPercent } from '../stats/format.js';
import type { Assessment, ScenarioSubject } from './types.js';

/** The scenario's subject; null for a name the run does not have. */
export function scenarioSubject(assessment: Pick<Assessment, 'subjects'>, scenario: string): ScenarioSubject | null {
  return assessment.subjects.find((s): s is ScenarioSubject => s.type === 'scenario' && s.scenario === scenario) ?? null;
}

/**
 * The function the scenario's head allocates the most more in, when its allocations regressed
 * or grew notably (assess/subjects.ts); null otherwise, or when it was not profiled.
 */
export function scenarioAllocationCulprit(assessment: Partial<Pick<Assessment, 'subjects'>>, scenario: string): AllocationCulprit | null {
  if (!assessment.subjects) return null;
  return scenarioSubject({ subjects: assessment.subjects }, scenario)?.profile?.allocations?.culprit ?? null;
}

/** What head's heap kept more of, when the memory-growth rule flagged the scenario and its snapshots name a constructor; else null. */
export function scenarioLeakCulprit(assessment: Partial<Pick<Assessment, 'subjects'>>, scenario: string): LeakCulprit | null {
  if (!assessment.subjects) return null;
  return scenarioSubject({ subjects: assessment.subjects }, scenario)?.profile?.leak?.culprit ?? null;
}

/**
 * The culprit the assessment found in the scenario's profiles, whatever its verdicts; null when
 * it was not profiled or nothing of its own code grew. Where a reader shows it depends on the
 * verdicts (scenarioUnchanged, the headline's regressions).
 */
export function scenarioCulprit(assessment: Pick<Assessment, 'subjects'>, scenario: string): Culprit | null {
  return scenarioSubject(assessment, scenario)?.profile?.culprit ?? null;
}

/**
 * The 90% interval's ends as worse and better ends, each as a change in the worse direction
 * (positive is worse, whatever the metric). Results from before the equivalence interval held
 * only the 95% one.
 */
export function equivalenceEnds(c: Pick<PairedComparison, 'ciLow' | 'ciHigh' | 'eqLow' | 'eqHigh' | 'higherIsBetter'>): { worst: number; best: number } {
  const low = c.eqLow ?? c.ciLow;
  const high = c.eqHigh ?? c.ciHigh;
  return c.higherIsBetter ? { worst: -low, best: -high } : { worst: high, best: low };
}

/**
 * Whether a scenario's verdict is "unchanged": every gated metric of it is unchanged or, open only
 * on the better side, no regression, and no metric of it regressed or improved. Only the other
 * scenarios get a culprit: a profile of a route with no decided change names its noise.
 */
export function scenarioUnchanged(analysis: Analysis, scenario: string): boolean {
  return ownVerdicts(analysis, scenario).every((c) =>
    c.gated ? c.verdict === 'unchanged' || c.verdict === 'no-regression' : c.verdict !== 'regression' && c.verdict !== 'improvement',
  );
}

/** Whether some gated metric of the scenario is "no regression" (open only on the better side). */
export function scenarioOpenBetter(analysis: Analysis, scenario: string): boolean {
  return ownVerdicts(analysis, scenario).some((c) => c.gated && c.verdict === 'no-regression');
}

function ownVerdicts(analysis: Analysis, scenario: string): { gated: boolean; verdict: string }[] {
  return [...timeVerdicts(analysis, scenario), ...(analysis.health?.heap ?? []).filter((c) => c.scenario === scenario)];
}

/**
 * Whether a metric of the scenario that a CPU profile explains (its HTTP and event-loop, GC and
 * CPU metrics; not the heap's growth, which a CPU profile does not show) regressed or improved:
 * a change the run has decided, for a culprit to explain.
 */
export function scenarioMoved(analysis: Analysis, scenario: string): boolean {
  return timeVerdicts(analysis, scenario).some((c) => c.verdict === 'regression' || c.verdict === 'improvement');
}

function timeVerdicts(analysis: Analysis, scenario: string): { gated: boolean; verdict: string }[] {
  return [...analysis.comparisons, ...(analysis.health?.comparisons ?? [])].filter((c) => c.scenario === scenario);
}

/** A regressed scenario: the regression that leads it, and its culprit. */
export interface RegressedScenario {
  scenario: string;
  /** The errors regression when gated, else a gated one, else the first. */
  regression: MetricComparison;
  /** Its culprit in own code, when the scenario was profiled and one grew; else null. */
  culprit: Culprit | null;
}

/**
 * What the headline and the annotations name: every scenario with a gated regression, and every
 * other regressed scenario whose profile names a culprit in own code.
 */
export function regressedScenarios(assessment: Pick<Assessment, 'comparisons' | 'subjects'>): RegressedScenario[] {
  const out: RegressedScenario[] = [];
  for (const scenario of new Set(assessment.comparisons.map((c) => c.scenario))) {
    const regressed = assessment.comparisons.filter((c) => c.scenario === scenario && c.verdict === 'regression');
    // Errors first: a route that fails is the news, whatever its speed did.
    const shown = regressed.find((c) => c.gated && c.metric === 'errors') ?? regressed.find((c) => c.gated) ?? regressed[0];
    if (!shown) continue;
    const culprit = scenarioCulprit(assessment, scenario);
    if (culprit || shown.gated) out.push({ scenario, regression: shown, culprit });
  }
  return out;
}

/** A service level's value (its max, head's estimate) as readers see it: a duration for a latency, a percentage of requests for errors. */
export function levelValueText(metric: LevelComparison['metric'], value: number): string {
  return metric === 'errors' ? formatPercent(value) : formatDurationUs(value);
}

/** The gated service levels head failed, in the order of the run's scenarios. */
export function failedLevels(analysis: Pick<Analysis, 'levels'>): LevelComparison[] {
  return (analysis.levels ?? []).filter((l) => l.gated && l.verdict === 'fail');
}
