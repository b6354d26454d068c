/**
 * What the benchmark preload (src/preload/bench-preload.cjs) wrote for one process: one JSON
 * line per event. The process runs the PR's code, which could write there too, so every field
 * is checked and coerced; a line that is not a record is skipped.
 */
import { readFileSync } from 'node:fs';
import type { BenchLibrary, BenchLibraryCopy, BenchmarkRecord } from '../../../results/types.js';

export interface Capture {
  benchmarks: BenchmarkRecord[];
  libraries: BenchLibraryCopy[];
}

/** The benchmark libraries the preload hooks (src/preload/bench-preload.cjs). */
export const BENCH_LIBRARIES: readonly BenchLibrary[] = ['benchmark', 'tinybench', 'mitata'];
/** The longest name or message kept from a capture (it is written by the PR's code). */
export const MAX_TEXT = 2000;

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value.slice(0, MAX_TEXT) : fallback;
}

export function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function parseCapture(content: string): Capture {
  const capture: Capture = { benchmarks: [], libraries: [] };
  const occurrences = new Map<string, number>();
  for (const line of content.split('\n')) {
    if (!line.trim()) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record !== 'object' || record === null) continue;
    const library = record['library'] as BenchLibrary;
    if (!BENCH_LIBRARIES.includes(library)) continue;
    switch (record['type']) {
      case 'library':
      case 'unsupported':
        capture.libraries.push({
          name: library,
          version: text(record['version'], 'unknown'),
          path: text(record['path']),
          unsupported: record['type'] === 'unsupported' ? text(record['message'], 'unsupported version') : null,
        });
        break;
      case 'result':
      case 'error': {
        const name = text(record['name'], '(unnamed)');
        const suite = typeof record['suite'] === 'string' ? text(record['suite']) : null;
        // The same suite and name twice in one process: kept apart by their order.
        const key = JSON.stringify([suite, name]);
        const occurrence = (occurrences.get(key) ?? 0) + 1;
        occurrences.set(key, occurrence);
        const failed = record['type'] === 'error';
        const ops = finiteOrNull(record['opsPerSec']);
        const samples = Array.isArray(record['samplesNs']) ? record['samplesNs'] : [];
        capture.benchmarks.push({
          library,
          name,
          suite,
          occurrence,
          opsPerSec: failed || ops === null || ops <= 0 ? null : ops,
          rme: finiteOrNull(record['rme']),
          sampleCount: finiteOrNull(record['sampleCount']) ?? 0,
          samplesNs: samples.filter((s): s is number => typeof s === 'number' && Number.isFinite(s)).slice(0, 1000),
          stats:
            typeof record['stats'] === 'object' && record['stats'] !== null && !Array.isArray(record['stats'])
              ? (record['stats'] as Record<string, unknown>)
              : null,
          error: failed ? text(record['message'], 'the benchmark failed') : ops === null || ops <= 0 ? 'no ops/s was measured' : null,
        });
        break;
      }
    }
  }
  return capture;
}

export function readCapture(file: string): Capture {
  let content = '';
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    // the process never started or wrote nothing
  }
  return parseCapture(content);
}
