import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
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

/**
 * Drives one scenario against one service for `durationMs` with autocannon (in this
 * process) and records every response time into an HdrHistogram at µs resolution:
 * autocannon's own latency histogram is in whole milliseconds, too coarse for a fast
 * service where p99 may be 1.2 ms. Requests per second are counted by us over our own
 * monotonic clock, not taken from autocannon's rounded duration.
 */
export async function runLoad(baseUrl: string, scenario: ScenarioConfig, durationMs: number): Promise<LoadSample> {
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000, // 120 s in µs
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
  let responses = 0;
  let non2xx = 0;
  const startedAt = new Date().toISOString();
  const t0 = process.hrtime.bigint();
  const instance = autocannon({
    url: `${baseUrl}${scenario.path}`,
    method: scenario.method as autocannon.Request['method'],
    headers: scenario.headers,
    body: scenario.body ?? undefined,
    connections: scenario.connections,
    pipelining: scenario.pipelining,
    duration: durationMs / 1000,
    // autocannon checks its stop flag only on its sampling tick (default every 1000 ms), so
    // a 300 ms slice would silently last a whole second: tick often enough to stop on time.
    sampleInt: Math.max(10, Math.min(100, Math.round(durationMs / 20))),
    // a slice must not wait 10 s for a stuck request; a timeout is counted and reported
    timeout: Math.max(2, Math.ceil(durationMs / 1000) * 2),
  }) as unknown as Promise<autocannon.Result> & EventEmitter; // without a callback it is both
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    responses++;
    if (statusCode < 200 || statusCode >= 300) non2xx++;
    histogram.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)));
  });
  const result = await instance;
  const durationMs_ = Number(process.hrtime.bigint() - t0) / 1e6;
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
    durationMs: Math.round(durationMs_ * 10) / 10,
    requests: responses,
    rps: Math.round((responses / (durationMs_ / 1000)) * 10) / 10,
    latencyUs,
    non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
