/**
 * The resolved configuration the engine runs with: every default applied, every value
 * validated, units explicit in the names. Produced only by `resolveConfig` (src/config).
 */

/** Metrics compared per HTTP scenario. Direction: which way is worse. */
export const METRICS = ['throughput', 'latency_p50', 'latency_p90', 'latency_p99', 'cpu_per_request'] as const;
export type MetricId = (typeof METRICS)[number];

export interface MetricRule {
  /** Relative limit as a fraction (0.05 = 5%). A change must exceed it to be a regression/improvement. */
  limit: number;
  /** Gated metrics can fail the build; the others are information only. */
  gated: boolean;
}

export interface ScenarioConfig {
  name: string;
  method: string;
  /** Path and query, starting with '/'. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
  connections: number;
  pipelining: number;
}

export interface ServiceConfig {
  /** null: chosen from the lockfile; '' : skip installing. */
  install: string | null;
  /** null: no build step. */
  build: string | null;
  start: string;
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
  /** Warm-up load per service per block per scenario, ms. */
  warmupMs: number;
}

export interface PerfgateConfig {
  service: ServiceConfig;
  scenarios: ScenarioConfig[];
  load: LoadConfig;
  gate: Record<MetricId, MetricRule>;
  /** Family-wise significance level for gated metrics (Holm). */
  alpha: number;
  /** Seed of the random pair order; null = choose one and log it. */
  seed: number | null;
}
