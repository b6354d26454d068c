import type { HealthMetricId, MetricId, PerfgateConfig, StartupMetricId } from '../config/types.js';
import type { WarningCode } from './warnings.js';

/** Bumped on any incompatible change of the results.json shape. */
export const RESULTS_VERSION = 1;

export type Side = 'base' | 'head';

export interface Environment {
  cpuModel: string;
  cpus: number;
  nodeVersion: string;
  os: string;
  arch: string;
  totalMemoryMb: number;
  /** NODE_OPTIONS / execArgv that affect measurement (perfgate's own preload excluded). */
  nodeFlags: string[];
  /** Where the timed phase ran, as taskset CPU lists, when load.pin pinned it (absent: the scheduler's choice). */
  placement?: { generator: string; services: string };
}

export interface SideInfo {
  /** What the user named (branch, ref, "work tree"). */
  ref: string;
  /** Commit sha (head: the commit the work tree is on). */
  sha: string;
  /** True when head is the work tree with uncommitted changes. */
  dirty: boolean;
}

/** Latency percentiles of one slice, µs (from per-request times, HdrHistogram). */
export interface LatencyUs {
  p50: number;
  p90: number;
  p99: number;
  /** Fixed-rate slices only: enough requests per window to say something of the tail. */
  p999?: number;
  max: number;
  mean: number;
}

/** What a fixed-rate slice offered the service, and how well the generator kept its schedule. */
export interface OfferedLoad {
  /** The scenario's rate, requests per second per side. */
  ratePerSecond: number;
  /** Requests sent in the window. */
  sent: number;
  /** Requests that fell due but were not sent, because the service had a timeout's worth of requests outstanding. */
  dropped: number;
  /** How late requests left against their intended time (the generator's own delay), µs. */
  lagUsP50: number;
  lagUsP99: number;
}

/** One request of a scenario's mix or sequence in one slice: a few numbers, so results.json stays small. */
export interface RequestSlice {
  /** The request's name (scenario requests[i].name), in the scenario's order. */
  name: string;
  /** Its responses in the slice (any status). */
  responses: number;
  /** Its failed requests: an unexpected status, an error, or a response without a value the sequence captures from it. */
  failed: number;
  /** Its latency percentiles, µs (0 when it had no response). */
  p50Us: number;
  p99Us: number;
}

export interface Slice {
  side: Side;
  /** ISO time the slice started. */
  startedAt: string;
  /** Measured wall time of the slice, ms. */
  durationMs: number;
  /** Responses received (any status). */
  requests: number;
  /** Responses per second over durationMs. */
  rps: number;
  latencyUs: LatencyUs;
  /** Responses with a status the scenario does not expect (any non-2xx unless it declares `expect`). */
  non2xx: number;
  /**
   * Of those, how many answered each unexpected status ("500": 310), so a report can say what
   * head answered instead; absent when every status was expected, and in results from before it
   * was recorded. (A response of an expected status without a value its sequence captures is in
   * non2xx, not here.)
   */
  statuses?: Record<string, number>;
  /** Requests without an answer: a failed connection or a timeout (timeouts are counted here too). */
  errors: number;
  /** Of the errors, those that timed out. */
  timeouts: number;
  /** Fixed-rate scenarios: what was offered (absent in closed-loop slices). */
  offered?: OfferedLoad;
  /** Scenarios of several requests: each request's own count and latency (absent for one request). */
  byRequest?: RequestSlice[];
  /** Service CPU time (user+system, whole process tree), seconds, during the slice. */
  cpuSeconds: number;
  /** CPU time of the load generator (perfgate's own process), seconds, during the slice. Absent in results from before it was measured. */
  generatorCpuSeconds?: number;
  /** Share of the slice the load generator's event loop was busy, 0–1 (it never idles when the generator is the bottleneck, even starved of CPU). Absent in results from before it was measured. */
  generatorEventLoopUtilization?: number;
  /** What the service's processes measured inside themselves during the slice; null when none reported; absent in results from before health was measured. */
  health?: SliceHealth | null;
  /**
   * CPU time that each side's starts not under load in this slice (the block's other starts,
   * and in alternate mode the other side's start of this pair) used over the slice's window: an
   * idle service uses next to none, and one that burns CPU while it waits takes it from what is
   * measured (src/gate/fairness.ts). Absent in results from before it was measured.
   */
  idle?: Record<Side, IdleCpu>;
}

