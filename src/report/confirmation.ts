/**
 * The third arm's answer in words, beside the culprit wherever it is named (the headline, the
 * comment, the annotation): "reverting this PR's change to resolvePermissions gives back 34.1 of
 * the 35.3 points (95% CI 32.9 … 35.0): confirmed". The finding is assess/confirmation.ts's.
 */
import type { Assessment, ConfirmationFinding } from '../assess/types.js';
import { MINUS } from '../stats/format.js';

/** Points with one decimal and a typographic minus, as the report's other figures: "34.1", "−1.2". */
function points(value: number): string {
  const text = value.toFixed(1);
  return text === '-0.0' ? '0.0' : text.replace('-', MINUS);
}

/** The finding as one clause; null when there is none. */
export function describeConfirmation(finding: ConfirmationFinding | null): string | null {
  if (finding === null) return null;
  const { name } = finding;
  if (finding.status === 'skipped' || finding.givenBack === null || finding.points === null) return `not tested by a revert: ${finding.reason ?? 'no result'}`;
  const { estimate, low, high } = finding.givenBack;
  // More than one block: the first left the answer unclear (its 95% is shared by the looks: docs/profiling.md).
  const blocks = finding.blocks > 1 ? ` over ${finding.blocks} blocks` : '';
  const interval = Number.isFinite(low) && Number.isFinite(high) ? `95% CI ${points(low)} … ${points(high)}${blocks}` : `too few start pairs (${finding.starts}) for an interval${blocks}`;
  const verdict =
    finding.status === 'confirmed' ? 'confirmed' : finding.status === 'explains-little' ? `${name} explains little of this drop` : `not clear how much of this drop ${name} explains`;
  // The arm is measured after the main blocks, under the machine's load of that moment: it can
  // give back more than the drop measured before it, said as all of it and the figure measured.
  const given =
    estimate > finding.points
      ? `gives back all of the ${points(finding.points)} points (measured ${points(estimate)}; ${interval})`
      : `gives back ${points(estimate)} of the ${points(finding.points)} points (${interval})`;
  return `reverting this PR's change to ${name} ${given}: ${verdict}`;
}

/**
 * What neither of two measured reverts gives back: "together they give back 28.0 of the 35.3
 * points; the other 7.3 are in neither". Each arm reverted one culprit alone, so the sum is an
 * estimate of what both would; null when either has no estimate.
 */
function describeRest(first: ConfirmationFinding, next: ConfirmationFinding): string | null {
  if (first.givenBack === null || next.givenBack === null || first.points === null) return null;
  const together = first.givenBack.estimate + next.givenBack.estimate;
  const rest = first.points - together;
  const head = `together the two reverts give back ${points(together)} of the ${points(first.points)} points`;
  return rest > 0.05 ? `${head}; the other ${points(rest)} are in neither culprit` : head;
}

/**
 * The scenario's findings in words, or null when no third arm ran for it: the first culprit's,
 * and when its revert explained too little, the next one's and what the two leave unexplained.
 */
export function scenarioConfirmation(assessment: Pick<Assessment, 'subjects'>, scenario: string): string | null {
  const subject = assessment.subjects.find((s) => s.type === 'scenario' && s.scenario === scenario);
  if (subject?.type !== 'scenario') return null;
  const first = describeConfirmation(subject.confirmation);
  const next = subject.nextConfirmation;
  if (first === null || next === null || subject.confirmation === null) return first;
  const rest = describeRest(subject.confirmation, next);
  return [first, `the next culprit: ${describeConfirmation(next)}`, ...(rest === null ? [] : [rest])].join('; ');
}

/** A culprit's text with the finding after it: "most new time in X (…); reverting …: confirmed". */
export function withConfirmation(text: string, assessment: Pick<Assessment, 'subjects'>, scenario: string): string {
  const said = scenarioConfirmation(assessment, scenario);
  return said === null ? text : `${text}; ${said}`;
}
