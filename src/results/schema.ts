/**
 * results.json as one zod schema: the stored types in results/types.ts are its output types
 * (z.output), so the shape is written once, and the same schema checks a file at the door
 * (results/validate.ts). It describes the current shape: a file written by an earlier release
 * passes through results/migrate.ts first, which fills what that release did not record, so
 * every field here that older files lack is required and readers need no "results from before"
 * branch.
 *
 * Strictness, because the fork-safe report workflow reads files a pull request's code could have
 * written: integers where counts are, finite numbers in range, 40-hex shas, strings of bounded
 * length, lists of bounded size. Unknown keys are dropped (z.object strips them), so nothing
 * unchecked reaches a renderer, and a field a later release adds without a version bump is
 * ignored here rather than refused.
 */
import { z } from 'zod';
import { GATE_KEYS, type GateKey, type PerfgateConfig, SCENARIO_GATE_KEYS, type ScenarioGateKey } from '../config/types.js';
import { RESULTS_VERSION } from './version.js';
import { count, cpuList, fraction, httpMethod, isoTime, list, LOG_MAX, message, name, nonNegative, positive, sha, side, stringMap } from './schema-values.js';
import { benchmarkResultsSchema } from './schema-bench.js';
import { headBrokenSchema, loggedErrorSchema, unexpectedAnswerSchema } from './schema-answers.js';
import { scenarioProfileSchema } from './schema-profile.js';

export * from './schema-bench.js';
export * from './schema-profile.js';
export * from './schema-answers.js';
export { sideSchema } from './schema-values.js';


/* ---------- the resolved configuration the run used (config/types.ts's PerfgateConfig) ---------- */

const rule = z.object({
  limit: nonNegative,
  gated: z.boolean(),
  min: nonNegative.optional(),
  level: z.object({ max: nonNegative, gated: z.boolean() }).optional(),
});
const gateRules = Object.fromEntries(GATE_KEYS.map((key) => [key, rule])) as Record<GateKey, typeof rule>;
const scenarioRules = Object.fromEntries(SCENARIO_GATE_KEYS.map((key) => [key, rule.optional()])) as Record<ScenarioGateKey, z.ZodOptional<typeof rule>>;

/** What a scenario, or one request of its mix or sequence, sends. */
const httpRequest = {
  method: httpMethod,
  path: name,
  headers: stringMap,
  body: z.string().max(LOG_MAX).nullable(),
};

const storedConfig = z.object({
  service: z.object({
    install: message.nullable(),
    build: message.nullable(),
    setup: message.nullable(),
    start: message.nullable(),
    cwd: name,
    env: stringMap,
    ready: z.object({ path: name.nullable(), timeoutMs: nonNegative }),
  }),
  scenarios: list(
    z.object({
      name,
      ...httpRequest,
      connections: count,
      pipelining: count,
      rate: z.union([z.object({ perSecond: positive }), z.object({ ofCapacity: fraction })]).nullable(),
      expect: list(z.int().min(100).max(599)).nullable(),
      expectBody: z.object({ contains: message.optional(), json: z.record(name, z.union([message, z.number(), z.boolean(), z.null()])).optional() }).optional(),
      requests: list(
        z.object({
          name,
          ...httpRequest,
          weight: count,
          capture: z
            .record(name, z.union([z.object({ from: z.literal('body'), path: list(name) }), z.object({ from: z.literal('header'), name })]))
            .nullable(),
        }),
      )
        .nullable()
        .optional(),
      sequence: z.boolean().optional(),
      values: z.object({ file: name }).nullable().optional(),
      gate: z.object(scenarioRules).optional(),
    }),
  ),
  load: z.object({
    sliceMs: nonNegative,
    pairs: count,
    blocks: count,
    instances: z.int().min(1).max(16),
    warmupMs: nonNegative,
    mode: z.enum(['simultaneous', 'alternate']),
    pin: z.enum(['auto', 'on', 'off']),
    earlyStop: z.boolean(),
    stop: z.literal('verdicts').optional(),
  }),
  benchmarks: z.object({ files: list(name), rounds: count, timeoutMs: nonNegative, budgetMs: nonNegative }).nullable(),
  gate: z.object({ ...gateRules, heap_growth: z.object({ limitMbPer10k: nonNegative, gated: z.boolean() }) }),
  alpha: z.number().gt(0).lt(1),
  seed: z.int().nullable(),
  profile: z.object({
    enabled: z.boolean(),
    durationMs: nonNegative,
    intervalUs: nonNegative,
    scenarios: list(name).nullable(),
    when: z.enum(['changed', 'always']),
    confirm: z.boolean(),
  }),
});