/** What one side's idle starts used during a slice. */
export interface IdleCpu {
  /** How many of its starts were running and not under load. */
  starts: number;
  /** Their CPU time (user + system, whole process groups), seconds. */
  cpuSeconds: number;
}

/* ---------- service health: measured inside the service by perfgate's preload, per slice ---------- */

export type GcKind = 'minor' | 'major' | 'incremental' | 'weakcb';

/** One process's report for one slice (src/preload/health.cjs). */
export interface ProcessHealth {
  pid: number;
  /** Parent pid: tells a cluster's workers from their primary. */
  ppid: number;
  /** A cluster worker (NODE_UNIQUE_ID was set). */
  worker: boolean;
  /** How long the process measured, ms: from the engine's "begin" to its "end" as the process received them. */
  windowMs: number;
  /**
   * Event-loop delay, µs: how late the loop ran a 10 ms timer (perf_hooks.monitorEventLoopDelay,
   * the interval itself subtracted); null when the timer never fired in the window.
   */
  eventLoopDelayUs: { p50: number; p99: number; max: number; samples: number } | null;
  /** Share of the window the event loop was busy, 0–1 (performance.eventLoopUtilization). */
  eventLoopUtilization: number;
  /** Garbage-collection pauses in the window by kind (PerformanceObserver 'gc'): how many, total ms. */
  gc: Record<GcKind, { count: number; ms: number }>;
  /** V8 heap used at the window's end, bytes. */
  heapUsedBytes: number;
  /** The lowest heap used seen right after a GC in the window, bytes; null when no GC ran. */
  heapAfterGcBytes: number | null;
  /** Resident set size at the window's end, bytes. */
  rssBytes: number;
  /** Resources keeping the event loop alive at the window's start, before the slice's load connects (process.getActiveResourcesInfo: sockets, servers, timers). */
  activeHandles: number;
  /** Outgoing round trips by destination (a database, a cache, another service) of the HTTP requests this process finished in the window; absent in results from before I/O was counted. */
  io?: IoTally[];
  /** How many requests that is (those that made no round trip included); 0 before the process first connected out. */
  ioRequests?: number;
}

/** The round trips to one destination of the requests one process finished in one window (src/preload/health.cjs counts them). */
export interface IoTally {
  /** "host:port" as connected (the resolved address), or a Unix socket's path. */
  destination: string;
  /** Round trips: a write while no answer was awaited, ended by the first bytes read after it. */
  roundTrips: number;
  /** Their waits summed (from the write to the first bytes of the answer), ms. */
  waitMs: number;
}

/** The service's health during one slice: every process that reported. */
export interface SliceHealth {
  /** Responses this service (this start of it) had answered when the slice ended, warm-ups and other scenarios included: the heap trend's x. */
  requestsSinceStart: number;
  /** Processes that acknowledged the slice's start but sent no report in time (their numbers are missing from the sums). */
  missing: number;
  processes: ProcessHealth[];
}

export interface Pair {
  block: number;
  /**
   * The start pair that served this pair (one start of base and one of head), 0-based over the
   * run: the unit the verdicts count. Absent in results written before perfgate measured
   * several starts per block: there each block was one start pair, so it is the block.
   */
  start?: number;
  /** Index within the scenario, 0-based over all blocks. */
  index: number;
  /**
   * Alternate: the order the two slices ran in. Simultaneous: the order the two sides'
   * connections were opened in: once per start pair's turn in results written since 2026-11-25 (its
   * load runs on without a break from its warm-up to its last pair), before that per pair.
   */
  order: [Side, Side];
  base: Slice;
  head: Slice;
}

/** One start of one side, before any load reached it. */
export interface StartRecord {
  /** The start's number over the run (PERFGATE_START): base start n and head start n are a start pair. */
  start: number;
  block: number;
  side: Side;
  /** From spawning the start command to the service's listening socket (the preload's report), or to ready when it reported none, ms. */
  readyMs: number;
  /** Resident memory of the service's whole process group once ready, bytes; null without /proc. */
  rssBytes: number | null;
}

