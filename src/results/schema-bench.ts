/** results.json's micro-benchmark records: one per benchmark per process (the schema is schema.ts). */
import { z } from 'zod';
import { count, finite, isoTime, list, LOG_MAX, message, name, nonNegative, side } from './schema-values.js';

/* ---------- micro-benchmarks: one record per benchmark per process ---------- */

export const benchLibrarySchema = z.enum(['benchmark', 'tinybench', 'mitata', 'vitest']);

/** One benchmark as one process measured it (captured from the library, never from its output). */
export const benchmarkRecordSchema = z.object({
  library: benchLibrarySchema,
  name,
  /** The benchmark.js Suite, tinybench Bench or vitest describe() name; null when there is none (mitata, a lone Benchmark, a vitest bench() outside describe). */
  suite: name.nullable(),
  /** 1, or n for the n-th benchmark of the same suite and name in one process (kept apart, in order). */
  occurrence: count,
  /** The one number per process: 1 / mean time per operation, operations per second. null when it threw. */
  opsPerSec: nonNegative.nullable(),
  /** The library's relative margin of error, % (benchmark.js, tinybench, vitest); null when it has none. */
  rme: finite.nullable(),
  /** Samples the library took in this process (benchmark.js: cycles; tinybench, mitata: timed batches or calls). */
  sampleCount: count,
  /** Those samples as ns per operation; at most 1,000, evenly spaced, when the library took more; none from vitest, whose report leaves them out. */
  samplesNs: list(nonNegative),
  /** The library's own statistics for this benchmark, in its own units, samples left out: only ever serialised back, never rendered. */
  stats: z.record(name, z.unknown()).nullable(),
  /** What the benchmark threw, when it did (it then has no number). */
  error: message.nullable(),
});

/** A library copy a benchmark process loaded and perfgate hooked (or could not). */
export const benchLibraryCopySchema = z.object({
  name,
  version: name,
  /** The module file that was loaded: the project's own copy. */
  path: name,
  /** Why perfgate cannot read this copy (a version without the hooks it uses); null when hooked. */
  unsupported: message.nullable(),
});

/** One benchmark file run once on one side, in its own process. */
export const benchRunSchema = z.object({
  round: count,
  /** The file, relative to the service directory, posix separators. */
  file: name,
  side,
  startedAt: isoTime,
  /** Wall time of the process, ms. */
  durationMs: nonNegative,
  exitCode: z.int().nullable(),
  signal: z.string().max(20).nullable(),
  timedOut: z.boolean(),
  /** Why this run gave no usable numbers (it threw, exited non-zero, hung, captured nothing); null when it worked. */
  error: message.nullable(),
  benchmarks: list(benchmarkRecordSchema),
  libraries: list(benchLibraryCopySchema),
  /** stdout and stderr of the process. */
  logs: z.object({ stdout: z.string().max(LOG_MAX), stderr: z.string().max(LOG_MAX) }),
});

export const benchmarkResultsSchema = z.object({
  /** Benchmark files found per side, relative to the service directory. */
  files: z.object({ base: list(name), head: list(name) }),
  /** Rounds planned (config.benchmarks.rounds). */
  rounds: count,
  /** Every process, in the order it ran; written after each base/head pair. */
  runs: list(benchRunSchema),
  /** Set when the phase stopped before all rounds ran: why. */
  stoppedEarly: message.nullable(),
});
