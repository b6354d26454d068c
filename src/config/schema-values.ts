/**
 * The zod building blocks perfgate.yml's keys are made of: durations, commands, paths, integers
 * in a range and numbers with units, each with the message that words its problem as a predicate
 * about the value ("is not a duration; write e.g. 1s"); errors.ts prefixes where and what.
 */

import { posix, win32 } from 'node:path';
import { z } from 'zod';
import { REQUEST_PATH_PATTERN } from './scenario-line.js';
import { DURATION_HINT, DURATION_PATTERN, formatDuration, parseDurationMs } from './units.js';

/**
 * Notes for the configuration reference only (docs/configuration.md): a type name where the JSON
 * type says too little ("duration", not "number or string") and a default that is not a value
 * ("load.connections"). Kept out of the published JSON Schema; `configJsonSchema({ docNotes:
 * true })` copies them in as `x-doc-type` / `x-doc-default` for the generator. Register last in
 * a chain: `.describe()` and `.meta()` return copies that the registry does not know.
 */
export const docNotes = z.registry<{ type?: string; default?: string }>();


/** A zod error option that words a missing value one way and any other problem another. */
export function missingOr(missing: string, otherwise: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? missing : otherwise);
}

/**
 * An integer in [min, max]; `why` explains the range. With a `whyMax` of its own, each bound has
 * its own reason, so a value below the minimum hears about the minimum and one above the maximum
 * about the maximum.
 */
export function intInRange(min: number, max?: number, why?: string, whyMax = why) {
  const message = (allowed: string, reason: string | undefined) => `is not allowed; use ${allowed}${reason ? ` (${reason})` : ''}`;
  const range = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  const own = whyMax !== why;
  const low = message(own ? `an integer of at least ${min}` : range, why);
  const int = z.int({ error: low }).min(min, { error: low });
  return max === undefined ? int : int.max(max, { error: message(own ? `an integer of at most ${max}` : range, whyMax) });
}

export function duration(range: { minMs: number; maxMs: number }) {
  const notDuration = `is not a duration; ${DURATION_HINT}`;
  const schema = z
    .union([z.number(), z.string().regex(DURATION_PATTERN, { error: notDuration })], { error: notDuration })
    .transform((value, ctx) => {
      const ms = parseDurationMs(value);
      if (ms < range.minMs || ms > range.maxMs) {
        ctx.addIssue({
          code: 'custom',
          input: value,
          message: `is out of range; use ${formatDuration(range.minMs)} to ${formatDuration(range.maxMs)}`,
        });
        return z.NEVER;
      }
      return ms;
    });
  return schema.register(docNotes, { type: 'duration' });
}

/** A shell command; surrounding whitespace (YAML block scalars end in "\n") is not part of it. */
export function command() {
  return z.string().trim().register(docNotes, { type: 'command' });
}

/** env and header values: YAML reads `PORT: 3000` as a number, the process wants a string. */
export function scalarText(what: string) {
  return z
    .union([z.string(), z.number(), z.boolean()], { error: `is not ${what}; write a string, number or true/false` })
    .transform(String);
}

export function requestPath(missing = 'is required') {
  return z
    .string({ error: missingOr(missing, "is not a path; write one starting with '/', e.g. /hello") })
    .regex(REQUEST_PATH_PATTERN, {
      error: "is not a path; it must start with '/' and contain no spaces, e.g. /hello?name=x",
    })
    .register(docNotes, { type: 'path' });
}

/**
 * A path inside the tree, normalised (posix separators, no "./", no trailing "/"). Relative and
 * inside: base and head are separate checkouts, so an absolute path or one escaping with '..'
 * would reach the same files for both sides. `what` words the fix: "a directory relative to the
 * repository root, e.g. packages/api".
 */
export function pathInsideTree(
  normalise: (value: string) => string,
  what: { relative: string; inside: string },
  { glob = false }: { glob?: boolean } = {},
) {
  return z.string().transform((value, ctx) => {
    const trimmed = value.trim();
    // A glob's leading ! excludes; the path it excludes is checked like any other.
    const not = glob && trimmed.startsWith('!') ? '!' : '';
    const path = trimmed.slice(not.length);
    const normalised = posix.normalize(normalise(path)).replace(/\/+$/, '') || '.';
    // In a glob a backslash escapes (\[ is a literal [), so only a drive letter marks a Windows path.
    const windowsAbsolute = glob ? /^[A-Za-z]:[\\/]/.test(path) : win32.isAbsolute(path);
    if (posix.isAbsolute(normalised) || windowsAbsolute) {
      ctx.addIssue({ code: 'custom', input: value, message: `is absolute; write ${what.relative}` });
      return z.NEVER;
    }
    if (normalised === '..' || normalised.startsWith('../')) {
      ctx.addIssue({ code: 'custom', input: value, message: `is outside the repository; write ${what.inside}` });
      return z.NEVER;
    }
    return not + normalised;
  });
}


/**
 * A number as the user writes it, with or without its unit ("5%" or 5, "0.5MB" or 0.5): parsed,
 * range-checked, and every error ends with the same hint.
 */
export function unitValue(options: {
  noun: string;
  pattern: RegExp;
  hint: string;
  parse: (value: string | number) => number;
  inRange: (value: number) => boolean;
}) {
  const notOne = `is not a ${options.noun}; ${options.hint}`;
  return z.union([z.number(), z.string().regex(options.pattern, { error: notOne })], { error: notOne }).transform((value, ctx) => {
    const parsed = options.parse(value);
    if (!options.inRange(parsed)) {
      ctx.addIssue({ code: 'custom', input: value, message: `is out of range; ${options.hint}` });
      return z.NEVER;
    }
    return parsed;
  });
}

