/**
 * Dependency attribution's file system side: base's and head's lockfiles, and the package each
 * profiled dependency file belongs to (src/profile/packages.ts does the rest). npm's
 * package-lock.json and npm-shrinkwrap.json are read as the JSON they are, pnpm-lock.yaml with
 * the `yaml` package perfgate already bundles (pnpm's own reader needs Node 22 and a dozen of
 * pnpm's packages), yarn.lock, yarn 1's and yarn 2+'s, with yarn's own parser
 * (@yarnpkg/parsers' parseSyml); src/profile/lockfile-formats.ts says more. A lockfile that
 * cannot be read is a warning: the verdicts never depend on it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { globSync } from 'tinyglobby';
import type { ServiceConfig } from '../../config/types.js';
import { type Locked, lockedPackages, lockfileFormat } from '../../profile/lockfile-formats.js';
import { diffLockfiles, type PackageResolver } from '../../profile/packages.js';
import type { DependencyChanges, RunWarning, Side } from '../../results/types.js';
import { serviceDir, type Tree } from './trees.js';

/**
 * With more than one in a directory, the one the install uses (detectPackageManager in
 * trees.ts picks pnpm, then yarn, then npm), npm's shrinkwrap before its package-lock as npm
 * reads them.
 */
const LOCKFILES = ['pnpm-lock.yaml', 'yarn.lock', 'npm-shrinkwrap.json', 'package-lock.json'];

/** The lockfile nearest the service directory, up to the tree's root (a workspace keeps it at the top); relative to the root. */
export function findLockfile(tree: Tree, service: ServiceConfig): string | null {
  let dir = serviceDir(tree, service);
  for (;;) {
    for (const name of LOCKFILES) if (existsSync(join(dir, name))) return relative(tree.root, join(dir, name));
    const rel = relative(tree.root, dir);
    if (rel === '' || rel.startsWith('..')) return null;
    dir = dirname(dir);
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The parsed package.json files of the project whose lockfile is in `dir`: its own and its
 * workspaces' (the `workspaces` globs, yarn's and npm's). yarn.lock does not record which
 * packages the project asks for directly; these do.
 */
export function projectManifests(dir: string): unknown[] {
  const read = (path: string): unknown => {
    const text = readText(path);
    try {
      return text === null ? null : JSON.parse(text);
    } catch {
      return null;
    }
  };
  const root = read(join(dir, 'package.json')) as { workspaces?: unknown } | null;
  if (root === null || typeof root !== 'object') return [];
  const spec = root.workspaces;
  const patterns = Array.isArray(spec) ? spec : spec && typeof spec === 'object' && Array.isArray((spec as { packages?: unknown }).packages) ? (spec as { packages: unknown[] }).packages : [];
  const globs = patterns.filter((p): p is string => typeof p === 'string').map((p) => `${p.replace(/\/+$/, '')}/package.json`);
  const workspaces = globs.length === 0 ? [] : globSync(globs, { cwd: dir, ignore: ['**/node_modules/**'] });
  return [root, ...workspaces.sort().map((file) => read(join(dir, file)))].filter((m) => m !== null);
}

/** A side's lockfile, read: its packages, or the reason it could not be. */
function readSide(tree: Tree, lockfile: string, side: Side): Locked[] {
  const label = `${side}'s ${lockfile}`;
  const format = lockfileFormat(lockfile);
  if (format === null) throw new Error(`${label} is not a lockfile perfgate knows`);
  const text = readText(join(tree.root, lockfile));
  if (text === null) throw new Error(`${label} could not be read`);
  const manifests = format === 'yarn' ? projectManifests(dirname(join(tree.root, lockfile))) : undefined;
  return lockedPackages({ label, format, text, manifests });
}

/**
 * The packages whose locked version the pull request changed; null when there is no lockfile,
 * or it did not change. A lockfile that cannot be read gives a warning instead. Each side's is
 * read in its own format, so a pull request that moves to another package manager still lists
 * what moved.
 */
export function dependencyChanges(trees: Record<Side, Tree>, services: Record<Side, ServiceConfig>): { dependencies: DependencyChanges | null; warning: RunWarning | null } {
  const none = { dependencies: null, warning: null };
  const lockfile = findLockfile(trees.head, services.head);
  if (lockfile === null) return none;
  const baseLockfile = existsSync(join(trees.base.root, lockfile)) ? lockfile : findLockfile(trees.base, services.base);
  const headText = readText(join(trees.head.root, lockfile));
  const baseText = baseLockfile === null ? null : readText(join(trees.base.root, baseLockfile));
  if (headText === baseText) return none;
  try {
    const head = readSide(trees.head, lockfile, 'head');
    // a lockfile new in head: everything it locks is new
    const base = baseLockfile === null ? [] : readSide(trees.base, baseLockfile, 'base');
    const changed = diffLockfiles(base, head);
    return { dependencies: { lockfile, changed }, warning: null };
  } catch (e) {
    return {
      dependencies: null,
      warning: {
        code: 'lockfile-not-read',
        message: `The pull request changes ${lockfile}, but ${(e as Error).message}, so CPU time is not attributed to the packages it upgraded (the verdicts do not depend on it).`,
      },
    };
  }
}

/**
 * The package a dependency frame's file belongs to: the nearest package.json with a name and a
 * version, up to the package's own folder (node_modules/<name> or node_modules/@scope/<name>),
 * which is also where pnpm's store puts it (.pnpm/<name>@<version>/node_modules/<name>). Nested
 * package.json files without them (a "type": "module" marker in lib/) are passed over. `root`:
 * the tree's repository root, which the frames' relative paths start from.
 */
export function packageResolver(root: string): PackageResolver {
  const byDir = new Map<string, { name: string; version: string | null } | null>();
  const lookUp = (dir: string): { name: string; version: string | null } | null => {
    if (byDir.has(dir)) return byDir.get(dir)!;
    let found: { name: string; version: string | null } | null = null;
    const text = readText(join(dir, 'package.json'));
    let pkg: { name?: unknown; version?: unknown } | null = null;
    try {
      pkg = text === null ? null : JSON.parse(text);
    } catch {
      pkg = null;
    }
    const parent = dirname(dir);
    const isPackageFolder = basename(parent) === 'node_modules' || (basename(parent).startsWith('@') && basename(dirname(parent)) === 'node_modules');
    if (pkg && typeof pkg.name === 'string' && (typeof pkg.version === 'string' || isPackageFolder)) {
      found = { name: pkg.name, version: typeof pkg.version === 'string' ? pkg.version : null };
    } else if (!isPackageFolder && parent !== dir && dir.includes('/node_modules/')) {
      found = lookUp(parent);
    }
    byDir.set(dir, found);
    return found;
  };
  return (fn) => {
    if (fn.category !== 'dependency' || fn.file === '') return null;
    const path = isAbsolute(fn.file) ? fn.file : join(root, fn.file);
    if (!path.includes('/node_modules/')) return fn.package === null ? null : { name: fn.package, version: null };
    return lookUp(dirname(path)) ?? (fn.package === null ? null : { name: fn.package, version: null });
  };
}
