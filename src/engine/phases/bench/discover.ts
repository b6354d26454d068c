/**
 * Which benchmark files each side has, and how Node runs each one. Done right after install and
 * build, before any load, so a configuration problem (no file matches, TypeScript without a
 * loader) stops the run before minutes are spent measuring.
 */
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchmarksConfig, ServiceConfig } from '../../../config/types.js';
import type { BenchLibrary, Side } from '../../../results/types.js';
import { SetupError } from '../../errors.js';
import { serviceDir, type Tree } from '../../workspace/trees.js';
import { BENCH_LIBRARIES } from './capture.js';
import { matchFiles, unsearchedReason } from './glob.js';
import { resolveVitest, VITEST_BENCH_NAME, VITEST_IMPORT, type VitestCopy } from './vitest.js';

/** One benchmark file of one side. */
export interface BenchFile {
  /** Relative to the service directory, posix separators: the file's name in results and reports. */
  path: string;
  absolute: string;
  /** Node options that load the file (the project's TypeScript loader), before perfgate's preload. */
  nodeArgs: string[];
  /** The project's vitest, for a file that imports it: run through `vitest bench`, not node. */
  vitest: VitestCopy | null;
}

export interface DiscoveredBenchmarks {
  /** The service directory of each side: benchmark processes run there. */
  dirs: Record<Side, string>;
  files: Record<Side, BenchFile[]>;
  /** Globs (of several) that match no file on either side: worth a warning, most often a typo. */
  unmatched: string[];
}

const TYPESCRIPT = /\.(?:ts|cts|mts|tsx)$/;

/**
 * TypeScript runs through the project's own tsx (resolved from the file, so a workspace package
 * finds its own), loaded with --import: it handles ESM and CommonJS files alike.
 */
function nodeArgsFor(absolute: string, relative: string, tree: Tree): string[] {
  if (!TYPESCRIPT.test(relative)) return [];
  let loader: string;
  try {
    loader = createRequire(absolute).resolve('tsx');
  } catch {
    throw new SetupError(
      `${relative} (${tree.side}, ${tree.ref}@${tree.sha.slice(0, 7)}) is TypeScript, and perfgate runs TypeScript benchmarks through the project's own loader, tsx, which this project does not have. ` +
        'Add it (npm install --save-dev tsx, and commit the lockfile), or list compiled .js files under benchmarks.',
    );
  }
  return ['--import', pathToFileURL(loader).href];
}

/**
 * The project's vitest for a file that imports it, or null for a file that does not. vitest
 * compiles TypeScript itself, so such a file needs no tsx.
 */
function vitestFor(absolute: string, relative: string, tree: Tree): VitestCopy | null {
  let source: string;
  try {
    source = readFileSync(absolute, 'utf8');
  } catch {
    return null; // unreadable: running it reports why
  }
  if (!VITEST_IMPORT.test(source)) return null;
  const copy = resolveVitest(absolute);
  if (copy) return copy;
  throw new SetupError(
    `${relative} (${tree.side}, ${tree.ref}@${tree.sha.slice(0, 7)}) imports vitest, and perfgate runs vitest bench files with the project's own vitest, which this project does not have installed. ` +
      'Add it (npm install --save-dev vitest, and commit the lockfile), or remove the file from benchmarks.',
  );
}

export function discoverBenchmarks(
  config: BenchmarksConfig,
  service: ServiceConfig,
  trees: Record<Side, Tree>,
): DiscoveredBenchmarks {
  const dirs = { base: serviceDir(trees.base, service), head: serviceDir(trees.head, service) };
  const files = {} as Record<Side, BenchFile[]>;
  for (const side of ['base', 'head'] as Side[]) {
    files[side] = matchFiles(dirs[side], config.files).map((path) => {
      const absolute = join(dirs[side], path);
      const vitest = vitestFor(absolute, path, trees[side]);
      return { path, absolute, nodeArgs: vitest ? [] : nodeArgsFor(absolute, path, trees[side]), vitest };
    });
  }
  const searched = service.cwd === '.' ? 'the repository root' : `service.cwd "${service.cwd}"`;
  if (files.base.length === 0 && files.head.length === 0) {
    const reasons = config.files.flatMap((g) => {
      const why = unsearchedReason(g);
      return why ? [`"${g}": ${why}.`] : [];
    });
    const onlyExclusions = config.files.every((g) => g.startsWith('!'));
    throw new SetupError(
      `No benchmark file matches ${config.files.map((g) => `"${g}"`).join(', ')} in base or head ` +
        `(searched ${searched}, without node_modules and dot-directories). ` +
        (reasons.length ? `${reasons.join(' ')} ` : '') +
        (onlyExclusions ? 'Every glob starts with !, which only excludes; add one that includes files. ' : '') +
        'Check benchmarks in perfgate.yml: globs are relative to service.cwd, e.g. bench/**/*.bench.js (picomatch syntax; see docs/benchmarks.md).',
    );
  }
  return { dirs, files, unmatched: unmatchedGlobs(config.files, dirs) };
}

