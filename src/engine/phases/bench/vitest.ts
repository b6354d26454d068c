/**
 * vitest bench files: run with the project's own vitest (`vitest bench --run --outputJson`), one
 * process per file per side per round like any other benchmark file, and read from the JSON
 * report vitest writes. vitest runs its benchmarks in a worker with tinybench bundled inside it,
 * out of reach of perfgate's preload, so its report is the one place the numbers can be read.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { BenchLibraryCopy, BenchmarkRecord } from '../../../results/types.js';
import { type Capture, finiteOrNull, MAX_TEXT } from './capture.js';

/** The project's vitest, as one benchmark file resolves it. */
export interface VitestCopy {
  version: string;
  /** vitest's package directory. */
  path: string;
  /** Its command-line entry (package.json's bin), run with node. */
  bin: string;
}

/** A source file that imports or requires vitest (a bench file names `bench` from it). */
export const VITEST_IMPORT = /(?:require\s*\(\s*|import\s*\(\s*|from\s+|import\s+)['"]vitest['"]/;
/** The file names vitest's `benchmark.include` matches by default. */
export const VITEST_BENCH_NAME = /\.(?:bench|benchmark)\.[cm]?[jt]sx?$/;

/** The vitest `absolute` would import, or null when the project has none. */
export function resolveVitest(absolute: string): VitestCopy | null {
  let manifest: string;
  try {
    manifest = createRequire(absolute).resolve('vitest/package.json');
  } catch {
    return null;
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string; bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.['vitest'] ?? 'vitest.mjs');
  return { version: pkg.version ?? 'unknown', path: dirname(manifest), bin: join(dirname(manifest), bin) };
}

/**
 * The arguments after `node` that run one file's benchmarks once and write the report to
 * `report`. Without its cache, vitest writes nothing into the tree: base's tree is sealed after
 * its install, and vitest's results cache (node_modules/.vite/vitest) would break the seal.
 */
export function vitestArgs(copy: VitestCopy, relative: string, report: string): string[] {
  return [copy.bin, 'bench', '--run', '--no-cache', '--outputJson', report, relative];
}

interface VitestBenchmark {
  name?: unknown;
  hz?: unknown;
  rme?: unknown;
  sampleCount?: unknown;
  [stat: string]: unknown;
}

interface VitestReport {
  files?: { filepath?: unknown; groups?: { fullName?: unknown; benchmarks?: VitestBenchmark[] }[] }[];
}


/**
 * The suite of a group: its full name without the file's own prefix ("bench/a.bench.ts > parse"
 * → "parse"); null for the benchmarks outside any describe(), whose group is the file itself.
 */
function suiteOf(fullName: string, relative: string): string | null {
  const prefix = `${relative} > `;
  if (fullName.startsWith(prefix)) return fullName.slice(prefix.length).slice(0, MAX_TEXT);
  return fullName === relative ? null : fullName.slice(0, MAX_TEXT);
}

/**
 * One process's numbers from vitest's JSON report: the benchmarks of the file it was asked to
 * run (vitest's file filter matches by substring, so other files may be in the report too).
 * The report is written by the PR's code's process, so every field is checked.
 */
export function parseVitestReport(content: string, absolute: string, relative: string, copy: VitestCopy): Capture {
  const library: BenchLibraryCopy = { name: 'vitest', version: copy.version, path: copy.path, unsupported: null };
  let report: VitestReport;
  try {
    report = JSON.parse(content) as VitestReport;
  } catch {
    return { benchmarks: [], libraries: [library] };
  }
  const file = (Array.isArray(report?.files) ? report.files : []).find((f) => typeof f?.filepath === 'string' && resolve(f.filepath) === absolute);
  const benchmarks: BenchmarkRecord[] = [];
  const occurrences = new Map<string, number>();
  for (const group of Array.isArray(file?.groups) ? file.groups : []) {
    const suite = typeof group?.fullName === 'string' ? suiteOf(group.fullName, relative) : null;
    for (const bench of Array.isArray(group?.benchmarks) ? group.benchmarks : []) {
      const name = typeof bench?.name === 'string' ? bench.name.slice(0, MAX_TEXT) : '(unnamed)';
      const key = JSON.stringify([suite, name]);
      const occurrence = (occurrences.get(key) ?? 0) + 1;
      occurrences.set(key, occurrence);
      const ops = finiteOrNull(bench.hz);
      const { samples: _samples, ...stats } = bench;
      benchmarks.push({
        library: 'vitest',
        name,
        suite,
        occurrence,
        opsPerSec: ops !== null && ops > 0 ? ops : null,
        rme: finiteOrNull(bench.rme),
        sampleCount: Math.max(0, Math.floor(finiteOrNull(bench.sampleCount) ?? 0)),
        // vitest's report leaves its samples out (`samples: []`); the mean per process is what is compared.
        samplesNs: [],
        stats,
        // a bench() that throws is in the report with no hz, and vitest still exits 0
        error: ops !== null && ops > 0 ? null : "vitest measured no ops/s for it (a bench() that throws has none; vitest's own output, in the process log, says why)",
      });
    }
  }
  return { benchmarks, libraries: [library] };
}

export function readVitestReport(report: string, absolute: string, relative: string, copy: VitestCopy): Capture {
  let content = '';
  try {
    content = readFileSync(report, 'utf8');
  } catch {
    // vitest failed before writing its report: the exit code and stderr say why
  }
  return parseVitestReport(content, absolute, relative, copy);
}
