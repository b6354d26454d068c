/**
 * The resolved configuration the engine runs with: every default applied, every value
 * validated, units explicit in the names. Produced only by `resolveConfig` (src/config).
 */

/**
 * Metrics compared per HTTP scenario. Direction: which way is worse. `errors` is the share of
 * requests not answered as expected, compared as a difference in percentage points, not a ratio.
 */
export const METRICS = ['throughput', 'latency_p50', 'latency_p90', 'latency_p99', 'latency_p999', 'cpu_per_request', 'errors'] as const;
export type MetricId = (typeof METRICS)[number];

/** Work counters per request, counted inside the service rather than timed (docs/health.md, "Work counters"). */
export const COUNTER_METRICS = [
  'allocated_per_request',
  'gc_count_per_request',
  'syscalls_per_request',
  'socket_written_per_request',
  'socket_read_per_request',
] as const;
export type CounterMetricId = (typeof COUNTER_METRICS)[number];

/** Service-health metrics compared per HTTP scenario (measured inside the service; docs/health.md). */
export const HEALTH_METRICS = ['event_loop_delay_p99', 'event_loop_delay_max', 'event_loop_utilization', 'gc_per_request', ...COUNTER_METRICS] as const;
export type HealthMetricId = (typeof HEALTH_METRICS)[number];

/** What every start of the service tells, before any load: how long it took to listen, and its memory then (docs/method.md, "Start-up"). */
export const STARTUP_METRICS = ['startup_time', 'startup_memory'] as const;
export type StartupMetricId = (typeof STARTUP_METRICS)[number];

/** What `gate` has a relative rule for: every HTTP, health and start-up metric, and the micro-benchmarks (ops/s) as one rule. */
export const GATE_KEYS = [...METRICS, ...HEALTH_METRICS, ...STARTUP_METRICS, 'benchmarks'] as const;
export type GateKey = (typeof GATE_KEYS)[number];

/** The metrics with an absolute meaning on head, which may carry a service level (`max`). */
export const LEVEL_METRICS = ['latency_p50', 'latency_p90', 'latency_p99', 'latency_p999', 'errors'] as const;
export type LevelMetricId = (typeof LEVEL_METRICS)[number];

/** What a scenario's own `gate` may set: the metrics measured per scenario. */
export const SCENARIO_GATE_KEYS = [...METRICS, ...HEALTH_METRICS] as const;
export type ScenarioGateKey = (typeof SCENARIO_GATE_KEYS)[number];

/** An absolute level on head: head's value must not be significantly above `max`. */
export interface LevelRule {
  /** µs for a latency; a share 0–1 for errors. */
  max: number;
  /** Whether a level significantly exceeded fails the build. */
  gated: boolean;
}

export interface MetricRule {
  /** Relative limit as a fraction (0.05 = 5%). A change must exceed it to be a regression/improvement. */
  limit: number;
  /** Gated metrics can fail the build; the others are information only. */
  gated: boolean;
  /**
   * Absolute change a regression or improvement must also exceed, in the metric's unit (µs for
   * event-loop delay), so a 0.1 → 0.2 ms change is never a regression. Absent: no floor.
   */
  min?: number;
  /** A service level on head (latencies and errors only); absent: none. */
  level?: LevelRule;
}

/** The memory-growth rule (gate.heap_growth): head's post-GC heap growing faster than base's. */
export interface HeapGrowthRule {
  /** How much faster head's heap must grow than base's, MB (10^6 bytes) per 10,000 requests. */
  limitMbPer10k: number;
  gated: boolean;
}

/** A fixed rate: requests per second, or a share of base's capacity measured in the first warm-up. */
export type ScenarioRate = { perSecond: number } | { ofCapacity: number };

/**
 * Where a sequence's request takes a value from its response: `body` (the whole body as text),
 * `body.a.b.0` (a JSON dot path; numeric segments index arrays) or `header.<name>`.
 */
/** What a route's body must hold besides its status. */
export interface ExpectedBody {
  /** Text the body contains. */
  contains?: string;
  /** Dot paths of the JSON body (`success`, `data.items.0.id`), each with the value it must equal. */
  json?: Record<string, string | number | boolean | null>;
}

/** scenarios[].expect as parsed: the statuses (absent: any 2xx) and what the body must hold. */
export interface Expectation {
  statuses?: number[];
  body?: ExpectedBody;
}

export type CaptureSource = { from: 'body'; path: string[] } | { from: 'header'; name: string };

/** One request of a scenario that lists several (`requests:`). Texts may hold {name} placeholders. */
export interface RequestConfig {
  /** Unique within the scenario; default "METHOD path". */
  name: string;
  method: string;
  /** Path and query, starting with '/'. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
  /** Share of a mix, a positive integer (1 in a sequence). */
  weight: number;
  /** Values this request's response gives the requests after it in a sequence, by name; null: none. */
  capture: Record<string, CaptureSource> | null;
}