export interface ScenarioResults {
  name: string;
  method: string;
  path: string;
  /**
   * Fixed-rate scenarios: the rate both sides were offered, requests per second, and where it
   * came from (the configuration, or a share of base's capacity measured in the first warm-up).
   * Absent for closed-loop scenarios, and until a relative rate is measured.
   */
  rate?: { perSecond: number; source: 'config' | 'capacity'; baseCapacity?: number };
  pairs: Pair[];
  /**
   * One answer of a status the scenario does not expect, per side that answered some: asked again
   * after the side's first start pair whose slices recorded one, so a report can quote what the
   * route said. A scenario of one request only; absent when no such answer came back (and in
   * results from before it was recorded).
   */
  unexpectedAnswer?: Partial<Record<Side, UnexpectedAnswer>>;
}

/** A status the scenario does not expect, and the start of the body that came with it (one line, at most 160 characters). */
export interface UnexpectedAnswer {
  status: number;
  body: string;
}

export interface RunWarning {
  /** What kind of warning (src/results/warnings.ts lists every code). */
  code: WarningCode;
  message: string;
  scenario?: string;
  /** The micro-benchmark (its label) or benchmark file the warning is about. */
  benchmark?: string;
}

/* ---------- micro-benchmarks: one record per benchmark per process ---------- */

export type BenchLibrary = 'benchmark' | 'tinybench' | 'mitata';

/** One benchmark as one process measured it (captured from the library, never from its output). */
export interface BenchmarkRecord {
  library: BenchLibrary;
  name: string;
  /** The benchmark.js Suite or tinybench Bench name; null when there is none (mitata, a lone Benchmark). */
  suite: string | null;
  /** 1, or n for the n-th benchmark of the same suite and name in one process (kept apart, in order). */
  occurrence: number;
  /** The one number per process: 1 / mean time per operation, operations per second. null when it threw. */
  opsPerSec: number | null;
  /** The library's relative margin of error, % (benchmark.js, tinybench); null when it has none. */
  rme: number | null;
  /** Samples the library took in this process (benchmark.js: cycles; tinybench, mitata: timed batches or calls). */
  sampleCount: number;
  /** Those samples as ns per operation; at most 1,000, evenly spaced, when the library took more. */
  samplesNs: number[];
  /** The library's own statistics for this benchmark, in its own units, samples left out. */
  stats: Record<string, unknown> | null;
  /** What the benchmark threw, when it did (it then has no number). */
  error: string | null;
}

/** A library copy a benchmark process loaded and perfgate hooked (or could not). */
export interface BenchLibraryCopy {
  name: string;
  version: string;
  /** The module file that was loaded: the project's own copy. */
  path: string;
  /** Why perfgate cannot read this copy (a version without the hooks it uses); null when hooked. */
  unsupported: string | null;
}

/** One benchmark file run once on one side, in its own process. */
export interface BenchRun {
  round: number;
  /** The file, relative to the service directory, posix separators. */
  file: string;
  side: Side;
  startedAt: string;
  /** Wall time of the process, ms. */
  durationMs: number;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why this run gave no usable numbers (it threw, exited non-zero, hung, captured nothing); null when it worked. */
  error: string | null;
  benchmarks: BenchmarkRecord[];
  libraries: BenchLibraryCopy[];
  /** stdout and stderr of the process. */
  logs: { stdout: string; stderr: string };
}

export interface BenchmarkResults {
  /** Benchmark files found per side, relative to the service directory. */
  files: Record<Side, string[]>;
  /** Rounds planned (config.benchmarks.rounds). */
  rounds: number;
  /** Every process, in the order it ran; written after each base/head pair. */
  runs: BenchRun[];
  /** Set when the phase stopped before all rounds ran: why. */
  stoppedEarly: string | null;
}

/**
 * Where a run came from on GitHub, recorded by the action so a later `mode: report` run can
 * cross-check the artifact it downloads against the workflow_run event that points at it.
 */
export interface GitHubRecord {
  /** owner/name of the repository the workflow ran in (the base repository of a fork PR). */
  repository: string;
  pullRequest: number | null;
  /** The pull request's head commit (not the merge commit actions/checkout checks out). */
  headSha: string | null;
  baseSha: string | null;
  runId: string | null;
  /** GITHUB_EVENT_NAME of the measuring run: pull_request, push, workflow_dispatch. */
  event: string;
}

