import { resolveConfig } from '../../src/config/load.js';
import type { Pair, Results, Slice } from '../../src/results/types.js';

/** A slice with the given throughput; latency and CPU scale with 1/rps (a CPU-bound service). */
export function slice(side: 'base' | 'head', rps: number): Slice {
  const us = 1e6 / rps;
  return {
    side,
    startedAt: '2026-11-22T10:00:00.000Z',
    durationMs: 1000,
    requests: Math.round(rps),
    rps,
    latencyUs: { p50: 10 * us, p90: 15 * us, p99: 30 * us, max: 60 * us, mean: 11 * us },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    cpuSeconds: 0.95,
  };
}

/**
 * Results of one scenario from paired throughputs. Each pair comes from its own start pair
 * unless `pairsPerStart` groups consecutive pairs into one start (the verdicts count starts).
 */
export function resultsFromPairs(pairs: [number, number][], document: Record<string, unknown> = {}, pairsPerStart = 1): Results {
  const config = resolveConfig({
    document: { service: { start: 'node server.js' }, scenarios: ['GET /hello'], load: { pairs: Math.max(6, pairs.length) }, ...document },
  });
  return {
    schema: 'perfgate/results',
    version: 1,
    tool: { name: 'perfgate', version: 'test' },
    startedAt: '2026-11-22T10:00:00.000Z',
    finishedAt: '2026-11-22T10:02:00.000Z',
    status: 'complete',
    error: null,
    seed: 1,
    config,
    environment: { cpuModel: 'Test CPU', cpus: 2, nodeVersion: 'v24.11.1', os: 'linux 6', arch: 'x64', totalMemoryMb: 8000, nodeFlags: [] },
    sides: { base: { ref: 'main', sha: 'a'.repeat(40), dirty: false }, head: { ref: 'pr', sha: 'b'.repeat(40), dirty: false } },
    scenarios: [
      {
        name: 'GET /hello',
        method: 'GET',
        path: '/hello',
        pairs: pairs.map(([base, head], index): Pair => ({
          block: index < pairs.length / 2 ? 0 : 1,
          start: Math.floor(index / pairsPerStart),
          index,
          order: index % 2 ? ['base', 'head'] : ['head', 'base'],
          base: slice('base', base),
          head: slice('head', head),
        })),
      },
    ],
    warnings: [],
  };
}