/** A file of rows whose columns the scenario's requests use as {column}. */
export interface ScenarioValues {
  /** CSV or JSON file, relative to service.cwd, read from head's tree before any service starts. */
  file: string;
}

export interface ScenarioConfig {
  name: string;
  /** The request (the first of `requests`, when the scenario lists several). */
  method: string;
  /** Path and query, starting with '/'. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
  /**
   * Several requests: a weighted mix, or a sequence per connection (`sequence`). null or absent
   * (the single-request form, stored as it was before mixes existed): method, path, headers, body.
   */
  requests?: RequestConfig[] | null;
  /** true: every connection (or virtual user at a fixed rate) sends `requests` in order, again and again; false or absent: a weighted mix. */
  sequence?: boolean;
  /** Rows used as {column} in the requests; null or absent: none. */
  values?: ScenarioValues | null;
  connections: number;
  pipelining: number;
  /**
   * null: closed loop (each connection sends its next request when the previous one is
   * answered). Set: fixed rate (open loop), the same rate on both sides.
   */
  rate: ScenarioRate | null;
  /** Statuses the route is expected to answer; null: any 2xx. */
  expect: number[] | null;
  /** What the route's body must hold (expect: { body, json }); absent: nothing declared. */
  expectBody?: ExpectedBody;
  /** The rules this scenario sets itself, each the global rule with the scenario's keys over it; absent: the global ones. */
  gate?: Partial<Record<ScenarioGateKey, MetricRule>>;
}

export interface ServiceConfig {
  /** null: chosen from the lockfile; '' : skip installing. */
  install: string | null;
  /** null: no build step. */
  build: string | null;
  /** Run before every start of the service (migrations, seed data); null: none. */
  setup: string | null;
  /** null only when there are no scenarios (a project with micro-benchmarks alone has no service to start). */
  start: string | null;
  /** Directory of the service inside the repository, relative ('.' = repository root). */
  cwd: string;
  /** Environment added to the service (NODE_ENV defaults to production). */
  env: Record<string, string>;
  ready: { path: string | null; timeoutMs: number };
}

export interface LoadConfig {
  /** Length of one measured slice, ms. */
  sliceMs: number;
  /** Pairs per scenario, over all blocks. */
  pairs: number;
  /** Times both services are (re)started; pairs are split evenly across blocks. */
  blocks: number;
  /** Fresh starts of each side per block, all up at once; the start pairs take turns, each warmed just before its pairs. */
  instances: number;
  /** Warm-up load per start pair, both starts at once, just before its first scenario's slices (each other scenario of the turn: one slice), ms. */
  warmupMs: number;
  /** simultaneous: both sides of a pair under load at the same time; alternate: one after the other, in random order. */
  mode: 'simultaneous' | 'alternate';
  /** CPU pinning of the load generator apart from the services (auto and on: with 2 or more CPUs). */
  pin: 'auto' | 'on' | 'off';
  /** Take the pre-registered looks (after every block but the last) and stop when the verdict is already clear. */
  earlyStop: boolean;
  /**
   * 'verdicts': an interim look stops a run that has not regressed only once every gated metric is
   * unchanged or improved. Absent (load.stop: decision, the default): once none can fail any more.
   */
  stop?: 'verdicts';
}

export interface BenchmarksConfig {
  /** Globs of benchmark files, relative to the service directory of each tree (posix separators). */
  files: string[];
  /** Rounds: each runs every file once per side, each in a fresh process. */
  rounds: number;
  /** Longest one benchmark process may run before it is killed, ms. */
  timeoutMs: number;
  /** Total time for the micro-benchmark phase, ms: no new round pair starts past it. */
  budgetMs: number;
}

export interface PerfgateConfig {
  service: ServiceConfig;
  /** Empty when only micro-benchmarks are configured. */
  scenarios: ScenarioConfig[];
  load: LoadConfig;
  /** null: no micro-benchmarks. */
  benchmarks: BenchmarksConfig | null;
  /** A rule for every metric, and the memory-growth rule (results/migrate.ts gives older results.json files the defaults they lack). */
  gate: Record<GateKey, MetricRule> & { heap_growth: HeapGrowthRule };
  /** Family-wise significance level for gated metrics (Holm). */
  alpha: number;
  /** Seed of the random pair order; null = choose one and log it. */
  seed: number | null;
  /** The profiling phase. */
  profile: ProfileConfig;
}

/** CPU profiles of both sides under each scenario's load, after the timed slices. */
export interface ProfileConfig {
  enabled: boolean;
  /** Profiled load per side, ms. */
  durationMs: number;
  /** V8's sampling interval, µs (--cpu-prof-interval). */
  intervalUs: number;
  /** Names of the scenarios to profile; null: all. */
  scenarios: string[] | null;
  /**
   * changed: only the scenarios a culprit explains (assess/look.ts; the verdicts are taken after
   * the timed slices); always: every one.
   */
  when: 'changed' | 'always';
  /** Whether a gated regression's culprit is tested by reverting it in a third arm (engine/phases/confirm.ts). */
  confirm: boolean;
}
