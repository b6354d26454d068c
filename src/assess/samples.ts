/**
 * Descriptive facts the reports show next to the verdicts, read straight from the raw pairs:
 * the spread of the per-pair changes (the noise a reader should judge a change against) and the
 * requests that failed per side. Pure.
 */
import type { FailureTally, Pair, Quartiles, Results, Side } from '../results/types.js';
import { quantile } from '../stats/descriptive.js';

const SIDES: readonly Side[] = ['base', 'head'];

/** The middle half of some changes (quartiles, R type 7); null with fewer than 2. */
export function middleHalf(changes: readonly number[]): Quartiles | null {
  if (changes.length < 2) return null;
  return { q1: quantile(changes, 0.25), q3: quantile(changes, 0.75) };
}

/** The middle half of the per-pair changes head/base − 1 (same index = same pair); pairs without a finite ratio are left out. */
export function pairNoise(base: readonly number[], head: readonly number[]): Quartiles | null {
  return middleHalf(base.map((b, i) => head[i]! / b - 1).filter((change) => Number.isFinite(change)));
}

function tallySide(scenario: string, side: Side, pairs: Pair[]): FailureTally {
  const tally: FailureTally = { scenario, side, requests: 0, non2xx: 0, statuses: {}, errors: 0, timeouts: 0 };
  for (const pair of pairs) {
    const slice = pair[side];
    tally.requests += slice.requests;
    tally.non2xx += slice.non2xx;
    for (const [status, n] of Object.entries(slice.statuses ?? {})) tally.statuses[status] = (tally.statuses[status] ?? 0) + n;
    tally.errors += slice.errors;
    tally.timeouts += slice.timeouts;
  }
  return tally;
}

/** Requests per scenario and side (scenarios in run order, base first), failed or not. */
export function tallyRequests(results: Results): FailureTally[] {
  return results.scenarios.flatMap((s) =>
    SIDES.map((side) => {
      const tally = tallySide(s.name, side, s.pairs);
      const answer = s.unexpectedAnswer?.[side];
      const logError = results.serviceErrors?.[side];
      return { ...tally, ...(answer && { answer }), ...(logError && { logError }) };
    }),
  );
}

/** Whether any request of the tally failed (non-2xx, error or timeout). */
export function hasFailures(t: FailureTally): boolean {
  return t.non2xx + t.errors + t.timeouts > 0;
}