// PerfgateConfig is written by hand in config/types.ts (config/resolve.ts produces it from
// perfgate.yml): this fails to compile when it and what results.json stores drift apart.
type StoredConfig = z.output<typeof storedConfig>;
type Assignable<T extends U, U> = T;
export type StoredConfigMatches = [Assignable<StoredConfig, PerfgateConfig>, Assignable<PerfgateConfig, StoredConfig>];

/* ---------- where the run happened ---------- */

export const environmentSchema = z.object({
  cpuModel: name,
  cpus: z.int().min(1).max(100_000),
  nodeVersion: z.string().max(100),
  os: name,
  arch: z.string().max(100),
  totalMemoryMb: count,
  /** NODE_OPTIONS / execArgv that affect measurement (perfgate's own preload excluded). */
  nodeFlags: list(name),
  /** Where the timed phase ran, as taskset CPU lists, when load.pin pinned it (absent: the scheduler's choice). */
  placement: z.object({ generator: cpuList, services: cpuList }).optional(),
  /** Kernel release (uname -r); absent in results from before it was recorded (`os` then ends with it). */
  kernel: name.optional(),
  /** The machine image: a GitHub-hosted runner's ImageOS and ImageVersion, else /etc/os-release's PRETTY_NAME; absent when neither says, and in results from before it was recorded. */
  osImage: name.optional(),
  /** V8's version in the Node that ran the service; absent when that Node did not answer, and in results from before it was recorded. */
  v8Version: z.string().max(100).optional(),
  /** sha256 of the measured configuration (results.config), hex; absent in results from before it was recorded (history computes it then). */
  configHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in hex').optional(),
});

export const sideInfoSchema = z.object({
  /** What the user named (branch, ref, "work tree"). */
  ref: name,
  /** Commit sha (head: the commit the work tree is on). */
  sha,
  /** True when head is the work tree with uncommitted changes. */
  dirty: z.boolean(),
});

/* ---------- HTTP load: slices, pairs, scenarios ---------- */

/** Latency percentiles of one slice, µs (from per-request times, HdrHistogram). */
export const latencyUsSchema = z.object({
  p50: nonNegative,
  p90: nonNegative,
  p99: nonNegative,
  /** Fixed-rate slices only: enough requests per window to say something of the tail. */
  p999: nonNegative.optional(),
  max: nonNegative,
  mean: nonNegative,
});

/** What a fixed-rate slice offered the service, and how well the generator kept its schedule. */
export const offeredLoadSchema = z.object({
  /** The scenario's rate, requests per second per side. */
  ratePerSecond: positive,
  /** Requests sent in the window. */
  sent: count,
  /** Requests that fell due but were not sent, because the service had a timeout's worth of requests outstanding. */
  dropped: count,
  /** How late requests left against their intended time (the generator's own delay), µs. */
  lagUsP50: nonNegative,
  lagUsP99: nonNegative,
});

/** One request of a scenario's mix or sequence in one slice: a few numbers, so results.json stays small. */
export const requestSliceSchema = z.object({
  /** The request's name (scenario requests[i].name), in the scenario's order. */
  name,
  /** Its responses in the slice (any status). */
  responses: count,
  /** Its failed requests: an unexpected status, an error, or a response without a value the sequence captures from it. */
  failed: count,
  /** Its latency percentiles, µs (0 when it had no response). */
  p50Us: nonNegative,
  p99Us: nonNegative,
});

