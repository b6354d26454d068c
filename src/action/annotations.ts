/**
 * Warning annotations on the pull request's diff: a regression's culprit, at its function's line,
 * with the time it added. GitHub shows an annotation beside the code only in a file the pull
 * request changed, so only culprits in such files get one; a few at most, so they point rather
 * than flood. Pure: the gate mode sends them (core.warning).
 */
import { regressedScenarios } from '../assess/read.js';
import { changedFileOf, changedByPr } from '../profile/changes.js';
import { displayName } from '../profile/names.js';
import { formatChangeOf, formatMetricName } from '../report/format.js';
import { withConfirmation } from '../report/confirmation.js';
import { formatAdded, formatSharePoints } from '../report/document/function-words.js';
import type { FunctionChange } from '../profile/diff.js';
import type { Assessment } from '../assess/types.js';
import type { Results } from '../results/types.js';

/** Most annotations one run adds. */
export const MAX_ANNOTATIONS = 3;

export interface Annotation {
  /** Relative to the repository root, as GitHub places annotations. */
  file: string;
  line: number;
  title: string;
  /** "resolvePermissions: +210 µs CPU per request in head (GET /users/:id throughput −38.6%)". */
  message: string;
}

/**
 * One annotation per culprit of a regressed scenario whose file the pull request changed, the
 * scenarios with a gated regression first; a function that is the culprit of several scenarios
 * is annotated once, with the first. None when the run recorded no diff.
 */
export function culpritAnnotations(results: Results, analysis: Assessment): Annotation[] {
  const changes = results.changes;
  if (changes === undefined) return [];
  const gated = new Set(analysis.comparisons.filter((c) => c.verdict === 'regression' && c.gated).map((c) => c.scenario));
  const culprits = regressedScenarios(analysis).sort((a, b) => Number(gated.has(b.scenario)) - Number(gated.has(a.scenario)));
  const out: Annotation[] = [];
  const seen = new Set<string>();
  const add = (fn: FunctionChange, title: string, message: string) => {
    const where = `${fn.file}:${fn.line}`;
    if (out.length >= MAX_ANNOTATIONS || fn.line <= 0 || seen.has(where) || changedFileOf(fn, changes) === null) return;
    seen.add(where);
    out.push({ file: fn.file, line: fn.line, title, message });
  };
  const size = (fn: FunctionChange) => (fn.added === null ? `${formatSharePoints(fn.attributedChange)} of CPU samples` : `${formatAdded(fn.added)} CPU per request`);
  for (const { scenario, regression: shown, culprit } of culprits) {
    if (culprit === null) continue;
    const regression = `${formatMetricName(shown.metric)} ${formatChangeOf(shown.metric, shown.change)}`;
    const { fn, edited } = culprit;
    // the edited function first: it is where the reviewer can act, and the most new time may sit in a file the PR did not touch
    if (edited !== null) {
      add(edited, `perfgate: most new time in code this PR changed, ${scenario}`, `${displayName(edited)}: ${size(edited)} in head (${scenario} ${regression}); ${displayName(fn)} (${fn.file}:${fn.line}), which this PR did not change, added ${size(fn)}`);
    }
    const unchanged = changedByPr(fn, changes) === false ? '; this function is not changed by this PR: something that changed calls it more, or with larger inputs' : '';
    add(fn, `perfgate: most new time in ${scenario}`, withConfirmation(`${displayName(fn)}: ${size(fn)} in head (${scenario} ${regression})${unchanged}`, analysis, scenario));
  }
  return out;
}
