import type { MetricId } from '../config/types.js';
import type { Slice } from '../results/types.js';

export interface MetricDefinition {
  id: MetricId;
  higherIsBetter: boolean;
  /** The slice's value in the metric's unit (req/s, µs, µs per request); NaN when undefined. */
  value(slice: Slice): number;
}

/** One definition per metric: where its number comes from, and which way is worse. */
export const METRIC_DEFINITIONS: readonly MetricDefinition[] = [
  { id: 'throughput', higherIsBetter: true, value: (s) => s.rps },
  { id: 'latency_p50', higherIsBetter: false, value: (s) => s.latencyUs.p50 },
  { id: 'latency_p90', higherIsBetter: false, value: (s) => s.latencyUs.p90 },
  { id: 'latency_p99', higherIsBetter: false, value: (s) => s.latencyUs.p99 },
  // Recorded by fixed-rate slices only: NaN elsewhere, so closed-loop scenarios get no row.
  { id: 'latency_p999', higherIsBetter: false, value: (s) => s.latencyUs.p999 ?? Number.NaN },
  {
    id: 'cpu_per_request',
    higherIsBetter: false,
    value: (s) => (s.requests > 0 ? (s.cpuSeconds * 1e6) / s.requests : Number.NaN),
  },
];