/** What one side's idle starts used during a slice. */
export const idleCpuSchema = z.object({
  /** How many of its starts were running and not under load. */
  starts: count,
  /** Their CPU time (user + system, whole process groups), seconds. */
  cpuSeconds: nonNegative,
});

/* ---------- service health: measured inside the service by perfgate's preload, per slice ---------- */

export const gcKindSchema = z.enum(['minor', 'major', 'incremental', 'weakcb']);

/** The round trips to one destination of the requests one process finished in one window (src/preload/health.cjs counts them). */
export const ioTallySchema = z.object({
  /** "host:port" as connected (the resolved address), or a Unix socket's path. */
  destination: name,
  /** Round trips: a write while no answer was awaited, ended by the first bytes read after it. */
  roundTrips: count,
  /** Their waits summed (from the write to the first bytes of the answer), ms. */
  waitMs: nonNegative,
});

/**
 * The calls by name to one destination of the requests one process finished in one window, from
 * the diagnostics_channel events of the clients that publish them (src/preload/health.cjs).
 */
export const namedCallsSchema = z.object({
  /** "host:port" as the client names its server (it may say localhost where the socket says 127.0.0.1). */
  destination: name,
  /** A Redis command, a SQL statement without its literals, "GET host/path/:id"; "other" past the 50 names a window keeps. */
  name,
  calls: count,
  /** From each call to its answer, summed, ms. */
  waitMs: nonNegative,
});

/** One process's report for one slice (src/preload/health.cjs). */
export const processHealthSchema = z.object({
  pid: count,
  /** Parent pid: tells a cluster's workers from their primary. */
  ppid: count,
  /** A cluster worker (NODE_UNIQUE_ID was set). */
  worker: z.boolean(),
  /** How long the process measured, ms: from the engine's "begin" to its "end" as the process received them. */
  windowMs: nonNegative,
  /**
   * Event-loop delay, µs: how late the loop ran a 10 ms timer (perf_hooks.monitorEventLoopDelay,
   * the interval itself subtracted); null when the timer never fired in the window.
   */
  eventLoopDelayUs: z.object({ p50: nonNegative, p99: nonNegative, max: nonNegative, samples: count }).nullable(),
  /** Share of the window the event loop was busy, 0–1 (performance.eventLoopUtilization). */
  eventLoopUtilization: fraction,
  /** Garbage-collection pauses in the window by kind (PerformanceObserver 'gc'): how many, total ms. */
  gc: z.record(gcKindSchema, z.object({ count, ms: nonNegative })),
  /** V8 heap used at the window's end, bytes. */
  heapUsedBytes: nonNegative,
  /** The lowest heap used seen right after a GC in the window, bytes; null when no GC ran. */
  heapAfterGcBytes: nonNegative.nullable(),
  /** Resident set size at the window's end, bytes. */
  rssBytes: nonNegative,
  /** Resources keeping the event loop alive at the window's start, before the slice's load connects (process.getActiveResourcesInfo: sockets, servers, timers). */
  activeHandles: count,
  /** Outgoing round trips by destination (a database, a cache, another service) of the HTTP requests this process finished in the window. */
  io: list(ioTallySchema),
  /** How many requests that is (those that made no round trip included); 0 before the process first connected out. */
  ioRequests: count,
  /** Those requests' calls by name, where the client publishes diagnostics_channel events (node-redis, ioredis, mysql2, undici, http). */
  queries: list(namedCallsSchema),
  /**
   * Bytes allocated on the V8 heap in the window: used heap at the end − at the start + what each
   * collection freed (v8.GCProfiler); null where Node has no GCProfiler (docs/health.md, "Work counters").
   */
  allocatedBytes: count.nullable(),
  /** Read and write system calls in the window (/proc/self/io syscr + syscw, all threads); null off Linux. */
  syscalls: count.nullable(),
  /** Bytes read from and written to the process's TCP and Unix sockets (accepted and connected) in the window. */
  socketBytesRead: count.nullable(),
  socketBytesWritten: count.nullable(),
  /** HTTP responses the process finished in the window (Node's http server): what the counters are divided by; null before it was counted. */
  responses: count.nullable(),
});

