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
  // A dependency's revert is its whole folder as base installed it: the package is what was reverted.
  const name = finding.culprit.package ?? finding.culprit.name;
  if (finding.status === 'skipped' || finding.givenBack === null || finding.points === null) return `not tested by a revert: ${finding.reason ?? 'no result'}`;
  const { estimate, low, high } = finding.givenBack;
  const interval = Number.isFinite(low) && Number.isFinite(high) ? `95% CI ${points(low)} … ${points(high)}` : `too few start pairs (${finding.starts}) for an interval`;
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

/** The scenario's finding in words, or null when no third arm ran for it. */
export function scenarioConfirmation(assessment: Pick<Assessment, 'subjects'>, scenario: string): string | null {
  const subject = assessment.subjects.find((s) => s.type === 'scenario' && s.scenario === scenario);
  return subject?.type === 'scenario' ? describeConfirmation(subject.confirmation) : null;
}

/** A culprit's text with the finding after it: "most new time in X (…); reverting …: confirmed". */
export function withConfirmation(text: string, assessment: Pick<Assessment, 'subjects'>, scenario: string): string {
  const said = scenarioConfirmation(assessment, scenario);
  return said === null ? text : `${text}; ${said}`;
}
