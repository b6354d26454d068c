/**
 * Micro-benchmark fixture projects: benchmark files from test/fixtures/bench, and the user's
 * own copy of each library in the project's node_modules (committed, like a vendored install, so
 * the base worktree has it too; nothing is downloaded).
 */
import type { BenchLibrary, BenchRun, Results, Side } from '../../src/results/types.js';
import type { Files } from './repo.js';
import { resultsFromPairs } from './results.js';

/** The files a library needs at run time, with its dependencies (benchmark.js uses lodash and platform). */
const LIBRARY_FILES: Record<'benchmark' | 'tinybench' | 'mitata', string[]> = {
  benchmark: [
    'benchmark/package.json',
    'benchmark/benchmark.js',
    'lodash/package.json',
    'lodash/lodash.js',
    'platform/package.json',
    'platform/platform.js',
  ],
  tinybench: ['tinybench/package.json', 'tinybench/dist/index.js'],
  mitata: ['mitata/package.json', 'mitata/src/main.mjs', 'mitata/src/lib.mjs'],
};

/** node_modules/<library> copied from perfgate's own devDependencies into the fixture project. */
export function libraryFiles(...libraries: (keyof typeof LIBRARY_FILES)[]): Files {
  const files: Files = {};
  for (const library of libraries) {
    for (const path of LIBRARY_FILES[library]) files[`node_modules/${path}`] = { copy: `../../node_modules/${path}` };
  }
  return files;
}

/** Benchmark files from test/fixtures/bench, under bench/, with the work helper they share. */
export function benchFiles(...names: string[]): Files {
  const files: Files = { 'bench/work.cjs': { copy: 'bench/work.cjs' } };
  for (const name of names) files[`bench/${name}`] = { copy: `bench/${name}` };
  return files;
}

/** bench/work.json: how much work each benchmark name does on one side (and switches some fixtures read). */
export function workFile(work: Record<string, number | boolean>): Files {
  return { 'bench/work.json': JSON.stringify(work) };
}

/* ---------- synthetic micro-benchmark results, for the gate and report tests ---------- */

/** One benchmark in one process: ops/s, or an error message (it threw). */
export interface FakeBenchmark {
  name: string;
  suite?: string | null;
  ops: number | string;
  library?: BenchLibrary;
}

/** A process of one file on one side; `error` makes it a failed process (its benchmarks are ignored). */
export function benchRun(round: number, file: string, side: Side, benchmarks: FakeBenchmark[], error: string | null = null): BenchRun {
  const seen = new Map<string, number>();
  return {
    round,
    file,
    side,
    startedAt: '2026-11-22T10:00:00.000Z',
    durationMs: 1200,
    exitCode: error === null ? 0 : 1,
    signal: null,
    timedOut: false,
    error,
    benchmarks: benchmarks.map((b) => {
      const key = JSON.stringify([b.suite ?? null, b.name]);
      const occurrence = (seen.get(key) ?? 0) + 1;
      seen.set(key, occurrence);
      const failed = typeof b.ops === 'string';
      return {
        library: b.library ?? 'benchmark',
        name: b.name,
        suite: b.suite ?? null,
        occurrence,
        opsPerSec: failed ? null : (b.ops as number),
        rme: failed ? null : 1.5,
        sampleCount: failed ? 0 : 3,
        samplesNs: failed ? [] : [1e9 / (b.ops as number), 1e9 / (b.ops as number), 1e9 / (b.ops as number)],
        stats: null,
        error: failed ? (b.ops as string) : null,
      };
    }),
    libraries: [{ name: 'benchmark', version: '2.1.4', path: '/repo/node_modules/benchmark/benchmark.js', unsupported: null }],
    logs: { stdout: `/out/logs/benchmarks/${side}-round${round + 1}.out.log`, stderr: `/out/logs/benchmarks/${side}-round${round + 1}.err.log` },
  };
}

/** Per-round multiplicative wobble (±3%), so intervals have a width; head uses a shifted copy. */
export const WOBBLE = [0, 0.021, -0.013, 0.03, -0.027, 0.008, -0.004, 0.017, -0.022, 0.011];

/**
 * Rounds of one file on both sides: `benchmarks(side, round)` gives each process's benchmarks.
 * Base runs first in even rounds, head in odd ones.
 */
export function benchRounds(rounds: number, file: string, benchmarks: (side: Side, round: number) => FakeBenchmark[]): BenchRun[] {
  return Array.from({ length: rounds }, (_, round) => {
    const order: Side[] = round % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    return order.map((side) => benchRun(round, file, side, benchmarks(side, round)));
  }).flat();
}

/** Results with micro-benchmarks (and, when `withScenario`, one HTTP scenario measured as A/A). */
export function benchResults(runs: BenchRun[], document: Record<string, unknown> = {}, withScenario = false): Results {
  const files = (side: Side) => [...new Set(runs.filter((r) => r.side === side).map((r) => r.file))].sort();
  const results = resultsFromPairs(
    withScenario ? Array.from({ length: 20 }, (_, i): [number, number] => [10_000 * (1 + WOBBLE[i % 10]!), 10_000 * (1 + WOBBLE[(i + 3) % 10]!)]) : [],
    { benchmarks: 'bench/*.js', ...document },
  );
  if (!withScenario) {
    results.scenarios = [];
    results.config.scenarios = [];
  }
  results.benchmarks = {
    files: { base: files('base'), head: files('head') },
    rounds: Math.max(0, ...runs.map((r) => r.round + 1)),
    runs,
    stoppedEarly: null,
  };
  return results;
}