/** The service's health during one slice: every process that reported. */
export const sliceHealthSchema = z.object({
  /** Responses this service (this start of it) had answered when the slice ended, warm-ups and other scenarios included: the heap trend's x. */
  requestsSinceStart: count,
  /** Processes that acknowledged the slice's start but sent no report in time (their numbers are missing from the sums). */
  missing: count,
  processes: list(processHealthSchema),
});

export const sliceSchema = z.object({
  side,
  /** ISO time the slice started. */
  startedAt: isoTime,
  /** Measured wall time of the slice, ms. */
  durationMs: nonNegative,
  /** Responses received (any status). */
  requests: count,
  /** Responses per second over durationMs. */
  rps: nonNegative,
  latencyUs: latencyUsSchema,
  /** Responses with a status the scenario does not expect (any non-2xx unless it declares `expect`). */
  non2xx: count,
  /**
   * Of those, how many answered each unexpected status ("500": 310), so a report can say what
   * head answered instead; absent when every status was expected, and in results from before it
   * was recorded. (A response of an expected status without a value its sequence captures is in
   * non2xx, not here.) An HTTP status is three digits, so the record has at most 900 keys.
   */
  statuses: z.record(z.string().regex(/^[1-9]\d\d$/, 'must be an HTTP status'), count).optional(),
  /** Requests without an answer: a failed connection or a timeout (timeouts are counted here too). */
  errors: count,
  /** Of the errors, those that timed out. */
  timeouts: count,
  /** Fixed-rate scenarios: what was offered (absent in closed-loop slices). */
  offered: offeredLoadSchema.optional(),
  /** Scenarios of several requests: each request's own count and latency (absent for one request). */
  byRequest: list(requestSliceSchema).optional(),
  /** Service CPU time (user+system, whole process tree), seconds, during the slice. */
  cpuSeconds: nonNegative,
  /** CPU time of the load generator (perfgate's own process), seconds, during the slice. Absent in results from before it was measured (nothing to fill it with). */
  generatorCpuSeconds: nonNegative.optional(),
  /** Share of the slice the load generator's event loop was busy, 0–1 (it never idles when the generator is the bottleneck, even starved of CPU). Absent in results from before it was measured. */
  generatorEventLoopUtilization: fraction.optional(),
  /** What the service's processes measured inside themselves during the slice; null when none reported; absent in results from before health was measured (the gate tells the two apart). */
  health: sliceHealthSchema.nullable().optional(),
  /**
   * CPU time that each side's starts not under load in this slice (the block's other starts,
   * and in alternate mode the other side's start of this pair) used over the slice's window: an
   * idle service uses next to none, and one that burns CPU while it waits takes it from what is
   * measured (src/assess/fairness.ts). Absent in results from before it was measured.
   */
  idle: z.object({ base: idleCpuSchema, head: idleCpuSchema }).optional(),
});

export const pairSchema = z.object({
  block: count,
  /**
   * The start pair that served this pair (one start of base and one of head), 0-based over the
   * run: the unit the verdicts count.
   */
  start: count,
  /** Index within the scenario, 0-based over all blocks. */
  index: count,
  /**
   * Alternate: the order the two slices ran in. Simultaneous: the order the two sides'
   * connections were opened in: once per start pair's turn in results written since 2026-11-25 (its
   * load runs on without a break from its warm-up to its last pair), before that per pair.
   */
  order: z.tuple([side, side]).refine(([first, second]) => first !== second, 'must be ["base", "head"] or ["head", "base"]'),
  base: sliceSchema,
  head: sliceSchema,
});

/** One start of one side, before any load reached it. */
export const startRecordSchema = z.object({
  /** The start's number over the run (PERFGATE_START): base start n and head start n are a start pair. */
  start: count,
  block: count,
  side,
  /** From spawning the start command to the service's listening socket (the preload's report), or to ready when it reported none, ms. */
  readyMs: nonNegative,
  /** Resident memory of the service's whole process group once ready, bytes; null without /proc. */
  rssBytes: nonNegative.nullable(),
});

