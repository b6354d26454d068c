/**
 * The two choices the action adds to the gate's verdicts: whether an accept label turns a
 * failing decision into a pass, and whether this run should create a comment. Pure.
 */
import type { Analysis } from '../results/types.js';
import type { CommentMode } from './inputs.js';

export interface FinalDecision {
  decision: 'pass' | 'fail';
  /** The label that turned a failure into a pass, as the PR spells it; null when none did. */
  acceptedBy: string | null;
}

/** GitHub treats label names case-insensitively, so "Perf-Regression-Accepted" counts too. */
export function decide(analysis: Analysis, labels: string[], acceptLabel: string): FinalDecision {
  if (analysis.decision === 'pass') return { decision: 'pass', acceptedBy: null };
  // An accept label accepts a measured regression; an unfair run measured nothing to accept.
  if (analysis.unfair?.length) return { decision: 'fail', acceptedBy: null };
  const label = labels.find((l) => l.toLowerCase() === acceptLabel.toLowerCase());
  return label === undefined ? { decision: 'fail', acceptedBy: null } : { decision: 'pass', acceptedBy: label };
}

/**
 * Whether to create a comment when the PR has none. An existing comment is updated on every
 * run whatever the mode (except never), so it never shows a stale verdict.
 */
export function wantsNewComment(mode: CommentMode, analysis: Analysis): boolean {
  switch (mode) {
    case 'always':
      return true;
    case 'on-change':
      return [...analysis.comparisons, ...(analysis.health?.comparisons ?? []), ...(analysis.health?.heap ?? [])].some(
        // "no regression" is no change the run found, only one it could not rule out on the better side
        (c) => c.verdict !== 'unchanged' && c.verdict !== 'no-regression',
      );
    case 'on-regression':
      return analysis.regressions > 0;
    default:
      return false;
  }
}
