/**
 * The first error each side's service logged while it failed requests, kept in results.json so a
 * report can say why a route failed in the service's own words (its stack: file and line) and not
 * only by the status and body it answered. Read after the HTTP phase, from the log every start of
 * the side appended to.
 */
import { join, relative } from 'node:path';
import type { Results, Side } from '../../results/types.js';
import { firstErrorInFile, ownPlace } from '../process/log-excerpt.js';
import type { RunSession } from '../session.js';
import type { Tree } from '../workspace/trees.js';

/** Whether any slice of the side answered a request other than as expected, or not at all; or head broke a route at its warm-up. */
function failedRequests(results: Results, side: Side): boolean {
  if (side === 'head' && results.scenarios.some((s) => s.headBroken)) return true;
  return results.scenarios.some((s) => s.pairs.some((pair) => pair[side].non2xx + pair[side].errors + pair[side].timeouts > 0));
}

/** Records, per side that failed requests, the first error in its service's log (logs/<side>.log). */
export function recordLoggedErrors(session: RunSession, trees: Record<Side, Tree>, outDir: string): void {
  for (const side of ['base', 'head'] as const) {
    if (!failedRequests(session.results, side)) continue;
    const log = join(session.logDir, `${side}.log`);
    const error = firstErrorInFile(log);
    if (!error) continue;
    const place = ownPlace(error.text, trees[side].root);
    session.update((r) => {
      r.serviceErrors = { ...r.serviceErrors, [side]: { log: relative(outDir, log), line: error.line, text: error.text, ...(place && { place }) } };
    });
  }
}
