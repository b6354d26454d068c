/**
 * What a route answered and what a service logged, in results.json: the answers a report quotes
 * beside the numbers, and a route head broke at its first warm-up.
 */
import { z } from 'zod';
import { fraction, message, name, NAME_MAX } from './schema-values.js';

/** A status the scenario does not expect, and the start of the body that came with it (one line, cut at 160 characters by the engine). */
export const unexpectedAnswerSchema = z.object({ status: z.int().min(100).max(999), body: z.string().max(NAME_MAX) });

/**
 * The first error a side's service printed in its log during the HTTP measurement (found as
 * src/engine/process/log-excerpt.ts finds it), recorded when that side failed requests: the
 * stack that says why, for a report to quote beside the answer.
 */
export const loggedErrorSchema = z.object({
  /** The log, relative to the run's directory (logs/head.log). */
  log: name,
  /** The error's first line's number in the log (1-based). */
  line: z.int().min(1),
  /** The error's lines and stack. */
  text: message,
  /** The first place in the project's own code among them (`server.js:12`); absent when none is. */
  place: name.optional(),
});

/**
 * A route head broke, found at the scenario's first warm-up: head failed more than half of its
 * requests there (a status the scenario does not expect, or no answer), or answered a body that
 * does not match expect: (without expect:, a 2xx whose body says it failed), where base did not. The run stops at that warm-up: the pull request's
 * verdict is already known, and measuring or profiling an error page only costs minutes.
 */
export const headBrokenSchema = z.object({
  /** Each side's share of its warm-up requests not answered as expected; absent when the statuses were as expected and head's body said it failed. */
  shares: z.object({ base: fraction, head: fraction }).optional(),
  /** What head answered to one more request: its status (null: no answer), and the start of its body on one line. */
  status: z.int().min(100).max(999).nullable(),
  body: z.string().max(NAME_MAX),
  /** Why there was no answer ("did not answer within 5 s"); absent when one came. */
  noAnswer: name.optional(),
  /** Without expect:, what a 2xx body said went wrong (`"success": false`); absent otherwise. */
  failure: name.optional(),
  /** How the body differs from what expect: declares (`success is false, not true`); absent otherwise. */
  mismatch: name.optional(),
  /** Base's status to the same request (null: no answer). */
  baseStatus: z.int().min(100).max(999).nullable(),
});
