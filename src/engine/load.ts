import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import * as hdr from 'hdr-histogram-js';
import type { ScenarioConfig } from '../config/types.js';
import type { LatencyUs } from '../results/types.js';

export interface LoadSample {
  startedAt: string;
  durationMs: number;
  requests: number;
  rps: number;
  latencyUs: LatencyUs;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** What to do at the instants the shared measuring window opens and closes (read CPU clocks). */
export interface LoadWindow {
  onOpen?: () => void;
  onClose?: () => void;
}

/**
 * Drives one scenario against one or more services at once with autocannon (in this process)
 * over one shared measuring window of `durationMs`: every target's connections are opened first
 * (a short lead, left out), then responses are counted for all targets from the same instant to
 * the same instant, and every run is stopped together. Two services loaded at once on shared
 * CPUs must be measured over exactly the same time: a side whose load started later or ended
 * later would have the CPUs to itself for that moment (with autocannon's own durations, up to
 * one sampling tick, 50 ms of a 1 s slice). One run did not show the shared window reducing the
 * pair noise measurably (docs/calibration.md); it is kept because it is right by construction.
 *
 * Every response time in the window goes into an HdrHistogram at µs resolution (autocannon's own
 * histogram is in whole milliseconds, too coarse for a fast service whose p99 may be 1.2 ms).
 * Requests per second are counted by us over our own monotonic clock.
 */
export async function runLoads(baseUrls: string[], scenario: ScenarioConfig, durationMs: number, window: LoadWindow = {}): Promise<(LoadSample & { served: number })[]> {
  const leadMs = Math.min(200, Math.max(20, Math.round(durationMs / 20)));
  let counting = false;
  const runs = baseUrls.map((baseUrl) => {
    const run = {
      histogram: hdr.build({
        lowestDiscernibleValue: 1,
        highestTrackableValue: 120_000_000, // 120 s in µs
        numberOfSignificantValueDigits: 3,
        useWebAssembly: false,
      }),
      responses: 0,
      served: 0,
      non2xx: 0,
      instance: autocannon({
        url: `${baseUrl}${scenario.path}`,
        method: scenario.method as autocannon.Request['method'],
        headers: scenario.headers,
        body: scenario.body ?? undefined,
        connections: scenario.connections,
        pipelining: scenario.pipelining,
        // stopped by us when the window closes; this is only a backstop
        duration: (leadMs + durationMs) / 1000 + 30,
        // autocannon checks its stop flag only on its sampling tick (default every 1000 ms):
        // tick often enough that the runs end promptly after the window.
        sampleInt: Math.max(10, Math.min(100, Math.round(durationMs / 20))),
        // a slice must not wait 10 s for a stuck request; a timeout is counted and reported
        timeout: Math.max(2, Math.ceil(durationMs / 1000) * 2),
      }) as unknown as Promise<autocannon.Result> & EventEmitter & { stop(): void }, // without a callback it is both
    };
    run.instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      run.served++;
      if (!counting) return;
      run.responses++;
      if (statusCode < 200 || statusCode >= 300) run.non2xx++;
      run.histogram.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)));
    });
    return run;
  });
  let results: autocannon.Result[];
  let startedAt = '';
  let windowMs = 0;
  try {
    await sleep(leadMs);
    counting = true;
    startedAt = new Date().toISOString();
    const t0 = process.hrtime.bigint();
    window.onOpen?.();
    await sleep(durationMs);
    counting = false;
    windowMs = Number(process.hrtime.bigint() - t0) / 1e6;
    window.onClose?.();
  } finally {
    counting = false;
    for (const run of runs) run.instance.stop();
    results = await Promise.all(runs.map((run) => run.instance));
  }
  return runs.map((run, i) => {
    const { histogram } = run;
    const latencyUs: LatencyUs =
      histogram.totalCount > 0
        ? {
            p50: histogram.getValueAtPercentile(50),
            p90: histogram.getValueAtPercentile(90),
            p99: histogram.getValueAtPercentile(99),
            max: histogram.maxValue,
            mean: Math.round(histogram.mean * 10) / 10,
          }
        : { p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
    histogram.destroy();
    return {
      startedAt,
      durationMs: Math.round(windowMs * 10) / 10,
      requests: run.responses,
      rps: Math.round((run.responses / (windowMs / 1000)) * 10) / 10,
      latencyUs,
      non2xx: run.non2xx,
      errors: results[i]!.errors,
      timeouts: results[i]!.timeouts,
      // every response, the lead and the tail outside the window included
      served: run.served,
    };
  });
}

/** runLoads on one service. */
export async function runLoad(baseUrl: string, scenario: ScenarioConfig, durationMs: number, window: LoadWindow = {}): Promise<LoadSample> {
  const [{ served: _, ...sample }] = await runLoads([baseUrl], scenario, durationMs, window);
  return sample;
}
