/**
 * Warning annotations on the pull request's diff: a regression's culprit, at its function's line,
 * with the time it added. GitHub shows an annotation beside the code only in a file the pull
 * request changed, so only culprits in such files get one; a few at most, so they point rather
 * than flood. Pure: the gate mode sends them (core.warning).
 */
import { changedFileOf, changedByPr } from '../profile/changes.js';
import { displayName } from '../profile/culprit.js';
import { formatAdded, formatPoints, regressionCulprits } from '../report/hot-functions.js';
import type { Analysis, Results } from '../results/types.js';

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
export function culpritAnnotations(results: Results, analysis: Analysis): Annotation[] {
  const changes = results.changes;
  if (changes === undefined) return [];
  const gated = new Set(analysis.comparisons.filter((c) => c.verdict === 'regression' && c.gated).map((c) => c.scenario));
  const culprits = regressionCulprits(results, analysis).sort((a, b) => Number(gated.has(b.scenario)) - Number(gated.has(a.scenario)));
  const out: Annotation[] = [];
  const seen = new Set<string>();
  for (const { scenario, regression, culprit } of culprits) {
    if (culprit === null || out.length >= MAX_ANNOTATIONS) continue;
    const { fn } = culprit;
    const where = `${fn.file}:${fn.line}`;
    if (fn.line <= 0 || seen.has(where) || changedFileOf(fn, changes) === null) continue;
    seen.add(where);
    const size = fn.added === null ? `${formatPoints(fn.attributedChange)} of CPU samples` : `${formatAdded(fn.added)} CPU per request`;
    const unchanged = changedByPr(fn, changes) === false ? '; this function is not changed by this PR: something that changed calls it more, or with larger inputs' : '';
    out.push({
      file: fn.file,
      line: fn.line,
      title: `perfgate: most new time in ${scenario}`,
      message: `${displayName(fn)}: ${size} in head (${scenario} ${regression})${unchanged}`,
    });
  }
  return out;
}
