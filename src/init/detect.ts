/**
 * What `perfgate init` can tell about a repository without running anything: the start command,
 * the package manager a run would use, the databases its drivers talk to, benchmark suites, the
 * Node version file. Reads files, and asks git which lockfiles it ignores.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type BenchmarkSuite, findBenchmarkSuites, proposeBenchmarkGlobs } from '../engine/phases/bench/discover.js';
import { checkoutPackageManager, type PackageManager } from '../engine/workspace/trees.js';

export interface StartCommand {
  command: string;
  /** Where it came from, for the config's comment and the summary. */
  from: string;
  /** True when inferred from a file's presence (package.json main, server.js): worth a probe. */
  guessed: boolean;
}

/** A database server the workflow can run as a service container. */
export type DatabaseKind = 'postgres' | 'mysql' | 'mongodb' | 'redis';

export const DATABASE_NAMES: Record<DatabaseKind, string> = { postgres: 'PostgreSQL', mysql: 'MySQL', mongodb: 'MongoDB', redis: 'Redis' };

/** The drivers init knows, by the server they talk to. */
const DRIVERS: Record<DatabaseKind, readonly string[]> = {
  postgres: ['pg', 'pg-promise', 'postgres', 'pg-pool', 'pg-native', 'slonik', '@databases/pg'],
  mysql: ['mysql', 'mysql2', 'mariadb', '@databases/mysql'],
  mongodb: ['mongodb', 'mongoose'],
  redis: ['redis', 'ioredis', '@redis/client', 'bullmq', 'bull'],
};
/** Libraries that talk to a database through a driver of their own choosing: the server is not known from them alone. */
const ORMS = ['knex', 'sequelize', 'typeorm', '@prisma/client', 'drizzle-orm', 'objection', '@mikro-orm/core', 'kysely'];

export interface DatabaseFacts {
  /** The servers the drivers in package.json talk to, each with the drivers that said so. */
  servers: { kind: DatabaseKind; drivers: string[] }[];
  /** ORMs and query builders in package.json whose server no driver names. */
  unknown: string[];
}

export interface ProjectFacts {
  /** As a run finds it in a checkout: a lockfile git ignores is not there. */
  packageManager: PackageManager | null;
  /** Lockfiles in the directory that git ignores, so a run installs without them. */
  ignoredLockfiles: string[];
  databases: DatabaseFacts;
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

interface PackageJson {
  scripts?: Record<string, unknown>;
  main?: unknown;
  dependencies?: Record<string, unknown>;
  optionalDependencies?: Record<string, unknown>;
}

function readPackageJson(dir: string): PackageJson | null {
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

/**
 * The database servers package.json's dependencies talk to (the service's own dependencies: a
 * driver among devDependencies is most often for tests).
 */
export function detectDatabases(dir: string): DatabaseFacts {
  const pkg = readPackageJson(dir);
  const names = new Set(Object.keys({ ...pkg?.dependencies, ...pkg?.optionalDependencies }));
  const servers = (Object.entries(DRIVERS) as [DatabaseKind, readonly string[]][])
    .map(([kind, drivers]) => ({ kind, drivers: drivers.filter((d) => names.has(d)) }))
    .filter((s) => s.drivers.length > 0);
  // an ORM beside a known driver uses that driver's server; alone, the server is not known
  const unknown = servers.some((s) => s.kind !== 'redis') ? [] : ORMS.filter((o) => names.has(o));
  return { servers, unknown };
}

/** `root`: the repository; `dir`: the service's directory in it. */
export async function detectProject(root: string, dir: string): Promise<ProjectFacts> {
  const { packageManager, ignored } = await checkoutPackageManager(dir);
  const suites = findBenchmarkSuites(dir);
  const versionFile = [dir, root].flatMap((d) => ['.nvmrc', '.node-version'].map((f) => join(d, f))).find((p) => existsSync(p));
  const schema = [dir, root].map((d) => join(d, 'node_modules', 'perfgate', 'perfgate.schema.json')).find((p) => existsSync(p));
  return {
    packageManager,
    ignoredLockfiles: ignored,
    databases: detectDatabases(dir),
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