/** The including globs that, on their own (with the exclusions), match nothing on either side. */
function unmatchedGlobs(globs: readonly string[], dirs: Record<Side, string>): string[] {
  const includes = globs.filter((g) => !g.startsWith('!'));
  if (includes.length < 2) return [];
  const excludes = globs.filter((g) => g.startsWith('!'));
  return includes.filter((g) => matchFiles(dirs.base, [g, ...excludes]).length === 0 && matchFiles(dirs.head, [g, ...excludes]).length === 0);
}

/** A file that loads a benchmark library perfgate reads results from. */
export interface BenchmarkSuite {
  /** Relative to the searched directory, posix separators. */
  path: string;
  library: BenchLibrary;
}

const SOURCE_FILES = '**/*.{js,cjs,mjs,ts,cts,mts}';
/** Files larger than this are bundles or generated code, not suites someone wrote. */
const MAX_SUITE_BYTES = 512 * 1024;
const LIBRARY_IMPORT = new RegExp(
  String.raw`(?:require\s*\(\s*|import\s*\(\s*|from\s+|import\s+)['"](${BENCH_LIBRARIES.join('|')})(?:/[^'"]*)?['"]`,
);

/**
 * The benchmark suites in a directory (`perfgate init`): source files, searched as the
 * `benchmarks` globs are (no node_modules, no dot-directories), that import or require
 * benchmark.js, tinybench or mitata, and vitest bench files (`*.bench.ts` and the like that
 * import vitest).
 */
export function findBenchmarkSuites(dir: string): BenchmarkSuite[] {
  const suites: BenchmarkSuite[] = [];
  for (const path of matchFiles(dir, [SOURCE_FILES])) {
    const absolute = join(dir, path);
    try {
      if (statSync(absolute).size > MAX_SUITE_BYTES) continue;
      const source = readFileSync(absolute, 'utf8');
      const library = LIBRARY_IMPORT.exec(source)?.[1] as BenchLibrary | undefined;
      if (library) suites.push({ path, library });
      // vitest is also every test file's import: only a file named as vitest names bench files is a suite
      else if (VITEST_BENCH_NAME.test(path) && VITEST_IMPORT.test(source)) suites.push({ path, library: 'vitest' });
    } catch {
      // unreadable: not a suite we can propose
    }
  }
  return suites;
}

/**
 * The `benchmarks` globs for a set of files: the shortest of `dir/**\/*.bench.js`-like
 * candidates that matches exactly these files in `dir` (checked with the matcher the run uses),
 * else the files themselves.
 */
export function proposeBenchmarkGlobs(dir: string, paths: readonly string[]): string[] {
  if (paths.length === 0) return [];
  const wanted = [...new Set(paths)].sort();
  const dirs = wanted.map((p) => p.split('/').slice(0, -1));
  const common: string[] = [];
  for (let i = 0; dirs.every((d) => i < d.length && d[i] === dirs[0]![i]); i++) common.push(dirs[0]![i]!);
  const prefix = common.length ? `${common.join('/')}/` : '';
  const names = wanted.map((p) => p.split('/').at(-1)!);
  const exts = [...new Set(names.map((n) => n.slice(n.lastIndexOf('.') + 1)))].sort();
  const extGlob = exts.length === 1 ? exts[0]! : `{${exts.join(',')}}`;
  // the part between the first and the last dot ("a.bench.js" → ".bench"), when all files share it
  const middles = new Set(names.map((n) => n.slice(n.indexOf('.'), n.lastIndexOf('.'))));
  const middle = middles.size === 1 ? [...middles][0]! : '';
  const candidates = [...(middle ? [`${prefix}**/*${middle}.${extGlob}`] : []), `${prefix}**/*.${extGlob}`];
  const same = (found: string[]) => found.length === wanted.length && found.every((f, i) => f === wanted[i]);
  return [candidates.find((glob) => same(matchFiles(dir, [glob]))) ?? wanted].flat();
}
