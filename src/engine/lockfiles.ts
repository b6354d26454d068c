/**
 * Dependency attribution's file system side: base's and head's lockfiles, and the package each
 * profiled dependency file belongs to (src/profile/packages.ts does the rest). npm's
 * package-lock.json (and npm-shrinkwrap.json) is read as the JSON it is; pnpm-lock.yaml and
 * yarn.lock are not read yet, and a change to one is said in a warning. A lockfile that cannot
 * be read is a warning too: the verdicts never depend on it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import type { ServiceConfig } from '../config/types.js';
import { diffLockfiles, type PackageResolver } from '../profile/packages.js';
import type { DependencyChanges, RunWarning, Side } from '../results/types.js';
import { serviceDir, type Tree } from './workspace.js';

/** In the order npm, then the others, would use them in one directory. */
const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock'];

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
 * The packages whose locked version the pull request changed; null when there is no lockfile,
 * or it did not change. A lockfile perfgate does not read, or cannot, gives a warning instead.
 */
export function dependencyChanges(trees: Record<Side, Tree>, services: Record<Side, ServiceConfig>): { dependencies: DependencyChanges | null; warning: RunWarning | null } {
  const none = { dependencies: null, warning: null };
  const lockfile = findLockfile(trees.head, services.head);
  if (lockfile === null) return none;
  const baseLockfile = existsSync(join(trees.base.root, lockfile)) ? lockfile : findLockfile(trees.base, services.base);
  const headText = readText(join(trees.head.root, lockfile));
  const baseText = baseLockfile === null ? null : readText(join(trees.base.root, baseLockfile));
  if (headText === baseText) return none;
  const warning = (why: string): RunWarning => ({
    code: 'lockfile-not-read',
    message: `The pull request changes ${lockfile}, but ${why}, so CPU time is not attributed to the packages it upgraded (the verdicts do not depend on it).`,
  });
  if (!lockfile.endsWith('.json')) return { dependencies: null, warning: warning(`perfgate reads npm's package-lock.json only, not ${basename(lockfile)}`) };
  try {
    if (headText === null) throw new Error(`${lockfile} could not be read`);
    // a lockfile new in head: everything it locks is new
    const base = baseText === null || !baseLockfile?.endsWith('.json') ? { lockfileVersion: 3, packages: {} } : JSON.parse(baseText);
    const changed = diffLockfiles(base, JSON.parse(headText), { base: `base's ${baseLockfile ?? lockfile}`, head: `head's ${lockfile}` });
    return { dependencies: { lockfile, changed }, warning: null };
  } catch (e) {
    return { dependencies: null, warning: warning((e as Error).message) };
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
