/**
 * The versions each side actually installed, read from its node_modules: each package folder's
 * own package.json. A pull request that pins another version in package.json with no lockfile
 * changes no lockfile, yet the installs differ; only the installed trees say by how much.
 * npm, yarn 1 and pnpm (whose node_modules/<name> links into its store) all leave a folder per
 * package with its package.json.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ServiceConfig } from '../../config/types.js';
import type { Locked } from '../../profile/lockfile-formats.js';
import { diffLockfiles } from '../../profile/packages.js';
import type { DependencyChanges, Side } from '../../results/types.js';
import { serviceDir, type Tree } from './trees.js';

/** How deep nested node_modules are read: a conflicting version sits one or two levels down; deeper ones are rare and slow to walk. */
const MAX_DEPTH = 4;

function readJson(path: string): Record<string, unknown> | null {
  try {
    const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The package folders directly in a node_modules folder: `x` and `@scope/x`, without npm's and pnpm's dot folders. */
function packageFolders(nodeModules: string): string[] {
  const names = (dir: string) => {
    try {
      return readdirSync(dir).filter((name) => !name.startsWith('.'));
    } catch {
      return [];
    }
  };
  return names(nodeModules).flatMap((name) => (name.startsWith('@') ? names(join(nodeModules, name)).map((inner) => join(name, inner)) : [name]));
}

/**
 * Every package installed under `nodeModules` (nested ones too, up to MAX_DEPTH), with the
 * version its package.json gives; `direct` when the project's package.json asks for it.
 */
export function installedPackages(nodeModules: string, direct: ReadonlySet<string>): Locked[] {
  const found: Locked[] = [];
  const walk = (dir: string, depth: number) => {
    for (const folder of packageFolders(dir)) {
      const pkg = readJson(join(dir, folder, 'package.json'));
      if (pkg && typeof pkg.name === 'string' && typeof pkg.version === 'string') {
        found.push({ name: pkg.name, version: pkg.version, direct: depth === 0 && direct.has(pkg.name) });
      }
      if (depth < MAX_DEPTH) walk(join(dir, folder, 'node_modules'), depth + 1);
    }
  };
  walk(nodeModules, 0);
  return found;
}

/** The names a package.json asks for, in any of its dependency fields. */
function askedFor(manifest: Record<string, unknown> | null): Set<string> {
  const fields = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
  return new Set(fields.flatMap((field) => (manifest && typeof manifest[field] === 'object' && manifest[field] ? Object.keys(manifest[field]) : [])));
}

/** The node_modules the service resolves from: the nearest one from its directory up to the tree's root; null when none. */
function nearestNodeModules(tree: Tree, service: ServiceConfig): string | null {
  let dir = serviceDir(tree, service);
  for (;;) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules');
    const rel = relative(tree.root, dir);
    if (rel === '' || rel.startsWith('..')) return null;
    dir = dirname(dir);
  }
}

/**
 * The packages whose installed versions differ between the sides, after both installs; null when
 * head has no node_modules or nothing differs. For a project without a lockfile, whose changes
 * the lockfiles cannot tell.
 */
export function installedChanges(trees: Record<Side, Tree>, services: Record<Side, ServiceConfig>): DependencyChanges | null {
  const read = (side: Side) => {
    const nodeModules = nearestNodeModules(trees[side], services[side]);
    if (nodeModules === null) return null;
    const manifest = readJson(join(serviceDir(trees[side], services[side]), 'package.json'));
    return { nodeModules, packages: installedPackages(nodeModules, askedFor(manifest)) };
  };
  const head = read('head');
  if (head === null) return null;
  const changed = diffLockfiles(read('base')?.packages ?? [], head.packages);
  return changed.length === 0 ? null : { lockfile: relative(trees.head.root, head.nodeModules), changed };
}