export const scenarioResultsSchema = z.object({
  name,
  method: httpMethod,
  path: name,
  /**
   * Fixed-rate scenarios: the rate both sides were offered, requests per second, and where it
   * came from (the configuration, or a share of base's capacity measured in the first warm-up).
   * Absent for closed-loop scenarios, and until a relative rate is measured.
   */
  rate: z.object({ perSecond: positive, source: z.enum(['config', 'capacity']), baseCapacity: nonNegative.optional() }).optional(),
  pairs: list(pairSchema),
  /**
   * One answer of a status the scenario does not expect, per side that answered some: asked again
   * after the side's first start pair whose slices recorded one, so a report can quote what the
   * route said. A scenario of one request only; absent when no such answer came back (and in
   * results from before it was recorded).
   */
  unexpectedAnswer: z.object({ base: unexpectedAnswerSchema.optional(), head: unexpectedAnswerSchema.optional() }).optional(),
  /** Set when head broke this route where base did not (headBrokenSchema): the run stopped at its first warm-up. */
  headBroken: headBrokenSchema.optional(),
});

export const runWarningSchema = z.object({
  /** What kind of warning (src/results/warnings.ts lists every code; a file may carry codes of other releases). */
  code: z.string().max(100),
  message,
  scenario: name.optional(),
  /** The micro-benchmark (its label) or benchmark file the warning is about. */
  benchmark: name.optional(),
});

/**
 * Where a run came from on GitHub, recorded by the action so a later `mode: report` run can
 * cross-check the artifact it downloads against the workflow_run event that points at it.
 */
export const gitHubRecordSchema = z.object({
  /** owner/name of the repository the workflow ran in (the base repository of a fork PR). */
  repository: z.string().regex(/^[\w.-]{1,100}\/[\w.-]{1,100}$/, 'must be owner/name'),
  pullRequest: z.int().positive().nullable(),
  /** The pull request's head commit (not the merge commit actions/checkout checks out). */
  headSha: sha.nullable(),
  baseSha: sha.nullable(),
  runId: z.string().regex(/^\d{1,20}$/, 'must be a run id').nullable(),
  /** GITHUB_EVENT_NAME of the measuring run: pull_request, push, workflow_dispatch. */
  event: z.string().regex(/^[a-z_]{1,40}$/, 'must be an event name'),
});

/* ---------- what the pull request changed ---------- */

export const dependencyChangeSchema = z.object({
  name,
  /** Its locked versions on each side (several when installed at several places); empty: not installed there. */
  base: list(name),
  head: list(name),
  /** A dependency of the root package (or of a workspace) rather than of another package. */
  direct: z.boolean(),
});

/** package-lock.json of base against head's (src/profile/packages.ts). */
export const dependencyChangesSchema = z.object({
  /** Head's lockfile, relative to the repository root; without one, head's node_modules, whose installed versions were compared. */
  lockfile: name,
  /** Every package whose set of locked versions differs, direct and transitive, by name. */
  changed: list(dependencyChangeSchema),
});

export const changedFileSchema = z.object({
  file: name,
  /** Head's changed lines: [start, count] (1-based); count 0: lines removed after `start`. None: renamed, mode or binary change only. */
  hunks: list(z.tuple([count, count])),
});

/** The lines head changed against the merge-base of base and head (src/engine/workspace/changes.ts). */
export const changeSetSchema = z.object({
  /** The commit head was compared with: the merge-base of base and head. */
  since: sha,
  /**
   * Files head adds or changes, renamed ones by their head path (relative to the repository root);
   * after the profiles also the built files head ran whose source map names changed source lines,
   * with the built lines made from them (engine/workspace/source-map.ts, builtHunks).
   */
  files: list(changedFileSchema),
});

