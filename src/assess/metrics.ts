import type { MetricId } from '../config/types.js';
import { errorShare } from '../results/errors.js';
import type { Slice } from '../results/types.js';

export interface MetricDefinition {
  id: MetricId;
  higherIsBetter: boolean;
  /**
   * How base and head are set against each other. ratio: head/base, the change a fraction of
   * base (log-ratios, as every speed metric). difference: head − base in the metric's own unit,
   * for a share that is 0 on a healthy base, where head/base has no value.
   */
  scale: 'ratio' | 'difference';
  /** The slice's value in the metric's unit (req/s, µs, µs per request, a share 0–1); NaN when undefined. */
  value(slice: Slice): number;
}

/** One definition per metric: where its number comes from, and which way is worse. */
export const METRIC_DEFINITIONS: readonly MetricDefinition[] = [
  { id: 'throughput', higherIsBetter: true, scale: 'ratio', value: (s) => s.rps },
  { id: 'latency_p50', higherIsBetter: false, scale: 'ratio', value: (s) => s.latencyUs.p50 },
  { id: 'latency_p90', higherIsBetter: false, scale: 'ratio', value: (s) => s.latencyUs.p90 },
  { id: 'latency_p99', higherIsBetter: false, scale: 'ratio', value: (s) => s.latencyUs.p99 },
  // Recorded by fixed-rate slices only: NaN elsewhere, so closed-loop scenarios get no row.
  { id: 'latency_p999', higherIsBetter: false, scale: 'ratio', value: (s) => s.latencyUs.p999 ?? Number.NaN },
  {
    id: 'cpu_per_request',
    higherIsBetter: false,
    scale: 'ratio',
    value: (s) => (s.requests > 0 ? (s.cpuSeconds * 1e6) / s.requests : Number.NaN),
  },
  { id: 'errors', higherIsBetter: false, scale: 'difference', value: errorShare },
];