export interface Results {
  schema: 'perfgate/results';
  version: typeof RESULTS_VERSION;
  tool: { name: 'perfgate'; version: string };
  startedAt: string;
  finishedAt: string | null;
  /** running: being written; complete; failed: stopped by an error (what was measured is kept). */
  status: 'running' | 'complete' | 'failed';
  error: string | null;
  seed: number;
  config: PerfgateConfig;
  environment: Environment;
  sides: Record<Side, SideInfo>;
  scenarios: ScenarioResults[];
  /** Every start of either side with what it told before any load; absent in results from before it was recorded. */
  starts?: StartRecord[];
  warnings: RunWarning[];
  /** Set by the GitHub Action; absent in CLI runs. */
  github?: GitHubRecord;
  /** Micro-benchmarks, when configured (absent otherwise, and in results from before they existed). */
  benchmarks?: BenchmarkResults;
  /** CPU profiles of the profiling phase, one entry per profiled scenario (absent when profiling is off, and in results from before it existed). */
  profiles?: ScenarioProfile[];
  /** Scenarios profile.when: changed left unprofiled because every verdict was unchanged (absent when none was). */
  profilesSkipped?: string[];
  /** The pre-registered group-sequential design and every look taken (absent without an interim look, and in results from before it existed). */
  sequential?: SequentialRecord;
  /** What the pull request changed, to tell whether a culprit is code it edited (absent when profiling is off, git could not give the diff, and in results from before it was recorded). */
  changes?: ChangeSet;
  /** The packages whose locked version the pull request changed (absent when profiling is off, without an npm lockfile, and in results from before it was recorded). */
  dependencies?: DependencyChanges;
}

/** package-lock.json of base against head's (src/profile/packages.ts). */
export interface DependencyChanges {
  /** Head's lockfile, relative to the repository root. */
  lockfile: string;
  /** Every package whose set of locked versions differs, direct and transitive, by name. */
  changed: DependencyChange[];
}

export interface DependencyChange {
  name: string;
  /** Its locked versions on each side (several when installed at several places); empty: not installed there. */
  base: string[];
  head: string[];
  /** A dependency of the root package (or of a workspace) rather than of another package. */
  direct: boolean;
}

/** The lines head changed against the merge-base of base and head (src/engine/changes.ts). */
export interface ChangeSet {
  /** The commit head was compared with: the merge-base of base and head. */
  since: string;
  /** Files head adds or changes, renamed ones by their head path (relative to the repository root). */
  files: ChangedFile[];
}

export interface ChangedFile {
  file: string;
  /** Head's changed lines: [start, count] (1-based); count 0: lines removed after `start`. None: renamed, mode or binary change only. */
  hunks: [number, number][];
}

/* ---------- adaptive stopping: a pre-registered group-sequential design over the HTTP pairs ---------- */

/** A look planned before any load: after which block, on how many pairs, at which level. */
export interface PlannedLook {
  /** 0-based block after which the look happens. */
  afterBlock: number;
  /** Pairs per scenario measured by then. */
  pairs: number;
  /** Information fraction: pairs / planned pairs. */
  t: number;
  /** Nominal one-sided level at this look: a gated metric is significant when its Holm-adjusted p is below it. */
  nominalAlpha: number;
}

export type LookDecision = 'stop-regression' | 'stop-clear' | 'continue' | 'final';

export interface TakenLook {
  /** Index into `looks`. */
  look: number;
  /** ISO time of the look. */
  at: string;
  /** Pairs per scenario it used. */
  pairs: number;
  decision: LookDecision;
  /** Why, in words (which metric, which p against which bound). */
  reason: string;
}

export interface SequentialRecord {
  /** The design's name, e.g. "O'Brien–Fleming-type (Lan–DeMets), one-sided" (results before 2026-11-26: "two-look O'Brien–Fleming (Lan–DeMets), one-sided"). */
  design: string;
  /** Overall level the design keeps (config.alpha). */
  alpha: number;
  looks: PlannedLook[];
  taken: TakenLook[];
}

/* ---------- profiles: CPU profiles of both sides under the same load (profiling phase) ---------- */

/**
 * Where a function's code lives: the service's own code (under the repository root), a
 * dependency (node_modules, or any file outside the repository), Node.js core (node:…), or
 * V8/native (builtins, C++ bindings, garbage collector, "(program)").
 */
export type FunctionCategory = 'own' | 'dependency' | 'node' | 'native';