/**
 * The third arm of a scenario with a gated regression whose profile named a culprit: head
 * against head with the pull request's change to the culprit taken back (src/engine/phases/confirm.ts).
 * Its pairs' "base" is the reverted head, so their change reads as the main pairs' does.
 */
export const confirmationSchema = z.object({
  scenario: name,
  /** The culprit the profile named (an own function; for a dependency, its function that grew most). */
  culprit: z.object({ name, file: name, line: count, endLine: count.optional(), package: name.nullable() }),
  /** measured: the pairs below; skipped: `reason` says why (the PR changed none of its lines, the revert did not apply). */
  status: z.enum(['measured', 'skipped']),
  reason: message.nullable(),
  /** What was taken back: the file and how many of this PR's hunks in it; null when skipped. */
  reverted: z.object({ file: name, hunks: count }).nullable(),
  pairs: list(pairSchema),
  /** Wall time of the arm (revert, build, starts and pairs), ms. */
  wallMs: nonNegative,
  /** Blocks the arm measured (its pairs' `block` 0 … blocks − 1): another while the answer was unclear. Absent: 1. */
  blocks: count.optional(),
  /**
   * The blocks the arm could have measured, fixed before its first: each look's interval is at
   * 1 − 0.05 / maxBlocks, so that all of its looks together err at most 5% (assess/confirmation.ts). Absent: 1.
   */
  maxBlocks: count.optional(),
});

/* ---------- adaptive stopping: a pre-registered group-sequential design over the HTTP pairs ---------- */

/** A look planned before any load: after which block, on how many pairs, at which level. */
export const plannedLookSchema = z.object({
  /** 0-based block after which the look happens. */
  afterBlock: count,
  /** Pairs per scenario measured by then. */
  pairs: count,
  /** Information fraction: the share of the final look's information (paired: of the planned start pairs; against a stored record: engine/plan.ts, information). */
  t: fraction,
  /** Nominal one-sided level at this look: a gated metric is significant when its Holm-adjusted p is below it. */
  nominalAlpha: fraction,
});

export const lookDecisionSchema = z.enum(['stop-regression', 'stop-clear', 'continue', 'final']);

export const takenLookSchema = z.object({
  /** Index into `looks`. */
  look: count,
  /** ISO time of the look. */
  at: isoTime,
  /** Pairs per scenario it used. */
  pairs: count,
  decision: lookDecisionSchema,
  /** Why, in words (which metric, which p against which bound). */
  reason: message,
});

export const sequentialRecordSchema = z.object({
  /** The design's name, e.g. "O'Brien–Fleming-type (Lan–DeMets), one-sided" (results before 2026-11-26: "two-look O'Brien–Fleming (Lan–DeMets), one-sided"). */
  design: name,
  /** Overall level the design keeps (config.alpha). */
  alpha: z.number().gt(0).lt(1),
  looks: list(plannedLookSchema),
  taken: list(takenLookSchema),
});

/** A matrix shard's part of a sharded run (src/compare/shard.ts, docs/modes.md "Shards"). */
export const shardRecordSchema = z
  .object({
    /** 1-based, of count. */
    index: z.int().min(1),
    count: z.int().min(1).max(64),
    /** The alpha of the whole matrix; this shard's gate ran at familyAlpha/count (config.alpha). */
    familyAlpha: z.number().gt(0).lt(1),
    /** sha256 of the whole configuration, before the shard took its part: equal in every shard of one matrix. */
    fullConfigHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in hex'),
    /** The scenarios this shard owns, in config order. */
    scenarios: list(name),
    /** The benchmark files this shard owns; null until they are discovered (and without benchmarks). */
    benchmarks: list(name).nullable(),
    /** Gated comparisons planned over all shards (HTTP and health metrics × scenarios, start-up metrics × shards; benchmark files once known). */
    gatedMetrics: count,
  })
  .refine((s) => s.index <= s.count, { message: 'index is above count', path: ['index'] });

/* ---------- the file ---------- */

/**
 * A stored baseline this run's head was compared with (unpaired, assess/unpaired.ts): the record of
 * the base commit that a `mode: record` run measured on another runner, as much of it as the
 * comparison and the report need.
 */
