/**
 * The seam between the engine and the ways load is generated. Every phase that sends load (the
 * timed pairs, their warm-ups, the capacity probe of a `rate: N%` scenario, the profiles) opens
 * a `LoadRun` here and counts windows on it; the scenario alone decides which generator runs:
 *
 * - closed loop (closed.ts, autocannon): each connection sends its next request when the
 *   previous one is answered, so the service sets the pace and throughput is what is compared;
 * - fixed rate (fixed-rate.ts): requests leave on a schedule whatever the service does, and
 *   each latency counts from the request's intended send time, so a stall delays every request
 *   that was due during it (no coordinated omission).
 *
 * Tests and callers that need neither pass their own `LoadGenerator`.
 */
import type { ScenarioConfig } from '../../config/types.js';
import { ClosedLoopLoad } from './closed.js';
import { FixedRateLoad } from './fixed-rate.js';
import type { LoadGenerator, LoadSample, LoadWindow, WindowSample } from './window.js';

export type { LoadGenerator, LoadOptions, LoadRun, LoadSample, LoadWindow, WindowSample } from './window.js';

/** The generator a scenario asks for: fixed rate when it has a rate, else closed loop. */
export const openLoad: LoadGenerator = (baseUrls, scenario, options) => {
  if (!scenario.rate) return ClosedLoopLoad.open(baseUrls, scenario, options);
  const perSecond = options.ratePerSecond ?? ('perSecond' in scenario.rate ? scenario.rate.perSecond : undefined);
  if (!perSecond) throw new Error(`openLoad: scenario "${scenario.name}" has a rate relative to capacity that was not resolved`);
  return FixedRateLoad.open(baseUrls, scenario, { ...options, ratePerSecond: perSecond });
};

/** One window of load on one or more services at once, on load opened for it and closed after it. */
export async function runLoads(
  baseUrls: string[],
  scenario: ScenarioConfig,
  durationMs: number,
  window: LoadWindow = {},
  options: { ratePerSecond?: number; generator?: LoadGenerator } = {},
): Promise<WindowSample[]> {
  const open = options.generator ?? openLoad;
  const run = await open(baseUrls, scenario, {
    maxMs: durationMs,
    sliceMs: durationMs,
    ...(options.ratePerSecond !== undefined && { ratePerSecond: options.ratePerSecond }),
  });
  try {
    return await run.measure(durationMs, window);
  } finally {
    await run.close();
  }
}

/** runLoads on one service. */
export async function runLoad(
  baseUrl: string,
  scenario: ScenarioConfig,
  durationMs: number,
  options: { ratePerSecond?: number; generator?: LoadGenerator } = {},
): Promise<LoadSample> {
  const [{ served: _, ...sample }] = await runLoads([baseUrl], scenario, durationMs, {}, options);
  return sample;
}