/** A function as the profiles name it; name + file + line identify it across processes and sides. */
export interface FunctionId {
  /** V8's name; an anonymous function is named by its location, "(anonymous payload.js:12:20)". */
  name: string;
  /** Path relative to the repository root (own code and dependencies inside it), the absolute path outside it, node:… for core, "" for native. */
  file: string;
  /** 1-based line and column of the function's start; 0 when unknown (native). */
  line: number;
  column: number;
  category: FunctionCategory;
  /** npm package of a dependency (from its node_modules path); null otherwise. */
  package: string | null;
  /* Issue 13 (own-code attribution), all optional: absent in older results and where the source could not be read. */
  /** Own code: the innermost named function around this one in the source ("" at the top level of its file). */
  enclosing?: string;
  /** Own code: what the source text is, from its first characters. */
  kind?: 'function' | 'arrow' | 'method';
  /** Own code: a hash of the function's source text (sha1, 12 hex digits), to match it across base and head wherever it moved. */
  hash?: string;
  /** Own code: the function's last line (1-based), from V8's coverage; absent when coverage left the function out. */
  endLine?: number;
}

/** What an own function's samples (self and below it, up to the next own function) went into. */
export interface AttributedInto extends FunctionId {
  samples: number;
}

export interface FunctionStats extends FunctionId {
  /** Samples with this function on top of the stack (its own code running). */
  self: number;
  /** Samples with this function anywhere on the stack (a recursive function counted once per sample). */
  total: number;
  /** Why V8 deoptimized it or would not optimize it, when a profile records a reason. */
  deoptReasons?: string[];
  /** Own code (issue 13): samples charged to it as the innermost own function on the stack (its self time plus the dependency, core, native and regex frames it calls). */
  attributed?: number;
  /** Own code: the frames its attributed samples landed in other than itself (the hottest few), by samples. */
  into?: AttributedInto[];
  /** Own code: what V8's --trace-deopt / --trace-opt said of it during the profiled run. */
  optimization?: { deopts: number; reasons: string[]; notOptimized?: string[] };
}

/** One side's profiles merged and counted over the profiled load window. */
export interface ProfileSummary {
  /** Samples in the window that were not idle: the denominator of every percentage. */
  samples: number;
  /** Samples in the window spent idle (waiting for I/O), left out of the percentages. */
  idleSamples: number;
  /** Self samples per category. */
  categories: Record<FunctionCategory, number>;
  /** By self samples, descending; bounded (the hottest by self and by total time, on this side or the other). */
  functions: FunctionStats[];
  /** Functions seen on this side before bounding. */
  functionCount: number;
}

export interface SideProfile extends ProfileSummary {
  /** How the profiler ran: V8's --cpu-prof in NODE_OPTIONS, or perfgate's preload through an inspector session (Node versions that refuse --cpu-prof in NODE_OPTIONS). */
  profiler: 'cpu-prof' | 'inspector';
  /** The Node.js version that ran the service (and rendered its flamegraph). */
  nodeVersion: string;
  /** Responses received during the profiled window. */
  requests: number;
  /** Length of the profiled window, ms. */
  windowMs: number;
  /** Wall time of this side's profiling: start, warm-up, profiled load, stop and reading the profiles, ms. */
  wallMs: number;
  /** Every process's .cpuprofile (relative to the run directory), with its samples in the window. */
  processes: { file: string; samples: number }[];
  /** The merged profile the flamegraph is drawn from (relative to the run directory). */
  merged: string;
  /** Sample moves perfgate made by source line: from a caller's optimized code to the inlined function, and from a call line to the callee (docs/profiling.md). */
  inlinedSamples: number;
  /** Samples per installed package (src/profile/packages.ts), most first; absent in results from before it was recorded. */
  packages?: PackageTime[];
}

/** A package's samples on one side: every sample whose innermost package frame is this package (with the Node core and V8 code it calls). */
export interface PackageTime {
  /** From the package.json nearest the frame's file. */
  name: string;
  /** null when that package.json gives none. */
  version: string | null;
  samples: number;
}

export interface ScenarioProfile {
  scenario: string;
  /** Profiled load per side, ms, and V8's sampling interval, µs. */
  durationMs: number;
  intervalUs: number;
  sides: Record<Side, SideProfile>;
  /** Flamegraphs next to results.json (paths relative to the run directory); null when rendering failed. */
  files: { head: string | null; base: string | null; diff: string | null };
  /** Wall time of drawing the three flamegraphs (0x for head and base at once), ms; null until done. */
  renderMs: number | null;
}

/* ---------- analysis: derived from Results by compareResults (pure) ---------- */