export const storedBaselineSchema = z.object({
  /** The commit the record measured (the pull request's base). */
  sha,
  /** The workflow run that recorded it (null: a file given to the CLI). */
  runId: z.string().regex(/^\d{1,20}$/, 'must be a run id').nullable(),
  /** When the record's run started. */
  recordedAt: isoTime,
  /** perfgate's version that wrote the record. */
  toolVersion: z.string().max(100),
  environment: environmentSchema,
  /** The record's scenarios with every pair: both of its sides measured the one commit. */
  scenarios: list(scenarioResultsSchema),
});

export const resultsSchema = z
  .object({
    schema: z.literal('perfgate/results'),
    version: z.literal(RESULTS_VERSION),
    tool: z.object({ name: z.literal('perfgate'), version: z.string().max(100) }),
    startedAt: isoTime,
    finishedAt: isoTime.nullable(),
    /** running: being written; complete; failed: stopped by an error (what was measured is kept). */
    status: z.enum(['running', 'complete', 'failed']),
    error: message.nullable(),
    seed: z.int(),
    config: storedConfig,
    environment: environmentSchema,
    sides: z.object({ base: sideInfoSchema, head: sideInfoSchema }),
    scenarios: list(scenarioResultsSchema),
    /** Every start of either side with what it told before any load; absent when no service was started (and in results from before it was recorded). */
    starts: list(startRecordSchema).optional(),
    warnings: list(runWarningSchema),
    /** Set by the GitHub Action; absent in CLI runs. */
    github: gitHubRecordSchema.optional(),
    /** Micro-benchmarks, when configured (absent otherwise, and in results from before they existed). */
    benchmarks: benchmarkResultsSchema.optional(),
    /** CPU profiles of the profiling phase, one entry per profiled scenario (absent when profiling is off, and in results from before it existed). */
    profiles: list(scenarioProfileSchema).optional(),
    /** Scenarios profile.when: changed left unprofiled because every verdict was unchanged (absent when none was). */
    profilesSkipped: list(name).optional(),
    /** The pre-registered group-sequential design and every look taken (absent without an interim look, and in results from before it existed). */
    sequential: sequentialRecordSchema.optional(),
    /** This run's part of a matrix (shard: i/n); absent in unsharded runs and in results from before shards existed. */
    shard: shardRecordSchema.optional(),
    /** The packages whose locked version the pull request changed, or without a lockfile whose installed version differs (absent when profiling is off, nothing changed, and in results from before it was recorded). */
    dependencies: dependencyChangesSchema.optional(),
    /** What the pull request changed, to tell whether a culprit is code it edited (absent when profiling is off, git could not give the diff, and in results from before it was recorded). */
    changes: changeSetSchema.optional(),
    /** Per side that failed requests, the first error its service logged (absent when it logged none, and in results from before it was recorded). */
    serviceErrors: z.object({ base: loggedErrorSchema.optional(), head: loggedErrorSchema.optional() }).optional(),
    /** The culprits tested by reverting them (absent when no gated regression named one, and in results from before the third arm). */
    confirmations: list(confirmationSchema).optional(),
    /** Present when head was compared with a stored baseline instead of a base measured beside it (absent: the paired A/B). */
    baseline: storedBaselineSchema.optional(),
  })
  .superRefine((results, context) => {
    // A run marks itself complete only after every scenario measured its pairs: a complete file
    // without them has nothing for a verdict to stand on, and would otherwise read as "no regression".
    if (results.status !== 'complete') return;
    results.scenarios.forEach((scenario, i) => {
      if (scenario.pairs.length === 0) context.addIssue({ code: 'custom', path: ['scenarios', i, 'pairs'], message: 'is empty in a run marked complete' });
    });
    if (results.scenarios.length === 0 && (results.benchmarks?.runs.length ?? 0) === 0) {
      context.addIssue({ code: 'custom', path: ['status'], message: 'is complete, but the run measured no scenario and ran no benchmark' });
    }
  });
