/**
 * Adaptive stopping (docs/method.md, "Adaptive stopping"), pre-registered: the looks and their levels are fixed
 * from the configuration before any load, recorded in results.json, and the engine can only
 * stop at a planned look when the answer is already clear. A look after every block, the last
 * one final; the levels come from the O'Brien–Fleming-type design (src/stats/sequential.ts),
 * which keeps the overall one-sided alpha.
 */
import type { Analysis, Results, TakenLook, Verdict } from '../results/types.js';
import { formatP } from '../stats/format.js';
import { percentText } from './text.js';

/**
 * The level the HTTP verdicts are decided at: the nominal level of the look the run stopped at
 * (the final one unless it stopped early); the configured alpha for runs without a design.
 */
export function httpLevel(results: Results): number {
  const sequential = results.sequential;
  if (!sequential) return results.config.alpha;
  return sequential.looks[earlyStop(results)?.look ?? sequential.looks.length - 1]!.nominalAlpha;
}

/** The look at which the run stopped early, or null. */
export function earlyStop(results: Results): TakenLook | null {
  return results.sequential?.taken.find((look) => look.decision.startsWith('stop')) ?? null;
}

/** A gated comparison of the HTTP phase: an HTTP metric, a service-health metric, or the memory-growth rule. */
interface LookComparison {
  scenario: string;
  metric: string;
  gated: boolean;
  verdict: Verdict;
  change: number;
  pAdjusted?: number;
}

function describeComparison(c: LookComparison): string {
  return `${c.scenario} ${c.metric.replace(/_/g, ' ')}`;
}

/** How a failing comparison is worded in a look's reason; `against`: what head was compared with, when not base beside it. */
function describeFailure(c: LookComparison, level: number, against: string): string {
  if (c.metric === 'errors' && !(c.pAdjusted !== undefined && c.pAdjusted < level)) {
    // decided by the errors rule, not the test (compare.ts, decisiveErrors): no level was reached
    return `${describeComparison(c)} +${Number((100 * c.change).toFixed(1))} points is already a regression: base answered every request as expected, head failed beyond the limit in every start pair`;
  }
  const change = c.metric === 'heap_growth' ? `+${c.change.toFixed(2)} MB per 10k requests` : percentText(c.change);
  const p = c.pAdjusted === undefined ? '' : ` (adjusted p ${formatP(c.pAdjusted)} < ${formatP(level)})`;
  return `${describeComparison(c)} ${change}${against} is already a regression beyond the interim bound${p}`;
}

/**
 * The verdicts that settle a gated metric at an interim look: it can no longer fail the build.
 * "No regression" is one of them: its worse end is inside the limit, and whether it improved
 * beyond the limit cannot change the decision. That makes the stop a non-binding futility stop
 * for the regression side (docs/method.md, "When it stops"): it only ever ends a run as a pass,
 * so it cannot raise the false-fail rate the bounds hold to alpha.
 */
const SETTLED: readonly Verdict[] = ['unchanged', 'improvement', 'no-regression'];
/** With load.stop: verdicts, only these: a faster head goes on until its improvement is called. */
const CLEAR: readonly Verdict[] = ['unchanged', 'improvement'];

/**
 * Why a look stopped clear: "every gated metric is already clear (3 of 3 unchanged or improved)",
 * or, with metrics open only on the better side, "the decision is settled: no gated metric can
 * fail any more (2 unchanged or improved, 1 with no regression: an improvement not ruled out)".
 */
function describeSettled(gated: readonly LookComparison[], levels: number): string {
  const open = gated.filter((c) => c.verdict === 'no-regression').length;
  const levelsToo = levels > 0 ? ` and ${levels} service level${levels === 1 ? '' : 's'} met` : '';
  if (open === 0) return `every gated metric is already clear (${gated.length} of ${gated.length} unchanged or improved)${levelsToo}`;
  const clear = gated.length - open;
  const cleared = clear > 0 ? `${clear} unchanged or improved, ` : '';
  return `the decision is settled: no gated metric can fail any more (${cleared}${open} with no regression: an improvement not ruled out)${levelsToo}`;
}

export function decideLook(results: Results, index: number, analysis: Analysis, at: Date = new Date()): TakenLook {
  const sequential = results.sequential!;
  const look = sequential.looks[index]!;
  const pairs = Math.min(...results.scenarios.map((s) => s.pairs.length));
  const base = { look: index, at: at.toISOString(), pairs };
  if (index === sequential.looks.length - 1) {
    return { ...base, decision: 'final', reason: `all ${pairs} pairs measured; verdicts at the final level ${formatP(look.nominalAlpha)}` };
  }
  const asLook = (c: LookComparison | Omit<LookComparison, 'metric'>): LookComparison => ('metric' in c ? c : { ...c, metric: 'heap_growth' });
  const failing = [...analysis.failing, ...(analysis.health?.failing ?? [])].map(asLook);
  if (failing.length > 0) {
    const against = results.baseline ? ' against the record' : '';
    return { ...base, decision: 'stop-regression', reason: describeFailure(failing[0]!, look.nominalAlpha, against) };
  }
  // A service level is held to the look's level like the relative verdicts (assess/levels.ts).
  const levels = (analysis.levels ?? []).filter((l) => l.gated);
  const above = levels.find((l) => l.verdict === 'fail');
  if (above) {
    const p = `adjusted p ${formatP(above.pAdjusted)} < ${formatP(look.nominalAlpha)}`;
    return { ...base, decision: 'stop-regression', reason: `${above.scenario} ${above.metric.replace(/_/g, ' ')} is already above its service level (${p})` };
  }
  const gated = [...analysis.comparisons, ...(analysis.health?.comparisons ?? []), ...(analysis.health?.heap ?? [])]
    .map(asLook)
    .filter((c) => c.gated);
  const openLevels = levels.filter((l) => l.verdict !== 'pass').map((l) => `${l.scenario} ${l.metric.replace(/_/g, ' ')} level`);
  const settled = results.config.load.stop === 'verdicts' ? CLEAR : SETTLED;
  const open = [...gated.filter((c) => !settled.includes(c.verdict)).map(describeComparison), ...openLevels];
  if (gated.length > 0 && open.length === 0) {
    return { ...base, decision: 'stop-clear', reason: describeSettled(gated, levels.length) };
  }
  const named = open.slice(0, 3).join(', ');
  const more = open.length > 3 ? ` and ${open.length - 3} more` : '';
  return { ...base, decision: 'continue', reason: `not yet clear: ${named}${more} ${open.length === 1 ? 'is' : 'are'} undecided` };
}
