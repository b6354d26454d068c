/** results.json's profile records: both sides' CPU profiles under the same load (the schema is schema.ts). */
import { z } from 'zod';
import { count, list, message, name, nonNegative } from './schema-values.js';

/* ---------- profiles: CPU profiles of both sides under the same load (profiling phase) ---------- */

/**
 * Where a function's code lives: the service's own code (under the repository root), a
 * dependency (node_modules, or any file outside the repository), Node.js core (node:…), or
 * V8/native (builtins, C++ bindings, garbage collector, "(program)").
 */
export const functionCategorySchema = z.enum(['own', 'dependency', 'node', 'native']);

/** A function as the profiles name it; name + file + line identify it across processes and sides. */
export const functionIdSchema = z.object({
  /** V8's name; an anonymous function is named by its location, "(anonymous payload.js:12:20)". */
  name,
  /** Path relative to the repository root (own code and dependencies inside it), the absolute path outside it, node:… for core, "" for native. */
  file: name,
  /** 1-based line and column of the function's start; 0 when unknown (native). */
  line: count,
  column: count,
  category: functionCategorySchema,
  /** npm package of a dependency (from its node_modules path); null otherwise. */
  package: name.nullable(),
  // Own-code attribution, all optional: absent where the source could not be read (and in results
  // from before it existed, which nothing can fill).
  /** Own code: the innermost named function around this one in the source ("" at the top level of its file). */
  enclosing: name.optional(),
  /** Own code: what the source text is, from its first characters. */
  kind: z.enum(['function', 'arrow', 'method']).optional(),
  /** Own code: a hash of the function's source text (sha1, 12 hex digits), to match it across base and head wherever it moved. */
  hash: z.string().regex(/^[0-9a-f]{1,64}$/, 'must be a hex hash').optional(),
  /** Own code: the function's last line (1-based), from V8's coverage; absent when coverage left the function out. */
  endLine: count.optional(),
  /**
   * Own code run from a built file (dist/server.js made by tsc): the source line its first line
   * was made from, by the built file's source map (src/server.ts:9), which people name it by;
   * `file` and `line` stay where it ran. Absent without a source map.
   */
  source: z.object({ file: name, line: count }).optional(),
});

/** What an own function's samples (self and below it, up to the next own function) went into. */
export const attributedIntoSchema = functionIdSchema.extend({ samples: count });

export const functionStatsSchema = functionIdSchema.extend({
  /** Samples with this function on top of the stack (its own code running). */
  self: count,
  /** Samples with this function anywhere on the stack (a recursive function counted once per sample). */
  total: count,
  /** Why V8 deoptimized it or would not optimize it, when a profile records a reason. */
  deoptReasons: list(message).optional(),
  /** Own code: samples charged to it as the innermost own function on the stack (its self time plus the dependency, core, native and regex frames it calls). */
  attributed: count.optional(),
  /** Own code: the frames its attributed samples landed in other than itself (the hottest few), by samples. */
  into: list(attributedIntoSchema).optional(),
  /** Dependency code: its self samples plus those of the Node core and V8/native frames it calls, up to the next dependency or own function. */
  withNatives: count.optional(),
  /** Own code: what V8's --trace-deopt / --trace-opt said of it during the profiled run. */
  optimization: z.object({ deopts: count, reasons: list(message), notOptimized: list(message).optional() }).optional(),
});

/** One side's profiles merged and counted over the profiled load window. */
export const profileSummarySchema = z.object({
  /** Samples in the window that were not idle: the denominator of every percentage. */
  samples: count,
  /** Samples in the window spent idle (waiting for I/O), left out of the percentages. */
  idleSamples: count,
  /** Self samples per category. */
  categories: z.object({ own: count, dependency: count, node: count, native: count }),
  /** By self samples, descending; bounded (the hottest by self and by total time, on this side or the other). */
  functions: list(functionStatsSchema),
  /** Functions seen on this side before bounding. */
  functionCount: count,
});

/** A package's samples on one side: every sample whose innermost package frame is this package (with the Node core and V8 code it calls). */
export const packageTimeSchema = z.object({
  /** From the package.json nearest the frame's file. */
  name,
  /** null when that package.json gives none. */
  version: name.nullable(),
  samples: count,
});

/** A function's allocations in the sampled span, bytes (V8's estimate from the sampled allocations). */
export const allocationStatsSchema = functionIdSchema.extend({
  /** Allocated while it was the top JavaScript frame (builtins it calls, such as JSON.stringify, count as its own). */
  self: nonNegative,
  /** Own code: self plus what the dependency and Node core frames it calls allocated, up to the next own function. */
  attributed: nonNegative.optional(),
  /**
   * A frame allocating 1% of the side's bytes or more: the own functions that run below it in the
   * CPU profile, by self samples (the most first, a few). V8's heap profiler books what an inlined
   * function allocates to the function it was inlined into, so a framework's frame can hold the
   * bytes of the service's handler, and a handler those of the helper it calls; the CPU profiler
   * does not.
   */
  ownBelow: list(attributedIntoSchema).optional(),
});

