/**
 * What perfgate.yml may leave out: every default in one place. The gate rules are kept resolved
 * (fractions, µs), as results.json's migration and the reports read them; the other keys are
 * kept as a user would write them, so the schema parses them like any written value and editors
 * and docs show them as written.
 */
import type { GateKey, HeapGrowthRule, MetricRule } from './types.js';

/**
 * Limits and whether each metric can fail the build, when perfgate.yml says nothing. The
 * throughput limit is the smallest change that counts, not the size that must be caught: with
 * 5% a true 5% drop fails only when the estimate lands beyond 5%, about half the time, so the
 * default is 2% (docs/calibration.md: the measurements behind it).
 */
export const DEFAULT_GATE: Readonly<Record<GateKey, Readonly<MetricRule>>> = {
  throughput: { limit: 0.02, gated: true },
  latency_p50: { limit: 0.1, gated: false },
  latency_p90: { limit: 0.1, gated: false },
  latency_p99: { limit: 0.15, gated: true },
  // Fixed-rate scenarios only (closed-loop slices do not record it): one window of a few hundred
  // requests holds a handful of samples above p99.9, so it is shown, not gated, by default.
  latency_p999: { limit: 0.25, gated: false },
  cpu_per_request: { limit: 0.1, gated: false },
  // The share of requests not answered as expected, head's minus base's: an absolute limit (1
  // percentage point), as a relative change of a share that is 0 on base has no value. Gated: a
  // route that starts answering 500 is a regression however fast it answers.
  errors: { limit: 0.01, gated: true },
  // Service health (docs/health.md). A loop stalled for tens of ms delays every request waiting
  // behind it, yet may barely move req/s: gated, but only past an absolute 10 ms as well, so a
  // 0.1 → 0.2 ms change on a fast loop never fails a build.
  event_loop_delay_p99: { limit: 0.5, gated: true, min: 10_000 },
  event_loop_delay_max: { limit: 0.5, gated: false, min: 10_000 },
  event_loop_utilization: { limit: 0.1, gated: false },
  gc_per_request: { limit: 0.25, gated: false },
  // Work counters: information only. A/A runs of seven kinds moved the bytes and the system
  // calls by a few hundredths of a percent, but a count may change with no cost in time, and
  // those runs bound false fails only below 6% (docs/calibration.md, "The work counters").
  allocated_per_request: { limit: 0.01, gated: false },
  gc_count_per_request: { limit: 0.1, gated: false },
  syscalls_per_request: { limit: 0.01, gated: false },
  socket_written_per_request: { limit: 0.01, gated: false },
  socket_read_per_request: { limit: 0.01, gated: false },
  // Measured on every start, before any load: information unless the project sets a limit.
  startup_time: { limit: 0.2, gated: false },
  startup_memory: { limit: 0.1, gated: false },
  // Gated like throughput: a benchmark the project chose to keep is a promise about speed. Each
  // process gives one number, so the rounds decide what can be detected (docs/benchmarks.md).
  benchmarks: { limit: 0.1, gated: true },
};

/**
 * The memory-growth rule when perfgate.yml says nothing. Information only: the rule is a
 * heuristic on a trend, not a paired test, and a short run sees little of a slow leak; the
 * report still flags a "possible leak" prominently. Set `gated: true` to fail on it.
 */
export const DEFAULT_HEAP_GROWTH: Readonly<HeapGrowthRule> = { limitMbPer10k: 0.5, gated: false };

/** Pairs per scenario by default: 24 start pairs (3 blocks × 8) of 3 pairs each; early-stop looks after blocks 1 and 2. */
export const DEFAULT_PAIRS = 72;

export const DEFAULT_SERVICE = {
  cwd: '.',
  /** How long a started service may take to be ready. */
  readyTimeout: '30s',
} as const;

export const DEFAULT_LOAD = {
  slice: '1s',
  pairs: DEFAULT_PAIRS,
  blocks: 3,
  instances: 8,
  warmup: '4s',
  mode: 'simultaneous',
  pin: 'auto',
  connections: 10,
  pipelining: 1,
  earlyStop: true,
  stop: 'decision',
} as const;

export const DEFAULT_BENCHMARKS = { rounds: 10, timeout: '2m', budget: '15m' } as const;

export const DEFAULT_PROFILE = { enabled: true, duration: '10s', interval: '1ms', when: 'changed', confirm: true } as const;

/** Family-wise significance level over the gated metrics. */
export const DEFAULT_ALPHA = 0.01;

/** The configuration file read when none is named. */
export const DEFAULT_CONFIG_FILE = 'perfgate.yml';
