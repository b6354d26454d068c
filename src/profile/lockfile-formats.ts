/**
 * What a lockfile locks, whichever package manager wrote it: every installed package as a name,
 * a version and whether the project depends on it directly. One shape for every format, so that
 * base's and head's lists are compared by one diff (diffLockfiles in packages.ts), even when the
 * pull request moved from one package manager to another. Pure: text in, packages out; the
 * engine reads the files (src/engine/workspace/lockfiles.ts).
 *
 * The parsers, and why these:
 * - npm (package-lock.json, npm-shrinkwrap.json): JSON.parse. The format is JSON and npm
 *   documents it (lockfileVersion 2 and 3; 1, npm 6's, is refused by name).
 * - pnpm (pnpm-lock.yaml): the `yaml` package, already bundled for perfgate.yml, reading pnpm's
 *   documented format (lockfileVersion '6.0' of pnpm 8, '9.0' of pnpm 9 and later). pnpm's own
 *   reader, @pnpm/lockfile.fs, needs Node 22.13 and brings a dozen of pnpm's packages (ramda, a
 *   js-yaml fork, write-file-atomic) to read what is a YAML document with two top-level maps.
 * - yarn (yarn.lock): parseSyml from @yarnpkg/parsers, the parser yarn itself (berry) uses. It
 *   reads yarn 2+'s YAML lockfiles and yarn 1's own syntax alike (yarn 1's @yarnpkg/lockfile,
 *   frozen since 2018, is about as large in the bundle and reads yarn 1's only).
 */
import { parseSyml } from '@yarnpkg/parsers';
import YAML from 'yaml';

export class LockfileError extends Error {}

export interface Locked {
  name: string;
  version: string;
  direct: boolean;
}

export type LockfileFormat = 'npm' | 'pnpm' | 'yarn';

/** The format a lockfile's name says; null for any other file. */
export function lockfileFormat(path: string): LockfileFormat | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === 'package-lock.json' || name === 'npm-shrinkwrap.json') return 'npm';
  if (name === 'pnpm-lock.yaml') return 'pnpm';
  if (name === 'yarn.lock') return 'yarn';
  return null;
}

export interface LockfileSource {
  /** How messages name it ("head's pnpm-lock.yaml"). */
  label: string;
  format: LockfileFormat;
  text: string;
  /**
   * The package.json files of the project (the root and its workspaces), parsed: yarn.lock does
   * not say which packages the project asks for, they do. Ignored for npm and pnpm, whose
   * lockfiles record it.
   */
  manifests?: unknown[];
}

/** Every package the lockfile locks; a LockfileError (or the parser's error) when it cannot be read. */
export function lockedPackages(source: LockfileSource): Locked[] {
  switch (source.format) {
    case 'npm':
      return npmLocked(parseJson(source.text, source.label), source.label);
    case 'pnpm':
      return pnpmLocked(parseYaml(source.text, source.label), source.label);
    case 'yarn':
      return yarnLocked(source.text, source.label, source.manifests ?? []);
  }
}

const NODE_MODULES = 'node_modules/';
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

type Doc = Record<string, unknown>;
const isObject = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every installed package a package-lock.json (lockfileVersion 2 or 3: npm 7 on) records, by
 * install path: nested and hoisted copies are distinct entries. Workspace folders and their
 * links are the project's own code, not dependencies.
 */
export function npmLocked(lock: unknown, name: string): Locked[] {
  const doc = lock as { lockfileVersion?: unknown; packages?: Record<string, Record<string, unknown>> } | null;
  if (doc === null || typeof doc !== 'object' || typeof doc.packages !== 'object' || doc.packages === null) {
    const version = doc !== null && typeof doc === 'object' ? doc.lockfileVersion : undefined;
    throw new LockfileError(
      version === 1 ? `${name} is lockfileVersion 1 (npm 6): its packages are not read (npm 7 or later rewrites it)` : `${name} has no "packages" (not an npm 7+ lockfile)`,
    );
  }
  // Dependencies of the root and of workspace folders are the direct ones.
  const direct = new Set<string>();
  for (const [path, entry] of Object.entries(doc.packages)) {
    if (path.includes(NODE_MODULES) || !isObject(entry)) continue;
    for (const dep of dependencyNames(entry)) direct.add(dep);
  }
  const out: Locked[] = [];
  for (const [path, entry] of Object.entries(doc.packages)) {
    const at = path.lastIndexOf(NODE_MODULES);
    if (at < 0 || !isObject(entry) || entry.link === true) continue;
    const pkg = typeof entry.name === 'string' ? entry.name : path.slice(at + NODE_MODULES.length);
    if (typeof entry.version !== 'string') continue;
    // hoisted to the top (node_modules/x) or in a workspace's own node_modules (packages/a/node_modules/x)
    const topLevel = !path.slice(0, at).includes(NODE_MODULES);
    out.push({ name: pkg, version: entry.version, direct: topLevel && direct.has(pkg) });
  }
  return out;
}

/** The names a package.json-shaped object depends on, from every dependency field. */
function dependencyNames(entry: Doc): string[] {
  const names: string[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    const deps = entry[field];
    if (isObject(deps)) names.push(...Object.keys(deps));
  }
  return names;
}

function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new LockfileError(`${label} is not valid JSON (${(e as Error).message})`);
  }
}

