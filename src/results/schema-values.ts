/**
 * The building blocks of results.json's schema: bounded names, messages, counts and lists, and
 * the formats of shas, times and methods (schema.ts says why everything is bounded).
 */
import { z } from 'zod';

/** Longest name-like text (scenario, ref, function, file path), characters. */
export const NAME_MAX = 2_000;
/** Longest message-like text (errors, warnings, reasons), characters. */
export const MESSAGE_MAX = 20_000;
/** Longest captured output of a benchmark process, characters (the engine keeps tails). */
export const LOG_MAX = 1_000_000;
/** Most entries in any list: far above what a run measures (pairs, processes, functions). */
export const LIST_MAX = 100_000;

export const name = z.string().max(NAME_MAX);
export const message = z.string().max(MESSAGE_MAX);
export const count = z.int().min(0);
export const finite = z.number();
export const nonNegative = z.number().min(0);
export const positive = z.number().gt(0);
export const fraction = z.number().min(0).max(1);
export const list = <T extends z.ZodType>(item: T) => z.array(item).max(LIST_MAX);
export const sha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-character hex commit sha');
export const isoTime = z.string().max(40).regex(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/, 'must be an ISO time');
export const stringMap = z.record(name, message);
export const httpMethod = z.string().regex(/^[A-Z][A-Z-]{0,19}$/, 'must be an HTTP method');
export const cpuList = z.string().regex(/^[\d,-]{1,200}$/, 'must be a CPU list');

export const sideSchema = z.enum(['base', 'head']);
export const side = sideSchema;
