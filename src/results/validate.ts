/**
 * results.json as untrusted input. The fork-safe report workflow holds a write token and reads
 * a results file that a job running the pull request's code uploaded: every field the
 * renderers and the gate read is checked here, once, at the door, against the one schema the
 * results types come from (results/schema.ts: its strictness is described there). A file that
 * does not fit becomes one ResultsFileError naming the first few bad fields (never a stack trace).
 *
 * A file of an earlier release is first given the current shape (results/migrate.ts), so it is
 * checked as strictly as a new one. test/unit/results-validate.test.ts checks that a complete,
 * engine-shaped file passes through unchanged.
 */
import { ResultsFileError, upgradeResults } from './migrate.js';
import { resultsSchema } from './schema.js';
import type { Results } from './types.js';

/** Most problems listed in the error: enough to see what was forged or broken, short enough to read. */
const ISSUES_SHOWN = 5;

/** A zod path as results.json spells it: scenarios[0].pairs[3].base.rps. */
function formatPath(path: readonly PropertyKey[]): string {
  // Keys can come from the file (service.env, gc kinds): shown as letters, digits, "_", "-" and "." only.
  const key = (p: PropertyKey) => String(p).slice(0, 60).replace(/[^\w.-]/g, '?');
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${key(p)}`)).join('') || '(the file)';
}

/**
 * `data` (parsed JSON from an untrusted file) as Results, or one ResultsFileError that names
 * the file and the first bad fields. Values from the file are never echoed, only their paths.
 */
export function validateResults(data: unknown, source: string): Results {
  const parsed = resultsSchema.safeParse(upgradeResults(data, source));
  if (parsed.success) return parsed.data as Results;
  const problems = parsed.error.issues.slice(0, ISSUES_SHOWN).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const more = parsed.error.issues.length > ISSUES_SHOWN ? ` (and ${parsed.error.issues.length - ISSUES_SHOWN} more)` : '';
  throw new ResultsFileError(
    `${source} is not a results file this perfgate can report: ${problems.join('; ')}${more}. ` +
      'It was not written by this perfgate release, or it was changed after the run: report it with the release that measured it, or measure again.',
  );
}