export type Verdict = 'regression' | 'improvement' | 'unchanged' | 'inconclusive';

/** The middle half of a set of changes: their quartiles (R type 7), as fractions (0.05 = +5%). */
export interface Quartiles {
  q1: number;
  q3: number;
}

/** How much one unit moves on this machine: the spread a reader judges a change against. */
export interface Noise {
  /** The per-pair changes head/base − 1 (micro-benchmarks: per round); null with fewer than 2 usable pairs. */
  pairs: Quartiles | null;
  /** The start pairs' own changes (`starts`); null without starts (micro-benchmarks, old results) or with fewer than 2. */
  starts: Quartiles | null;
  /**
   * How far a pair's log-ratio moves inside its start pair: the standard deviation around its
   * start's mean, pooled over the starts with 2 or more pairs. Set beside the starts' own spread
   * it tells pair noise from each start's own offset (gate/warnings.ts). Absent without starts.
   */
  withinStarts?: number | null;
}

/** What every paired comparison carries, an HTTP metric's or a micro-benchmark's. */
export interface PairedComparison {
  gated: boolean;
  /** Fraction, e.g. 0.05. */
  limit: number;
  /**
   * Independent units the test counted: start pairs for HTTP and health metrics (results of
   * perfgate 0.1 counted pairs), rounds with both sides for a benchmark.
   */
  n: number;
  /** Pairs (or rounds) with a finite ratio behind those units. */
  pairs?: number;
  /** HTTP and health metrics: each start pair's own change (the Hodges–Lehmann estimate of its pairs' ratios), in start order. */
  starts?: { start: number; change: number; pairs: number }[];
  /** Medians over slices (or benchmark processes), in the metric's unit (req/s, µs, µs per request, ops/s). */
  baseMedian: number;
  headMedian: number;
  /** Relative change head vs base: exp(HL estimate of paired log-ratios) − 1. */
  change: number;
  /** 95% distribution-free interval of the change (same scale as change). */
  ciLow: number;
  ciHigh: number;
  /** 90% interval, for the equivalence verdict "unchanged" (two one-sided tests at 5%); absent in analyses of perfgate 0.1. */
  eqLow?: number;
  eqHigh?: number;
  /**
   * One-sided sign-flip (Fisher–Pitman) p-value in the direction of the estimate (a slowdown is
   * tested only as a slowdown), unadjusted. Results written before perfgate 0.2 hold the two-sided
   * Wilcoxon signed-rank p, and later ones from before the sign-flip test the one-sided one.
   */
  p: number;
  /** Holm-adjusted p for gated metrics; equal to p for informational ones. */
  pAdjusted: number;
  /** Smallest change this run could detect (80% power at alpha), as a fraction. */
  detectable: number;
  verdict: Verdict;
  /** true when higher is better (throughput, ops/s). */
  higherIsBetter: boolean;
  /** The spread of the units behind the estimate (the report's noise table). */
  noise: Noise;
}

export interface MetricComparison extends PairedComparison {
  metric: MetricId;
  scenario: string;
  /**
   * Throughput only: the sides whose slices mostly measured the load generator (at its CPU limit
   * while the service was not); a verdict that rests on such a side is inconclusive. Absent: none.
   */
  generatorBound?: Side[];
}

/** A service-health metric compared like an HTTP metric, with an absolute floor besides the relative limit. */
/** A start-up metric over every start pair (base start n against head start n); medians in ms or bytes. */
export interface StartupComparison extends PairedComparison {
  metric: StartupMetricId;
}

export interface HealthComparison extends PairedComparison {
  metric: HealthMetricId;
  scenario: string;
  /** Absolute change that a regression or improvement must also exceed, in the metric's unit (0: none). */
  min: number;
  /** Hodges–Lehmann estimate of the per-pair differences head − base, in the metric's unit, and its 95% interval. */
  absoluteChange: number;
  absoluteLow: number;
  absoluteHigh: number;
}

/** How one side's post-GC heap moved with the requests it served, within each start of the service. */
export interface HeapTrend {
  /** Slices with a heap number. */
  n: number;
  /** Theil–Sen slope of post-GC heap against requests served, pooled over blocks, bytes per request. */
  bytesPerRequest: number;
  /** The same slope in each block (each start of the service); null where a block has fewer than 3 slices. */
  blocks: (number | null)[];
  /** Seasonal Kendall trend statistic S (blocks as seasons): above 0 rising, below 0 falling. */
  s: number;
  /** Its two-sided p-value (normal approximation with ties and continuity correction). */
  p: number;
  /** Post-GC heap and RSS at the scenario's last slice with health data, bytes. */
  lastHeapBytes: number;
  lastRssBytes: number;
  /** Active handles at that slice. */
  lastActiveHandles: number;
}

