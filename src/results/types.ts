import type { PerfgateConfig, MetricId } from '../config/types.js';

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
  max: number;
  mean: number;
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
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Service CPU time (user+system, whole process tree), seconds, during the slice. */
  cpuSeconds: number;
}

export interface Pair {
  block: number;
  /** Index within the scenario, 0-based over all blocks. */
  index: number;
  /** Order the two slices ran in. */
  order: [Side, Side];
  base: Slice;
  head: Slice;
}

export interface ScenarioResults {
  name: string;
  method: string;
  path: string;
  pairs: Pair[];
}

export interface RunWarning {
  code: string;
  message: string;
  scenario?: string;
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
  warnings: RunWarning[];
}

/* ---------- analysis: derived from Results by compareResults (pure) ---------- */

export type Verdict = 'regression' | 'improvement' | 'unchanged' | 'inconclusive';

export interface MetricComparison {
  metric: MetricId;
  scenario: string;
  gated: boolean;
  /** Fraction, e.g. 0.05. */
  limit: number;
  /** Pairs used (pairs with a non-finite ratio are dropped). */
  n: number;
  /** Medians over slices, in the metric's unit (req/s, µs, µs per request). */
  baseMedian: number;
  headMedian: number;
  /** Relative change head vs base: exp(HL estimate of paired log-ratios) − 1. */
  change: number;
  /** 95% distribution-free interval of the change (same scale as change). */
  ciLow: number;
  ciHigh: number;
  /** Two-sided Wilcoxon signed-rank p-value, unadjusted. */
  p: number;
  /** Holm-adjusted p for gated metrics; equal to p for informational ones. */
  pAdjusted: number;
  /** Smallest change this run could detect (80% power at alpha), as a fraction. */
  detectable: number;
  verdict: Verdict;
  /** true when higher is better (throughput). */
  higherIsBetter: boolean;
}

export interface Analysis {
  comparisons: MetricComparison[];
  decision: 'pass' | 'fail';
  regressions: number;
  improvements: number;
  /** Gated regressions, with metric and scenario. */
  failing: MetricComparison[];
  warnings: RunWarning[];
}
