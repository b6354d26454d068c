/** What a load generator measures in one window, and the pieces every generator shares. */
import * as hdr from 'hdr-histogram-js';
import type { ScenarioConfig } from '../../config/types.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LatencyUs, RequestSlice, Slice } from '../../results/types.js';

/** What one window measured on one target: the load's part of a slice (results.json's Slice; the engine adds CPU and health). */
export type LoadSample = Pick<
  Slice,
  'startedAt' | 'durationMs' | 'requests' | 'rps' | 'latencyUs' | 'non2xx' | 'statuses' | 'errors' | 'timeouts' | 'offered' | 'byRequest'
>;

/** A window's unexpected statuses as a slice records them: by status, absent when there were none. */
export function statusCounts(statuses: Map<number, number>): Pick<LoadSample, 'statuses'> {
  if (statuses.size === 0) return {};
  return { statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b).map(([status, n]) => [String(status), n])) };
}

/** A window's sample plus every response since the previous window closed, counted or not (the heap trend's x). */
export type WindowSample = LoadSample & { served: number };

/** What to do at the instants the shared measuring window opens and closes (read CPU clocks). */
export interface LoadWindow {
  onOpen?: () => void;
  onClose?: () => void;
}

/**
 * One measuring window: `setCounting(true)` for `durationMs` on perfgate's monotonic clock, with
 * the caller's instants (CPU clocks) read as it opens and closes. Every generator counts its
 * windows this way, so a window means the same thing whatever sends the load.
 */
export async function countWindow(
  durationMs: number,
  window: LoadWindow,
  setCounting: (on: boolean) => void,
): Promise<{ startedAt: string; windowMs: number }> {
  setCounting(true);
  const startedAt = new Date().toISOString();
  const t0 = process.hrtime.bigint();
  window.onOpen?.();
  try {
    await sleep(durationMs);
  } finally {
    setCounting(false);
  }
  const windowMs = Number(process.hrtime.bigint() - t0) / 1e6;
  window.onClose?.();
  return { startedAt, windowMs };
}

/** How long a new load waits after it starts sending before its first window, ms: no window counts the connections' opening. */
export function openingLeadMs(sliceMs: number): number {
  return Math.min(200, Math.max(20, Math.round(sliceMs / 20)));
}

export interface LoadOptions {
  /** The longest this load may run (its windows and the gaps between them), ms: a backstop. */
  maxMs: number;
  /** Its windows' usual length, ms: sets how often the generator checks its clock and the request timeout. */
  sliceMs: number;
  /** Requests per second per target for a fixed-rate scenario; required when the scenario has a rate. */
  ratePerSecond?: number;
}

/** Load kept up on one or more targets at once, counted in windows that open and close at the same instants for all. */
export interface LoadRun {
  measure(durationMs: number, window?: LoadWindow): Promise<WindowSample[]>;
  /** Stops the load and lets go of the connections; throws the generator's own error, if it failed. */
  close(): Promise<void>;
}

/** Opens load on `baseUrls` (one service each) for a scenario. */
export type LoadGenerator = (baseUrls: string[], scenario: ScenarioConfig, options: LoadOptions) => Promise<LoadRun>;

/** Whether a response's status is what the scenario expects: its declared statuses, else any 2xx. */
export function isExpectedStatus(scenario: Pick<ScenarioConfig, 'expect'>, status: number): boolean {
  const expected = scenario.expect;
  return expected && expected.length > 0 ? expected.includes(status) : status >= 200 && status < 300;
}

/** A latency histogram at µs resolution up to 120 s (autocannon's own is whole milliseconds). */
export function latencyHistogram(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

/** A window's percentiles, µs; `p999` too when asked (fixed rate: enough requests per window to say something about the tail). Destroys the histogram. */
export function latencyOf(histogram: hdr.Histogram, withP999 = false): LatencyUs {
  const latency: LatencyUs =
    histogram.totalCount > 0
      ? {
          p50: histogram.getValueAtPercentile(50),
          p90: histogram.getValueAtPercentile(90),
          p99: histogram.getValueAtPercentile(99),
          ...(withP999 && { p999: histogram.getValueAtPercentile(99.9) }),
          max: histogram.maxValue,
          mean: Math.round(histogram.mean * 10) / 10,
        }
      : { p50: 0, p90: 0, p99: 0, ...(withP999 && { p999: 0 }), max: 0, mean: 0 };
  histogram.destroy();
  return latency;
}

/**
 * One target's count per request of a mix or sequence over one window: how many answered, how
 * many failed, and their latencies (the scenario's own histogram holds them all as well).
 */
export class RequestTally {
  private histograms: hdr.Histogram[] = [];
  private responses: number[] = [];
  private failed: number[] = [];

  constructor(private readonly names: readonly string[]) {}

  /** Starts a window: every count at zero. */
  open(): void {
    this.histograms = this.names.map(() => latencyHistogram());
    this.responses = this.names.map(() => 0);
    this.failed = this.names.map(() => 0);
  }

  /** A response to request `index` in the window, `latencyUs` after it was due (or sent); `failed`: not what the scenario expects. */
  record(index: number, latencyUs: number, failed: boolean): void {
    const histogram = this.histograms[index];
    if (!histogram) return;
    this.responses[index]!++;
    if (failed) this.failed[index]!++;
    histogram.recordValue(Math.max(1, Math.round(latencyUs)));
  }

  /** A request `index` that got no response (an error, a timeout). */
  fail(index: number): void {
    if (this.failed[index] !== undefined) this.failed[index]!++;
  }

  /** The window's numbers per request; frees the histograms. */
  close(): RequestSlice[] {
    const slices = this.names.map((name, i) => {
      const latency = latencyOf(this.histograms[i]!);
      return { name, responses: this.responses[i]!, failed: this.failed[i]!, p50Us: latency.p50, p99Us: latency.p99 };
    });
    this.histograms = [];
    return slices;
  }
}
