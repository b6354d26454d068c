/**
 * Which benchmark files each side has, and how Node runs each one. Done right after install and
 * build, before any load, so a configuration problem (no file matches, TypeScript without a
 * loader) stops the run before minutes are spent measuring.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchmarksConfig, ServiceConfig } from '../../config/types.js';
import type { Side } from '../../results/types.js';
import { SetupError } from '../errors.js';
import { serviceDir, type Tree } from '../workspace.js';
import { matchFiles, unsearchedReason } from './glob.js';

/** One benchmark file of one side. */
export interface BenchFile {
  /** Relative to the service directory, posix separators: the file's name in results and reports. */
  path: string;
  absolute: string;
  /** Node options that load the file (the project's TypeScript loader), before perfgate's preload. */
  nodeArgs: string[];
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
      return { path, absolute, nodeArgs: nodeArgsFor(absolute, path, trees[side]) };
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
