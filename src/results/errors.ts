import type { Slice } from './types.js';

/**
 * The share of requests not answered as expected, of a slice or of a side's slices summed: a
 * status the scenario does not expect (non2xx), or no answer at all (errors: a failed connection
 * or a timeout; the load counts every timeout among the errors too, so timeouts are not added
 * again). A request without an answer is no response, so it is added to the responses to count
 * what was sent. NaN when nothing was. The gate's errors metric and the reports' words both use it.
 */
export function errorShare(counts: Pick<Slice, 'requests' | 'non2xx' | 'errors'>): number {
  const sent = counts.requests + counts.errors;
  return sent > 0 ? (counts.non2xx + counts.errors) / sent : Number.NaN;
}