function parseYaml(text: string, label: string): unknown {
  try {
    return YAML.parse(text);
  } catch (e) {
    throw new LockfileError(`${label} is not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
}

/** "name@version" → its two halves; the name may have a scope ("@fastify/ajv-compiler@3.6.0"). */
function splitAt(spec: string): [string, string] | null {
  const at = spec.indexOf('@', 1);
  return at <= 0 ? null : [spec.slice(0, at), spec.slice(at + 1)];
}

/**
 * Every package a pnpm-lock.yaml locks, from its `packages` map: one entry per name and version,
 * wherever the store links it. Keys are "name@version" from lockfileVersion 9.0 (pnpm 9 on) and
 * "/name@version(peer@x)" in 6.0 (pnpm 8), the peer suffix naming the same package's variant for
 * a peer; a package from a tarball or git says its name and version in fields. Direct: in an
 * importer's dependencies (the root "." and each workspace); 6.0 puts a single project's at the
 * top level. A workspace linked with `link:` is the project's own code. 5.x (pnpm 7) keys are
 * another syntax and are refused by name.
 */
export function pnpmLocked(lock: unknown, name: string): Locked[] {
  if (!isObject(lock)) throw new LockfileError(`${name} is not a pnpm lockfile`);
  const version = String(lock.lockfileVersion ?? '');
  const major = Number.parseFloat(version);
  if (!(major >= 6 && major < 10)) {
    throw new LockfileError(
      Number.isFinite(major) && major < 6
        ? `${name} is lockfileVersion ${version} (pnpm 7 or older): its packages are not read (pnpm 8 or later rewrites it)`
        : `${name} has lockfileVersion ${version || '(none)'}, not one perfgate reads (6.0 to 9.x)`,
    );
  }
  const direct = new Set<string>();
  const importers = isObject(lock.importers) ? Object.values(lock.importers) : [lock];
  for (const importer of importers) {
    if (!isObject(importer)) continue;
    for (const field of DEPENDENCY_FIELDS) {
      const deps = importer[field];
      if (!isObject(deps)) continue;
      for (const [dep, spec] of Object.entries(deps)) {
        const resolved = isObject(spec) ? spec.version : spec;
        if (typeof resolved === 'string' && resolved.startsWith('link:')) continue;
        direct.add(dep);
      }
    }
  }
  if (lock.packages !== undefined && !isObject(lock.packages)) throw new LockfileError(`${name}'s "packages" is not a map`);
  const out: Locked[] = [];
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    const fields = isObject(entry) ? entry : {};
    let spec = key.startsWith('/') ? key.slice(1) : key;
    const peers = spec.indexOf('(');
    if (peers > 0) spec = spec.slice(0, peers);
    const parts = splitAt(spec);
    const pkg = typeof fields.name === 'string' ? fields.name : parts?.[0];
    const pkgVersion = typeof fields.version === 'string' ? fields.version : parts?.[1];
    if (!pkg || !pkgVersion) continue;
    out.push({ name: pkg, version: pkgVersion, direct: direct.has(pkg) });
  }
  return out;
}

/**
 * Every package a yarn.lock locks, yarn 1's and yarn 2+'s (berry's) alike: one entry per
 * resolution, its keys the ranges that resolved to it ("a@^1.0.0, a@^1.1.0"). Berry names the
 * package in `resolution` ("a@npm:1.2.0", a patched "resolve@patch:resolve@npm%3A…"); yarn 1 in
 * the first range (an alias "b@npm:a@^1" is package a). Berry's workspaces are entries too, with
 * the project's dependencies (its direct ones), and are not packages; yarn 1 records neither, so
 * direct comes from the project's package.json files as well.
 */
export function yarnLocked(text: string, name: string, manifests: unknown[]): Locked[] {
  let lock: unknown;
  try {
    lock = parseSyml(text);
  } catch (e) {
    throw new LockfileError(`${name} could not be parsed (${(e as Error).message.split('\n')[0]})`);
  }
  const berry = isObject(lock) && isObject(lock.__metadata);
  if (!isObject(lock) || (!berry && !/^#.*yarn lockfile v1\s*$/m.test(text))) throw new LockfileError(`${name} is not a yarn lockfile (no "__metadata", no "yarn lockfile v1" header)`);
  const direct = new Set<string>();
  const addDirect = (deps: Doc) => {
    for (const [dep, range] of Object.entries(deps)) direct.add(typeof range === 'string' && range.startsWith('npm:') ? (splitAt(range.slice(4))?.[0] ?? dep) : dep);
  };
  for (const manifest of manifests) {
    if (!isObject(manifest)) continue;
    for (const field of DEPENDENCY_FIELDS) if (isObject(manifest[field])) addDirect(manifest[field]);
  }
  const out: { name: string; version: string }[] = [];
  for (const [key, entry] of Object.entries(lock)) {
    if (key === '__metadata') continue;
    if (!isObject(entry)) throw new LockfileError(`${name}'s entry "${key}" is not a map`);
    const resolution = typeof entry.resolution === 'string' ? entry.resolution : null;
    if (resolution?.includes('@workspace:') || entry.linkType === 'soft') {
      for (const field of DEPENDENCY_FIELDS) if (isObject(entry[field])) addDirect(entry[field]);
      continue;
    }
    if (typeof entry.version !== 'string') continue;
    let pkg: string | undefined;
    if (resolution !== null) pkg = splitAt(resolution)?.[0];
    else {
      const first = splitAt(key.split(',')[0]!.trim());
      pkg = first?.[1].startsWith('npm:') ? (splitAt(first[1].slice(4))?.[0] ?? first[0]) : first?.[0];
    }
    if (pkg) out.push({ name: pkg, version: entry.version });
  }
  return out.map((p) => ({ ...p, direct: direct.has(p.name) }));
}
