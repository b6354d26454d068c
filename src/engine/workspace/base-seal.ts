/**
 * A seal on base's tree. Where head's install, build, setup and service run as the same user as
 * base's (no boundary, or no user of head's own could be made), they can write into base's worktree by its path (a sibling of head's): patch base's
 * server, or a file in its node_modules, so that base is slow and head's regression passes.
 * Right after base is installed and built, before any of head's code runs, perfgate records every
 * tracked file and every entry under base's node_modules with its type, size, inode, and change
 * and modification times; it checks them again after head's install and build, after every
 * block, and before the run is complete. Any difference stops the run with exit 2.
 *
 * The change time (ctime) is what makes a digest of metadata enough: the kernel sets it to now
 * on every write, rename or chmod of a file, and no unprivileged process can set it back
 * (utimes sets only the access and modification times). A write that puts the old content and
 * the old mtime back, before the check, still leaves a new ctime; a content hash would miss
 * nothing more, at the cost of reading every byte (760 MB for 52,000 entries here, against
 * 0.5 s for find(1) to list them), and an inotify watch of the tree would need a watch per
 * directory of node_modules and still see nothing a ctime does not.
 *
 * Besides tracked files and node_modules, every file in the tree that Node can load as code is
 * sealed, tracked or not: base's build output (dist/server.js is ignored by git, and is what
 * runs), and a file planted where module resolution finds it before the real one (a
 * src/node_modules/<dependency> nearer the code than the installed one, lib.js beside lib/,
 * package.json, an .env a service loads). Other untracked files are not: base's own service may
 * write logs, caches or uploads into its tree, and those are no one's code. .cache folders
 * (babel, eslint, many tools' caches) are left out for the same reason.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseTreeChangedError, SetupError } from '../errors.js';
import { HEAD_USER } from '../process/head-user.js';
import { type HeadIdentity, sharedUserWhy } from '../process/processes.js';
import { ownEnv, programPathOrNull } from '../process/programs.js';
import { git, type Tree } from './trees.js';

/** path relative to the tree's root → its type, size, inode, ctime and mtime as one string. */
type Manifest = Map<string, string>;

/** Most changed paths a message names; the count says how many more. */
const NAMED = 10;

export interface BaseSeal {
  /** How many paths are sealed. */
  readonly paths: number;
  /** How long taking the seal took, ms. */
  readonly ms: number;
  /** Throws BaseTreeChangedError when base's tree differs from the seal; `when` says since when (for the message). */
  verify(when: string): Promise<void>;
}

/**
 * Seals base's tracked files and node_modules (the tree's root and the service directory's).
 * `head` is whose user head's code runs as: what a changed seal's message says could have written.
 */
export async function sealBaseTree(tree: Tree, serviceDir: string, head: HeadIdentity): Promise<BaseSeal> {
  const started = performance.now();
  // One way of listing for the seal and every check: find(1) and the walk print times differently.
  const find = programPathOrNull('find');
  // The tracked paths as git lists them now, before any of head's code ran; the checks stat the
  // same list and run no git in base's tree (whose index and repository config head's code can
  // write by then).
  const tracked = (await git(['ls-files', '-z'], tree.root)).split('\0').filter(Boolean);
  const read = () => readManifest(tree.root, serviceDir, tracked, find);
  const sealed = await read();
  return {
    paths: sealed.size,
    ms: Math.round(performance.now() - started),
    async verify(when: string) {
      const now = await read();
      const changes: string[] = [];
      for (const [path, entry] of sealed) {
        const current = now.get(path);
        if (current === undefined) changes.push(`${path} (removed)`);
        else if (current !== entry) changes.push(`${path} (${describeChange(entry, current)})`);
      }
      for (const path of now.keys()) if (!sealed.has(path)) changes.push(`${path} (added)`);
      if (changes.length === 0) return;
      // pnpm hard-links packages from one store into both trees: head's install gives base's files a new change time
      const pnpmLinks = changes.every((c) => c.includes('node_modules/.pnpm/') && c.endsWith('(written, its size and modification time put back)'));
      const hint = pnpmLinks
        ? " Every change is a pnpm package file whose change time alone moved: pnpm hard-links one store's files into both trees, so head's install touched base's. Install with `pnpm install --frozen-lockfile --package-import-method=copy` (perfgate's default for pnpm) in service.install."
        : '';
      const named = changes.slice(0, NAMED).join(', ');
      const more = changes.length > NAMED ? ` and ${changes.length - NAMED} more` : '';
      throw new BaseTreeChangedError(
        `base's tree (${tree.root}) was changed after perfgate installed and built it, ${when}: ${named}${more}. ` +
          `${whoCouldWrite(head)}; base was then not measured as its own commit built it, ` +
          'so this run gives no verdict. perfgate checks tracked files, node_modules and the files Node can load as code (.js, .ts, package.json, .env…): if base\'s own service or service.setup writes those (a cache, a generated client), make it write elsewhere or do it in service.build (docs/security.md, "A fair comparison").' +
          hint,
      );
    },
  };
}

/** Who could have written into base's tree, as it is on this run. */
function whoCouldWrite(head: HeadIdentity): string {
  if (head === 'own-user') {
    return `Head's code runs as its own user (${HEAD_USER}) and cannot write there: a process of perfgate's own user or root did (base's own service or service.setup, or a process an earlier step left running)`;
  }
  return `The pull request's code runs as the same user as base's ${sharedUserWhy(head)} and can write into base's worktree`;
}

