/**
 * How the reports, verdicts.json and the annotations name a function and where its time went:
 * "arrow in formatPrices", "compressBody (src/x.js:7, changed by this PR)", "zlib
 * processChunkSync". Words only; which function is the culprit is decided in culprit.ts. Pure.
 */
import type { FunctionId } from '../results/types.js';
import { isAnonymous, REGEXP_PREFIX } from './diff.js';
import { describeLocation } from './frames.js';

/** Longest pattern quoted in a culprit's text. */
const PATTERN_CHARS = 32;

/**
 * A function's name for people. An anonymous function is named by its kind and the named
 * function around it in the source, "arrow in formatPrices", or "arrow at top level"; without
 * its source (older results, a file that could not be read) by its place, as V8 has no name.
 */
export function displayName(fn: Pick<FunctionId, 'name' | 'enclosing' | 'kind'>): string {
  if (!isAnonymous(fn) || fn.enclosing === undefined) return fn.name;
  const kind = fn.kind ?? 'function';
  return fn.enclosing === '' ? `${kind} at top level` : `${kind} in ${fn.enclosing}`;
}

/**
 * "compressBody (src/x.js:7)", "arrow in formatPrices (src/x.js:8)"; with whether the pull
 * request changed it, when that is known: "compressBody (src/x.js:7, changed by this PR)".
 */
export function describeFunction(fn: FunctionId, changed: boolean | null = null): string {
  return `${displayName(fn)} (${describeLocation(fn)}${describeChanged(changed)})`;
}

/**
 * The culprit function and its place. Beside the edited function the PR did change, "not
 * changed by this PR" needs no advice on where to look: that function is where.
 */
export function describeCulpritPlace({ fn, changed, edited }: { fn: FunctionId; changed: boolean | null; edited: FunctionId | null }): string {
  return edited === null ? describeFunction(fn, changed) : `${displayName(fn)} (${describeLocation(fn)}, not changed by this PR)`;
}

/**
 * Where to look, after a culprit's place: in the function the PR edited, or (it did not edit
 * it) at what calls it, which the PR did change.
 */
export function describeChanged(changed: boolean | null): string {
  if (changed === null) return '';
  return changed ? ', changed by this PR' : ', not changed by this PR: called more, or with larger inputs, by something that changed';
}

/**
 * Where a frame's code comes from, in a word or two: the Node core module ("zlib"), the
 * dependency's package ("fastify"), the regular expression ("regex /^([a-z]+)*$/"), or the
 * V8/native function's name ("stringify").
 */
export function describeOrigin(fn: FunctionId): string {
  switch (fn.category) {
    case 'node':
      return fn.file.replace(/^node:/, '').replace(/^internal\//, '');
    case 'dependency':
      return fn.package ?? describeLocation(fn);
    case 'native': {
      if (!fn.name.startsWith(REGEXP_PREFIX)) return fn.name;
      const pattern = fn.name.slice(REGEXP_PREFIX.length);
      return `regex /${pattern.length > PATTERN_CHARS ? `${pattern.slice(0, PATTERN_CHARS)}…` : pattern}/`;
    }
    case 'own':
      return displayName(fn);
  }
}

/** "zlib processChunkSync", "regex /^([a-z]+)*$/" (a regex frame is its own name), "fastify serialize". */
export function describeInto(fn: FunctionId): string {
  const origin = describeOrigin(fn);
  return fn.category === 'native' ? origin : `${origin} ${displayName(fn)}`;
}