/** The memory-growth rule's verdict: a regression here is a "possible leak". */
export interface HeapGrowthComparison {
  scenario: string;
  gated: boolean;
  /** How much faster head's heap must grow than base's to count, MB (10^6 bytes) per 10,000 requests. */
  limit: number;
  base: HeapTrend;
  head: HeapTrend;
  /** Each side's growth (its trend's bytesPerRequest), MB per 10,000 requests. */
  baseMbPer10k: number;
  headMbPer10k: number;
  /** Head's growth minus base's, MB per 10,000 requests. */
  change: number;
  verdict: Verdict;
}

/** Whether one side's slices measured the load generator rather than the service. */
export interface GeneratorLoad {
  /** Slices with both the generator's and the service's load known. */
  slices: number;
  /** Of those, slices where the generator was at its limit while the service had spare time. */
  boundSlices: number;
  /** Median CPU of the load generator over the slices, as a fraction of one core. */
  generatorCpu: number;
  /** Median share of the slice the generator's event loop was busy, 0–1; NaN in results that lack it. */
  generatorBusy: number;
  /** Median load of the service: its busiest event loop's utilisation, or (without health data) its CPU in cores. */
  serviceLoad: number;
  serviceLoadSource: 'event-loop' | 'cpu';
}

export interface GeneratorCheck {
  scenario: string;
  sides: Record<Side, GeneratorLoad>;
  /** Sides where most slices were generator-bound. */
  bound: Side[];
}

/** A finding worth a sentence in the report; the numbers come from the comparisons (src/report/health.ts words it). */
export type HealthHint =
  | { kind: 'blocked-loop'; scenario: string; side: Side; baseMaxUs: number; headMaxUs: number; profiled: boolean }
  | { kind: 'possible-leak'; scenario: string; baseMbPer10k: number; headMbPer10k: number; headBlocksMbPer10k: number[] }
  | { kind: 'leak-gone'; scenario: string; baseMbPer10k: number; headMbPer10k: number }
  | { kind: 'gc-pressure'; scenario: string; baseMsPer1k: number; headMsPer1k: number }
  | { kind: 'cpu-per-request'; scenario: string; baseUs: number; headUs: number; change: number; profiled: boolean }
  | { kind: 'waiting-outside'; scenario: string; change: number; headUtilization: number }
  | {
      kind: 'generator-bound';
      scenario: string;
      sides: Side[];
      generatorBusy: number;
      generatorCpu: number;
      serviceLoad: number;
      serviceLoadSource: 'event-loop' | 'cpu';
    };

/** How many of a service's processes reported health per slice: the fewest and the most over a scenario's slices. */
export interface ProcessCount {
  scenario: string;
  /** null: no slice of that side had a report. */
  base: { min: number; max: number } | null;
  head: { min: number; max: number } | null;
}

export interface HealthAnalysis {
  comparisons: HealthComparison[];
  heap: HeapGrowthComparison[];
  generator: GeneratorCheck[];
  hints: HealthHint[];
  /** Per scenario with health data, how many processes reported (a cluster's workers and primary). */
  processes: ProcessCount[];
  /** Gated health regressions (they fail the build like `Analysis.failing`). */
  failing: (HealthComparison | HeapGrowthComparison)[];
}

/** Which micro-benchmark, and how reports name it. */
export interface BenchmarkIdentity {
  /** Stable key of file, suite, name and occurrence (what base and head are matched on). */
  key: string;
  file: string;
  suite: string | null;
  name: string;
  occurrence: number;
  /** The shortest unique name in this run: the name, else suite › name, else file › suite › name. */
  label: string;
  library: BenchLibrary;
}

/** A benchmark present on both sides, compared round by round on its ops/s. */
export interface BenchmarkComparison extends PairedComparison, BenchmarkIdentity {}