/**
 * V8's sampling heap profile of every process that served responses, collected objects included:
 * what was allocated per function, whatever became of it (src/profile/allocations.ts).
 */
export const allocationProfileSchema = z.object({
  /** Mean bytes between two samples (V8's sampling interval). */
  intervalBytes: count,
  /** Responses the sampled processes finished while sampling (sampling starts at each process's first response). */
  responses: count,
  /** Bytes allocated in the sampled span, all functions. */
  bytes: nonNegative,
  /** Every process's .heapprofile (relative to the run directory), with its bytes and responses. */
  processes: list(z.object({ file: name, bytes: nonNegative, responses: count })),
  /** The functions that allocated most (bounded like the CPU table), with their counterparts on the other side. */
  functions: list(allocationStatsSchema),
  /** Functions that allocated anything, before the bound. */
  functionCount: count,
});

/** One constructor's objects, or the change in them: how many, and their shallow size in bytes. */
export const constructorDeltaSchema = z.object({ name, count: z.number().int(), size: z.number() });

/**
 * The heap at the end of the scenario's load against its start, by constructor (two heap
 * snapshots per process; src/profile/heap-snapshot.ts), taken only where the timed slices flagged
 * a possible leak.
 */
/**
 * What a holder keeps that was made during the load (src/profile/heap-holders.ts): the objects
 * of one group reached first through it, the variable and properties that reach it, its scope's
 * file, and the functions there that add to it (src/profile/holder-writers.ts).
 */
export const keptHolderSchema = z.object({
  kept: name,
  count,
  size: nonNegative,
  path: name.nullable(),
  holder: name,
  file: name.nullable(),
  writers: list(functionIdSchema),
});

export const retainedSchema = z.object({
  /** Why there is no comparison (no process wrote both snapshots, one was above the size bound); null when there is one. */
  skipped: message.nullable(),
  /** Processes whose two snapshots were compared. */
  processes: count,
  /** Shallow size of everything in the snapshots at the load's start and end, bytes (summed over the processes). */
  startBytes: nonNegative,
  endBytes: nonNegative,
  /** End minus start per constructor, the largest growth first; bounded, with the other side's counterparts. */
  constructors: list(constructorDeltaSchema),
  /** Constructors that changed, before the bound. */
  constructorCount: count,
  /** Who holds what was made during the load and is still there at its end, the most bytes first; bounded. Absent in results from before it. */
  holders: list(keptHolderSchema).optional(),
});

export const sideProfileSchema = profileSummarySchema.extend({
  /** How the profiler ran: V8's --cpu-prof in NODE_OPTIONS, or perfgate's preload through an inspector session (Node versions that refuse --cpu-prof in NODE_OPTIONS). */
  profiler: z.enum(['cpu-prof', 'inspector']),
  /** The Node.js version that ran the service (and rendered its flamegraph). */
  nodeVersion: name,
  /** Responses received during the profiled window. */
  requests: count,
  /** Length of the profiled window, ms. */
  windowMs: nonNegative,
  /** Wall time of this side's profiling: start, warm-up, profiled load, stop and reading the profiles, ms. */
  wallMs: nonNegative,
  /** Every process's .cpuprofile (relative to the run directory), with its samples in the window. */
  processes: list(z.object({ file: name, samples: count })),
  /** The merged profile the flamegraph is drawn from (relative to the run directory). */
  merged: name,
  /** Sample moves perfgate made by source line: from a caller's optimized code to the inlined function, and from a call line to the callee (docs/profiling.md). */
  inlinedSamples: count,
  /** Samples per installed package (src/profile/packages.ts), most first; absent in results from before it was recorded (not the same as none: the package table is then left out). */
  packages: list(packageTimeSchema).optional(),
  /** Allocations per function from the sampling heap profiler; absent when no process wrote one (and in results from before it was recorded). */
  allocations: allocationProfileSchema.optional(),
  /** The heap at the load's end against its start, by constructor; absent unless the scenario was flagged a possible leak. */
  retained: retainedSchema.optional(),
});

export const scenarioProfileSchema = z.object({
  scenario: name,
  /** Profiled load per side, ms, and V8's sampling interval, µs. */
  durationMs: nonNegative,
  intervalUs: nonNegative,
  sides: z.object({ base: sideProfileSchema, head: sideProfileSchema }),
  /** Flamegraphs next to results.json (paths relative to the run directory); null when rendering failed. */
  files: z.object({ head: name.nullable(), base: name.nullable(), diff: name.nullable() }),
  /** Wall time of drawing the three flamegraphs (0x for head and base at once), ms; null until done. */
  renderMs: nonNegative.nullable(),
});
