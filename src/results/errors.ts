import { formatPercent } from '../stats/format.js';
import type { HeadBroken, Results, ScenarioResults, Slice } from './types.js';

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

/** The scenarios whose route head broke where base did not (ScenarioResults.headBroken): a run that has any stops measuring. */
export function headBrokenScenarios(results: Pick<Results, 'scenarios'>): ScenarioResults[] {
  return results.scenarios.filter((scenario) => scenario.headBroken);
}

/** A piece of the sentence that says how head broke a route: perfgate's words, or the service's own text (a body), which a printer must escape. */
export interface HeadBrokenPart {
  text: string;
  quoted: boolean;
}

/**
 * How head broke a route, in parts: `head answered 404 "Cannot GET /gone" where base answered 200
 * (100% of head's warm-up requests failed, base 0%)`. One sentence for the log, the check's
 * message and the report's headline, each rendering the quoted body its own way.
 */
export function headBrokenParts(broken: HeadBroken): HeadBrokenPart[] {
  const words = (text: string): HeadBrokenPart => ({ text, quoted: false });
  const parts: HeadBrokenPart[] = [];
  if (broken.status === null) parts.push(words(`head ${broken.noAnswer ?? 'did not answer'}`));
  else {
    parts.push(words(`head answered ${broken.status}`));
    parts.push(...(broken.body ? [words(' "'), { text: broken.body, quoted: true }, words('"')] : [words(' with an empty body')]));
    if (broken.failure) parts.push(words(', a body that says the request failed ('), { text: broken.failure, quoted: true }, words(')'));
    if (broken.mismatch) parts.push(words(', a body that does not match expect: ('), { text: broken.mismatch, quoted: true }, words(')'));
  }
  parts.push(words(broken.baseStatus === null ? ' where base did not answer this request' : ` where base answered ${broken.baseStatus}`));
  if (broken.shares) {
    parts.push(words(` (${formatPercent(broken.shares.head)} of head's warm-up requests failed, base ${formatPercent(broken.shares.base)})`));
  }
  return parts;
}

/** headBrokenParts as plain text, for a log line or a message. */
export function describeHeadBroken(broken: HeadBroken): string {
  return headBrokenParts(broken)
    .map((part) => part.text)
    .join('');
}

/**
 * Why a culprit's revert was not measured when the reverted head failed requests head answered
 * (shares of requests, 0–1): the function's old lines need what the pull request changed
 * elsewhere (base's handler reading a cache head no longer builds at start-up), so the reverted
 * head answers errors, fast, and its speed says nothing about the function.
 */
export function describeRevertFailed(reverted: number, head: number): string {
  const percent = (fraction: number) => `${Number((100 * fraction).toFixed(1))}%`;
  // head's share is NaN when none of its requests had finished by then (a slow route's short warm-up)
  const headShare = Number.isFinite(head) ? `head ${percent(head)}` : 'head: no request finished yet';
  return `the reverted head failed ${percent(reverted)} of its requests (${headShare}): the function's old lines need what this PR changed elsewhere, so the revert does not stand on its own`;
}
