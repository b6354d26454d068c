import { upgradeResults } from '../../src/results/migrate.js';
import type { GcKind, ProcessHealth, Results, Side, Slice } from '../../src/results/types.js';
import { createRandom } from '../../src/stats/random.js';
import { resultsFromPairs } from './results.js';

/** One process's report, with every field set (override what a test is about). */
export function processHealth(fields: Partial<ProcessHealth> = {}): ProcessHealth {
  const gc: Record<GcKind, { count: number; ms: number }> = {
    minor: { count: 20, ms: 12 },
    major: { count: 0, ms: 0 },
    incremental: { count: 0, ms: 0 },
    weakcb: { count: 0, ms: 0 },
  };
  return {
    pid: 100,
    ppid: 1,
    worker: false,
    windowMs: 1000,
    eventLoopDelayUs: { p50: 200, p99: 1500, max: 2500, samples: 95 },
    eventLoopUtilization: 0.9,
    gc,
    heapUsedBytes: 8e6,
    heapAfterGcBytes: 6e6,
    rssBytes: 60e6,
    activeHandles: 2,
    io: [],
    ioRequests: 0,
    queries: [],
    allocatedBytes: null,
    syscalls: null,
    socketBytesRead: null,
    socketBytesWritten: null,
    responses: null,
    ...fields,
  };
}

/** How one side's service behaves in a synthetic run; each slice wobbles around these (seeded). */
export interface HealthSpec {
  delayP99Us: number;
  delayMaxUs: number;
  utilization: number;
  /** GC pause time per 1,000 requests, ms. */
  gcMsPer1k: number;
  /** Post-GC heap when a block starts, and how much it grows per request served, bytes. */
  heapStartBytes: number;
  heapBytesPerRequest: number;
  /** The load generator's share of a core and loop busy share. */
  generatorCpu?: number;
  generatorBusy?: number;
  /** Work counters per request (none: the processes report none, as before they were counted). */
  counters?: { allocatedBytes: number; syscalls: number; socketBytesRead: number; socketBytesWritten: number };
}

export const HEALTHY: HealthSpec = {
  delayP99Us: 1800,
  delayMaxUs: 3000,
  utilization: 0.93,
  gcMsPer1k: 0.8,
  heapStartBytes: 6e6,
  heapBytesPerRequest: 2,
  generatorCpu: 0.45,
  generatorBusy: 0.5,
};

/**
 * Results of one scenario (GET /hello) whose slices carry health reports built from the specs:
 * `pairs` pairs over 2 blocks, two pairs per start pair (or `pairsPerStart`), rps per side from `rps`, requests
 * counted since each start (after a warm-up of 5 s at the same rate), values wobbling by a seeded ±`noise`.
 */
export function healthResults(
  pairs: number,
  specs: Record<Side, HealthSpec>,
  options: { rps?: [number, number]; noise?: number; seed?: number; document?: Record<string, unknown>; pairsPerStart?: number } = {},
): Results {
  const [baseRps, headRps] = options.rps ?? [10_000, 10_000];
  const rand = createRandom(options.seed ?? 7);
  const noise = options.noise ?? 0.05;
  const wobble = () => 1 + noise * (2 * rand() - 1);
  const results = resultsFromPairs(
    Array.from({ length: pairs }, () => [baseRps * wobble(), headRps * wobble()]),
    options.document,
    options.pairsPerStart ?? 2,
  );
  const served: Record<string, number> = {};
  for (const pair of results.scenarios[0]!.pairs) {
    for (const side of ['base', 'head'] as Side[]) {
      const slice: Slice = pair[side];
      const spec = specs[side];
      const key = `${side}${pair.start}`;
      served[key] = (served[key] ?? 5 * slice.requests) + slice.requests;
      const heap = spec.heapStartBytes + spec.heapBytesPerRequest * served[key]! + 150_000 * (2 * rand() - 1);
      const gcMs = (spec.gcMsPer1k * slice.requests * wobble()) / 1000;
      slice.generatorCpuSeconds = (spec.generatorCpu ?? 0.45) * wobble();
      slice.generatorEventLoopUtilization = Math.min(1, (spec.generatorBusy ?? 0.5) * wobble());
      slice.health = {
        requestsSinceStart: served[key]!,
        missing: 0,
        processes: [
          processHealth({
            eventLoopDelayUs: { p50: 200, p99: Math.round(spec.delayP99Us * wobble()), max: Math.round(spec.delayMaxUs * wobble()), samples: 95 },
            eventLoopUtilization: Math.min(1, spec.utilization * wobble()),
            gc: {
              minor: { count: 20, ms: gcMs },
              major: { count: 0, ms: 0 },
              incremental: { count: 0, ms: 0 },
              weakcb: { count: 0, ms: 0 },
            },
            ...(spec.counters && {
              allocatedBytes: Math.round(spec.counters.allocatedBytes * slice.requests * wobble()),
              syscalls: Math.round(spec.counters.syscalls * slice.requests * wobble()),
              socketBytesRead: Math.round(spec.counters.socketBytesRead * slice.requests * wobble()),
              socketBytesWritten: Math.round(spec.counters.socketBytesWritten * slice.requests * wobble()),
              responses: slice.requests,
            }),
            heapAfterGcBytes: Math.round(heap),
            heapUsedBytes: Math.round(heap + 2e6),
            rssBytes: Math.round(heap + 50e6),
          }),
        ],
      };
    }
  }
  return results;
}

/** The results as a perfgate from before health wrote them (no health rules in the config), read back as a file is. */
export function withoutHealthRules(results: Results): Results {
  const { event_loop_delay_p99: _a, event_loop_delay_max: _b, event_loop_utilization: _c, gc_per_request: _d, heap_growth: _e, ...gate } =
    results.config.gate;
  return upgradeResults(structuredClone({ ...results, config: { ...results.config, gate } }), 'results.json');
}

/**
 * A markdown report's "Service health" table, in the first fold, and its hints, which tell the
 * story above that fold: what a reader of the comment learns of the service's health.
 */
export function healthSection(markdown: string): string {
  const start = markdown.indexOf('**Service health**');
  const hints = markdown
    .slice(0, markdown.indexOf('<details>'))
    .split('\n')
    .filter((line) => /^- (💡|⚠️) \*\*/.test(line));
  return [markdown.slice(start, markdown.indexOf('</details>', start)).trim(), ...hints].join('\n');
}