/** What differs between two manifest entries, in words. */
function describeChange(before: string, after: string): string {
  const [typeBefore, sizeBefore, inodeBefore, , mtimeBefore] = before.split(' ');
  const [typeAfter, sizeAfter, inodeAfter, , mtimeAfter] = after.split(' ');
  if (typeBefore !== typeAfter || inodeBefore !== inodeAfter) return 'replaced';
  if (sizeBefore !== sizeAfter || mtimeBefore !== mtimeAfter) return 'written';
  // Same size and modification time, new change time: written and its mtime put back, or chmod.
  return 'written, its size and modification time put back';
}

async function readManifest(root: string, serviceDir: string, tracked: readonly string[], find: string | null): Promise<Manifest> {
  const manifest: Manifest = new Map();
  for (const path of tracked) manifest.set(path, statEntry(join(root, path)));
  const modules = [...new Set([join(root, 'node_modules'), join(serviceDir, 'node_modules')])].filter((dir) => existsSync(dir));
  for (const dir of modules) {
    for (const [path, entry] of find ? await findTree(find, dir) : walk(dir)) manifest.set(relative(root, join(dir, path)), entry);
  }
  const sealedModules = modules.map((dir) => relative(root, dir));
  const skipped = (path: string) => path === '.git' || path.split('/').at(-1) === '.cache' || sealedModules.includes(path);
  for (const [path, entry] of find ? await findCode(find, root, sealedModules) : walk(root, (path) => isCodePath(path, sealedModules), skipped)) {
    if (!manifest.has(path)) manifest.set(path, entry);
  }
  return manifest;
}

/** Extensions of the files Node, or a loader for it (tsx, ts-node), can run. */
const CODE_EXTENSIONS = ['js', 'cjs', 'mjs', 'node', 'wasm', 'ts', 'mts', 'cts', 'jsx', 'tsx'];

/**
 * Whether a path (relative to the tree's root) is code the seal covers outside the node_modules
 * folders it lists whole: a file with a code extension, a package.json, an .env file, or anything
 * in or named node_modules elsewhere. The same rule as findCode's expression, for the walk.
 */
export function isCodePath(path: string, sealedModules: readonly string[]): boolean {
  const parts = path.split('/');
  if (parts[0] === '.git' || parts.includes('.cache') || sealedModules.some((dir) => path === dir || path.startsWith(`${dir}/`))) return false;
  const name = parts.at(-1)!;
  if (parts.includes('node_modules') || name === 'package.json' || name === '.env' || name.startsWith('.env.')) return true;
  const dot = name.lastIndexOf('.');
  return dot > 0 && CODE_EXTENSIONS.includes(name.slice(dot + 1));
}

/** The files isCodePath keeps, by one find(1) over the tree (the .git folder, .cache folders and the sealed node_modules pruned). */
function findCode(find: string, root: string, sealedModules: readonly string[]): Promise<Manifest> {
  const prune = ['-path', './.git', '-o', '-name', '.cache', ...sealedModules.flatMap((dir) => ['-o', '-path', `./${dir}`])];
  const names = [...CODE_EXTENSIONS.map((ext) => `*.${ext}`), 'package.json', '.env', '.env.*', 'node_modules'].flatMap((name) => ['-name', name, '-o']);
  return findEntries(find, root, ['(', ...prune, ')', '-prune', '-o', '!', '-type', 'd', '(', ...names, '-path', '*/node_modules/*', ')']);
}

/** One path's entry as find(1) would print it; "missing" when it does not exist (a tracked file deleted by base's own build). */
function statEntry(path: string): string {
  try {
    const s = lstatSync(path, { bigint: true });
    const type = s.isSymbolicLink() ? 'l' : s.isDirectory() ? 'd' : s.isFile() ? 'f' : 'o';
    return `${type} ${s.size} ${s.ino} ${s.ctimeNs} ${s.mtimeNs}`;
  } catch {
    return 'missing';
  }
}

/**
 * Every entry under `dir` but directories (their own times change with every file added, which
 * the file itself already shows) and .cache at its top, by find(1): one process, a few hundred
 * ms for tens of thousands of files, where a walk in this process takes seconds.
 */
function findTree(find: string, dir: string): Promise<Manifest> {
  return findEntries(find, dir, ['-path', './.cache', '-prune', '-o', '!', '-type', 'd']);
}

/** The entries find(1) selects under `dir` with `expression`, each printed as path → "type size inode ctime mtime". */
function findEntries(find: string, dir: string, expression: string[]): Promise<Manifest> {
  return new Promise((resolve, reject) => {
    execFile(
      find,
      ['.', ...expression, '-printf', '%P\\0%y %s %i %C@ %T@\\0'],
      { cwd: dir, env: ownEnv(), maxBuffer: 1024 * 2 ** 20 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new SetupError(`find could not list ${dir} to check base's tree: ${(stderr || error.message).trim()}`));
          return;
        }
        const manifest: Manifest = new Map();
        const fields = stdout.split('\0');
        for (let i = 0; i + 1 < fields.length; i += 2) manifest.set(fields[i]!, fields[i + 1]!);
        resolve(manifest);
      },
    );
  });
}

/** The same list as findTree (or findCode, with `keep` and `skip`), where find(1) is missing (its times in ns rather than seconds). */
function walk(dir: string, keep: (path: string) => boolean = () => true, skip: (path: string) => boolean = (path) => path === '.cache'): Manifest {
  const manifest: Manifest = new Map();
  const stack = [''];
  while (stack.length > 0) {
    const sub = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(join(dir, sub));
    } catch {
      continue;
    }
    for (const name of names) {
      const path = sub ? `${sub}/${name}` : name;
      if (skip(path)) continue;
      const entry = statEntry(join(dir, path));
      if (entry.startsWith('d ')) stack.push(path);
      else if (keep(path)) manifest.set(path, entry);
    }
  }
  return manifest;
}