/** A benchmark listed, not compared. */
export interface UncomparedBenchmark extends BenchmarkIdentity {
  /** added: only head has it; removed: only base; failed: it (or its file) gave no usable pair. */
  status: 'added' | 'removed' | 'failed';
  /** Median ops/s of each side's processes; null where that side has no number. */
  baseOpsPerSec: number | null;
  headOpsPerSec: number | null;
  /** Why a failed benchmark could not be compared. */
  reason: string | null;
}

/** A benchmark file whose process failed on one side (threw, exited non-zero, hung, captured nothing). */
export interface BenchFileFailure {
  file: string;
  side: Side;
  /** Rounds whose process failed, and how many ran on that side. */
  failedRounds: number[];
  runs: number;
  /** The last failure's message, with the tail of its stderr. */
  message: string;
}

export interface BenchmarkAnalysis {
  comparisons: BenchmarkComparison[];
  uncompared: UncomparedBenchmark[];
  failures: BenchFileFailure[];
  /** Gated benchmark regressions (they fail the build like `Analysis.failing`). */
  failing: BenchmarkComparison[];
  /**
   * What could not be compared, in words, for the decision text: failed benchmarks, and files
   * whose benchmarks are unknown because they never ran on either side. Empty when all compared.
   */
  notCompared: string[];
}

/** Requests that did not succeed, summed over one side's slices of one scenario. */
export interface FailureTally {
  scenario: string;
  side: Side;
  requests: number;
  non2xx: number;
  /** The unexpected statuses among them, summed over the slices that recorded them (empty for results from before they were). */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** An answer of an unexpected status this side gave, when one was sampled (ScenarioResults.unexpectedAnswer). */
  answer?: UnexpectedAnswer;
}

/**
 * Everything the reports show that is not raw data, derived from Results by compareResults
 * (src/gate/compare.ts, pure). The renderers only render it; `perfgate report` and the action's
 * report mode derive it again from a results.json, so it is never stored.
 */
export interface Analysis {
  comparisons: MetricComparison[];
  decision: 'pass' | 'fail';
  regressions: number;
  improvements: number;
  /** Gated regressions, with metric and scenario. */
  failing: MetricComparison[];
  /** Every warning once: those recorded while running (results.warnings), then the analysis's own (src/gate/warnings.ts). */
  warnings: RunWarning[];
  /** Per scenario and side, only where some request failed (non-2xx, error or timeout). */
  failedRequests: FailureTally[];
  /** The look at which the pre-registered design stopped the run early; null when it ran every block (or had no interim look). */
  earlyStop: TakenLook | null;
  /** Micro-benchmark verdicts, when the run has micro-benchmarks; counted in decision, regressions and improvements. */
  benchmarks?: BenchmarkAnalysis;
  /** Service health, when any slice has health or load-generator data; counted in decision, regressions and improvements. */
  health?: HealthAnalysis;
  /** Start-up time and memory over the starts, when the run recorded them; counted in decision, regressions and improvements. */
  startup?: StartupComparison[];
  /** Outgoing I/O per request, when any slice counted some (information, never gated). */
  io?: IoAnalysis;
  /**
   * Why base and head were not measured on equal terms (src/gate/fairness.ts), when they were
   * not: the decision is then "fail" whatever the verdicts say, no accept label turns it into a
   * pass, and the CLI exits 2 (the run is invalid, not a regression).
   */
  unfair?: UnfairFinding[];
}

/** One reason the comparison was not fair. */
export interface UnfairFinding {
  /** idle-cpu: the starts not under load burned more CPU while one side was measured than while the other was. */
  code: 'idle-cpu';
  /** Whose idle starts made the difference. */
  side: Side;
  /** How much more the idle starts used during the other side's slices than during this side's, as a share of one core (averages over each side's slices). */
  idleCoreShare: number;
  slices: number;
  message: string;
}

/** One side's I/O to one destination over a scenario's slices: its totals per request served. */
export interface IoSide {
  /** Round trips per request served. */
  roundTripsPerRequest: number;
  /** Time waited on those round trips per request served, ms. */
  waitMsPerRequest: number;
}

/** One destination of one scenario, base against head (src/gate/io.ts). */
export interface IoComparison {
  scenario: string;
  destination: string;
  /** null: the side never talked to it in this scenario. */
  base: IoSide | null;
  head: IoSide | null;
  /** Whether the round trips per request, or the wait per request, changed beyond the noise of the start pairs. */
  roundTripsChanged: boolean;
  waitChanged: boolean;
}

export interface IoAnalysis {
  comparisons: IoComparison[];
}
