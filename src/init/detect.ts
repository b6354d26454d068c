/**
 * What `perfgate init` can tell about a repository without running anything: the start command,
 * the package manager, benchmark suites, the Node version file. Reads files only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type BenchmarkSuite, findBenchmarkSuites, proposeBenchmarkGlobs } from '../engine/phases/bench/discover.js';
import { detectPackageManager, type PackageManager } from '../engine/workspace/trees.js';

export interface StartCommand {
  command: string;
  /** Where it came from, for the config's comment and the summary. */
  from: string;
  /** True when inferred from a file's presence (package.json main, server.js): worth a probe. */
  guessed: boolean;
}

export interface ProjectFacts {
  packageManager: PackageManager | null;
  start: StartCommand | null;
  suites: BenchmarkSuite[];
  /** Globs that match exactly the suites (relative to the service directory); empty: none. */
  benchmarkGlobs: string[];
  /** .nvmrc or .node-version, relative to the repository root. */
  nodeVersionFile: string | null;
  /** perfgate.schema.json of an installed perfgate, relative to the repository root. */
  schemaPath: string | null;
}

/** Entry files tried, in order, when package.json has no start script. */
const ENTRY_GUESSES = ['server.js', 'index.js', 'app.js', 'server.mjs', 'index.mjs', 'app.mjs'];

function readPackageJson(dir: string): { scripts?: Record<string, unknown>; main?: unknown } | null {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return typeof pkg === 'object' && pkg !== null ? pkg : null;
  } catch {
    return null;
  }
}

/**
 * The command that starts the service: package.json's start script run through the package
 * manager (so node_modules/.bin is on the PATH, as in `npm start`), else `node` on package.json's
 * main or a usual entry file.
 */
export function detectStart(dir: string, packageManager: PackageManager | null): StartCommand | null {
  const pkg = readPackageJson(dir);
  const script = pkg?.scripts?.start;
  if (typeof script === 'string' && script.trim()) {
    return { command: `${packageManager?.name ?? 'npm'} start`, from: `package.json scripts.start: ${script.trim()}`, guessed: false };
  }
  if (typeof pkg?.main === 'string' && pkg.main.trim() && existsSync(join(dir, pkg.main))) {
    return { command: `node ${pkg.main.trim()}`, from: 'package.json main (no start script)', guessed: true };
  }
  const entry = ENTRY_GUESSES.find((file) => existsSync(join(dir, file)));
  return entry ? { command: `node ${entry}`, from: `${entry} exists (no start script)`, guessed: true } : null;
}

function posix(path: string): string {
  return path.split('\\').join('/');
}

/** `root`: the repository; `dir`: the service's directory in it. */
export function detectProject(root: string, dir: string): ProjectFacts {
  const packageManager = detectPackageManager(dir);
  const suites = findBenchmarkSuites(dir);
  const versionFile = [dir, root].flatMap((d) => ['.nvmrc', '.node-version'].map((f) => join(d, f))).find((p) => existsSync(p));
  const schema = [dir, root].map((d) => join(d, 'node_modules', 'perfgate', 'perfgate.schema.json')).find((p) => existsSync(p));
  return {
    packageManager,
    start: detectStart(dir, packageManager),
    suites,
    benchmarkGlobs: proposeBenchmarkGlobs(
      dir,
      suites.map((s) => s.path),
    ),
    nodeVersionFile: versionFile ? posix(relative(root, versionFile)) : null,
    schemaPath: schema ? `./${posix(relative(root, schema))}` : null,
  };
}
