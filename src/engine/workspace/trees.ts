import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { ServiceConfig } from '../../config/types.js';
import type { Side, SideInfo } from '../../results/types.js';
import { SetupError } from '../errors.js';
import type { EnginePorts } from '../ports.js';
import { explainLog } from '../process/log-excerpt.js';
import { headUserOf, type ProcessTracker, runShell } from '../process/processes.js';
import { ownEnv, programPath } from '../process/programs.js';

/** One side's source tree, ready to install, build and start. */
export interface Tree extends SideInfo {
  side: Side;
  /** Repository root of this tree: a temporary git worktree perfgate created (and removes). */
  root: string;
  /**
   * The worktree's own git directory (inside the repository's .git), taken when perfgate made
   * the tree: once head's tree is head's user's, git refuses it to perfgate's user (safe.directory),
   * and its `.git` file, which head's code can rewrite, must not choose the config git runs with.
   */
  gitDir?: string;
}

/** git in a tree perfgate made, through the git directory it noted, never the tree's own `.git` file. */
export function treeGit(tree: { root: string; gitDir?: string }, args: string[]): Promise<string> {
  return git(tree.gitDir ? ['--git-dir', tree.gitDir, '--work-tree', tree.root, ...args] : args, tree.root);
}

/** The git directory of the worktree at `root`, while it is still perfgate's user's. */
export function worktreeGitDir(root: string): Promise<string> {
  return git(['rev-parse', '--absolute-git-dir'], root);
}

/**
 * Runs git as perfgate's own helper: the git found when perfgate started, with the scrubbed
 * environment (it also runs after the PR's code, when that code may watch /proc for it).
 */
export function git(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(programPath('git'), args, { cwd, env: ownEnv(), maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      if (error) reject(new SetupError(`git ${args.join(' ')} failed in ${cwd}: ${(stderr || error.message).trim()}`));
      else resolve(stdout.trim());
    });
  });
}

export async function repositoryRoot(dir: string): Promise<string> {
  try {
    return await git(['rev-parse', '--show-toplevel'], dir);
  } catch {
    throw new SetupError(`${dir} is not inside a git repository. perfgate compares two commits: run it in a git checkout.`);
  }
}

async function resolveCommit(root: string, ref: string, what: string): Promise<string> {
  try {
    return await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], root);
  } catch {
    throw new SetupError(
      `${what} "${ref}" is not a commit in ${root}. ` +
        'Check the name, and fetch it (in GitHub Actions: actions/checkout with fetch-depth: 0).',
    );
  }
}

/** The default branch: origin/HEAD when known, else a local main or master. */
export async function defaultBranch(root: string): Promise<string> {
  try {
    return (await git(['symbolic-ref', '--short', 'refs/remotes/origin/HEAD'], root)).trim();
  } catch {
    for (const candidate of ['main', 'master', 'origin/main', 'origin/master']) {
      try {
        await git(['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`], root);
        return candidate;
      } catch {
        // try the next
      }
    }
  }
  throw new SetupError(`Cannot tell the default branch of ${root}: pass the base explicitly (--base <ref>).`);
}

/** Which commits to compare, as the user named them. */
export interface SidesRequest {
  /** Any directory inside the repository. */
  repoDir: string;
  /** Base ref or sha. */
  baseRef: string;
  /** Compare against the merge-base of head and baseRef (CLI), or baseRef itself (the action's PR base sha). */
  mergeBase: boolean;
  /** Head ref, or null for the work tree as it is (uncommitted changes included). */
  headRef: string | null;
}

export interface TreeRequest {
  /** Base and head as resolved before the run: the trees check these commits out. */
  sides: ResolvedSides;
  /** Where temporary worktrees go. */
  scratchDir: string;
}

export interface Trees {
  base: Tree;
  head: Tree;
  /** Removes the temporary worktrees (always call, also on failure). */
  dispose(): Promise<void>;
}

/** Base and head as commits, resolved without touching the disk (no worktree yet). */
export interface ResolvedSides {
  /** The repository's root. */
  root: string;
  head: SideInfo;
  base: SideInfo;
  /** Head is the work tree as it is (no head ref given): its uncommitted and untracked files are measured too. */
  workTree: boolean;
}

/**
 * Resolves head (a ref, or the work tree at HEAD with its dirty flag) and base (the ref, or its
 * merge-base with head) to commits. Cheap and side-effect free, so a typo in a ref is reported
 * before any checkout.
 */
export async function resolveSides(request: SidesRequest): Promise<ResolvedSides> {
  const root = await repositoryRoot(request.repoDir);
  let head: SideInfo;
  if (request.headRef) {
    head = { ref: request.headRef, sha: await resolveCommit(root, request.headRef, 'The head ref'), dirty: false };
  } else {
    const sha = await resolveCommit(root, 'HEAD', 'HEAD');
    const status = await git(['status', '--porcelain', '--untracked-files=normal'], root);
    const ref = await git(['rev-parse', '--abbrev-ref', 'HEAD'], root).catch(() => 'HEAD');
    head = { ref: ref === 'HEAD' ? 'work tree' : ref, sha, dirty: status.length > 0 };
  }
  const baseTip = await resolveCommit(root, request.baseRef, 'The base ref');
  let baseSha = baseTip;
  if (request.mergeBase) {
    try {
      baseSha = await git(['merge-base', head.sha, baseTip], root);
    } catch {
      throw new SetupError(
        `${request.baseRef} and ${head.ref} have no common ancestor. Fetch the full history (fetch-depth: 0) or pass another --base.`,
      );
    }
  }
  return { root, head, base: { ref: request.baseRef, sha: baseSha, dirty: false }, workTree: !request.headRef };
}

/** A cap on a file read from a commit, and the error that refuses a larger one. */
export interface ReadLimit {
  bytes: number;
  refuse: (bytes: number) => Error;
}

/**
 * A file's text at a commit (path relative to the repository root), or null when the commit has
 * no such file. Its size is asked first (git cat-file -s), so a file over `limit` is refused with
 * the caller's error before a byte of it is read, however large a commit made it.
 */
export async function readAtCommit(root: string, sha: string, path: string, limit?: ReadLimit): Promise<string | null> {
  const spec = `${sha}:${path.split(/[\\/]/).filter((p) => p && p !== '.').join('/')}`;
  let size: number;
  try {
    size = Number(await git(['cat-file', '-s', spec], root));
  } catch {
    return null;
  }
  if (limit && size > limit.bytes) throw limit.refuse(size);
  return git(['show', spec], root);
}

export async function prepareTrees(request: TreeRequest, ports: EnginePorts): Promise<Trees> {
  const { root, head: headInfo, base: baseInfo, workTree } = request.sides;
  const created: string[] = [];
  const dispose = async () => {
    for (const dir of created.reverse()) {
      try {
        await git(['worktree', 'remove', '--force', dir], root);
      } catch (e) {
        ports.logger.warn(`could not remove worktree ${dir}: ${(e as Error).message}`);
        rmSync(dir, { recursive: true, force: true });
      }
    }
    if (created.length) await git(['worktree', 'prune'], root).catch(() => undefined);
  };
  const addWorktree = async (side: Side, sha: string): Promise<{ root: string; gitDir: string }> => {
    mkdirSync(request.scratchDir, { recursive: true });
    const dir = join(request.scratchDir, side);
    await git(['worktree', 'add', '--detach', '--force', dir, sha], root);
    created.push(dir);
    return { root: dir, gitDir: await worktreeGitDir(dir) };
  };
  try {
    // Head is always a worktree of its own beside base's, the work tree's uncommitted and
    // untracked files included: both trees then have paths of the same length and are installed
    // the same way, so neither a path nor a node_modules the user installed differently can
    // favour one side (Mytkowicz et al., ASPLOS 2009: the environment alone moves run time).
    let headRoot: { root: string; gitDir: string };
    if (!workTree || !headInfo.dirty) {
      headRoot = await addWorktree('head', headInfo.sha);
    } else {
      // A commit object of the tracked changes (nothing is stashed: the work tree stays as it is).
      const snapshot = await git(['-c', 'user.name=perfgate', '-c', 'user.email=perfgate@invalid', 'stash', 'create'], root);
      headRoot = await addWorktree('head', snapshot || headInfo.sha);
    }
    // perfgate's own run directory may sit inside the work tree (--out .perfgate/run): never copy it
    if (workTree) await copyUntracked(root, headRoot.root, dirname(request.scratchDir));
    const head: Tree = { side: 'head', ...headInfo, ...headRoot };
    const base: Tree = { side: 'base', ...baseInfo, ...(await addWorktree('base', baseInfo.sha)) };
    ports.logger.info(`base ${base.ref}@${base.sha.slice(0, 7)} → head ${head.ref}@${head.sha.slice(0, 7)}${head.dirty ? ' (uncommitted changes)' : ''}`);
    return { base, head, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}

/** Copies the work tree's untracked files that git does not ignore into a worktree of it, except those under `skip`. */
async function copyUntracked(root: string, dir: string, skip: string): Promise<void> {
  const list = await git(['ls-files', '--others', '--exclude-standard', '-z'], root);
  const skipped = relative(await realpath(root), await realpath(skip).catch(() => skip));
  const inside = (file: string) => skipped !== '' && !skipped.startsWith('..') && (file === skipped || file.startsWith(`${skipped}/`));
  for (const file of list.split('\0').filter((f) => f && !inside(f))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file), { verbatimSymlinks: true });
  }
}

/** The package manager a service directory uses, as its lockfile names it. */
export interface PackageManager {
  name: 'npm' | 'pnpm' | 'yarn';
  /** The lockfile it was told by; null: package.json has dependencies but no lockfile (npm install). */
  lockfile: string | null;
  /** What perfgate runs to install (service.install's default). */
  install: string;
}

const LOCKFILE_INSTALLS: [string, PackageManager['name'], string][] = [
  ['pnpm-lock.yaml', 'pnpm', 'pnpm install --frozen-lockfile --package-import-method=copy'],
  ['yarn.lock', 'yarn', 'yarn install --frozen-lockfile'],
  ['package-lock.json', 'npm', 'npm ci'],
  ['npm-shrinkwrap.json', 'npm', 'npm ci'],
];

/** The package manager a lockfile names, or null when there is nothing to install. `absent`: lockfiles to treat as missing. */
export function detectPackageManager(dir: string, absent: readonly string[] = []): PackageManager | null {
  for (const [lockfile, name, install] of LOCKFILE_INSTALLS) {
    if (absent.includes(lockfile) || !existsSync(join(dir, lockfile))) continue;
    // Yarn 2 and later (their lockfile opens with __metadata) deprecate --frozen-lockfile for --immutable
    if (lockfile === 'yarn.lock' && isYarnBerry(join(dir, lockfile))) return { name, lockfile, install: 'yarn install --immutable' };
    return { name, lockfile, install };
  }
  if (!existsSync(join(dir, 'package.json'))) return null;
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const deps = { ...pkg.dependencies, ...pkg.devDependencies, ...pkg.optionalDependencies };
    return Object.keys(deps).length ? { name: 'npm', lockfile: null, install: 'npm install' } : null;
  } catch {
    return null;
  }
}

function isYarnBerry(lockfile: string): boolean {
  try {
    return /^__metadata:/m.test(readFileSync(lockfile, 'utf8').slice(0, 4096));
  } catch {
    return false;
  }
}

/** The install command a lockfile names, or null when there is nothing to install. */
export function installCommand(dir: string): string | null {
  return detectPackageManager(dir)?.install ?? null;
}

/**
 * The package manager a run finds in a checkout of `dir`: its trees are git worktrees with the
 * work tree's untracked files copied in, so a lockfile git ignores is not there and the run
 * installs as if there were none (`npm install`). `ignored`: the lockfiles left out for that.
 */
export async function checkoutPackageManager(dir: string): Promise<{ packageManager: PackageManager | null; ignored: string[] }> {
  const present = LOCKFILE_INSTALLS.map(([lockfile]) => lockfile).filter((lockfile) => existsSync(join(dir, lockfile)));
  // check-ignore exits 1 when no file is ignored (and fails outside a repository): none is then
  const listed = present.length ? await git(['check-ignore', '--', ...present], dir).catch(() => '') : '';
  const ignored = listed.split('\n').filter((file) => present.includes(file));
  return { packageManager: detectPackageManager(dir, ignored), ignored };
}

/** The install command a side runs: its service.install, or its lockfile's package manager's when that is unset (null); none when it is empty. */
export function resolvedInstall(service: ServiceConfig, dir: string): string | null {
  return service.install === null ? installCommand(dir) : service.install || null;
}

export interface SetupOptions {
  service: ServiceConfig;
  env: Record<string, string>;
  logDir: string;
  tracker: ProcessTracker;
  /** Per command, ms. */
  timeoutMs?: number;
  /** Base's installed service directory and tree root: head takes a copy of its node_modules instead of installing (copyableInstall said it may). */
  copyInstallFrom?: { dir: string; root: string };
}

/** The files that decide what `npm ci` puts in node_modules, besides the command itself. */
const INSTALL_INPUTS = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc'];
/** The root package's scripts `npm ci` runs: they can write anywhere in the tree, so a copy of node_modules would miss what they did. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];

/**
 * Whether head may take a copy of base's installed node_modules instead of running its own
 * install, and why not when it may not. `npm ci` installs exactly the lockfile, so two trees with
 * the same command and the same package.json, lockfile and .npmrc get the same node_modules:
 * copying base's is 4–13 times faster than a second `npm ci` (71 packages of an express app:
 * 1.6–4.2 s against 17–21 s on a busy 2-vCPU machine, docs/calibration.md). Not with workspaces
 * (each package has node_modules of its own) nor with root install scripts (they write outside
 * node_modules). The copy has files of its own, so base's seal still holds (base-seal.ts): no
 * write in head's tree reaches base's.
 */
export function copyableInstall(dirs: Record<Side, string>, commands: Record<Side, string | null>): { ok: true } | { ok: false; reason: string } {
  if (commands.base !== 'npm ci' || commands.head !== 'npm ci') return { ok: false, reason: 'the install is not npm ci on both sides' };
  for (const file of INSTALL_INPUTS) {
    const read = (side: Side) => (existsSync(join(dirs[side], file)) ? readFileSync(join(dirs[side], file), 'utf8') : null);
    if (read('base') !== read('head')) return { ok: false, reason: `${file} differs` };
  }
  let manifest: { workspaces?: unknown; scripts?: Record<string, unknown> };
  try {
    manifest = JSON.parse(readFileSync(join(dirs.head, 'package.json'), 'utf8'));
  } catch {
    return { ok: false, reason: 'package.json cannot be read' };
  }
  if (manifest.workspaces) return { ok: false, reason: 'the package has workspaces' };
  const script = INSTALL_SCRIPTS.find((name) => manifest.scripts?.[name] !== undefined);
  if (script) return { ok: false, reason: `package.json has a ${script} script` };
  return { ok: true };
}

/** Symbolic links under `dir` whose absolute target lies under `root`. */
function linksInto(dir: string, root: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isSymbolicLink()) {
        const target = readlinkSync(path);
        if (isAbsolute(target) && !relative(root, target).startsWith('..')) found.push(path);
      } else if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return found;
}

/** The directory the service's commands run in. */
export function serviceDir(tree: Tree, service: ServiceConfig): string {
  return join(tree.root, service.cwd);
}

/**
 * Installs (the lockfile's package manager, or service.install) and builds one tree. Both
 * trees are worktrees perfgate made, installed and built the same way.
 */
export async function setupTree(tree: Tree, options: SetupOptions, ports: EnginePorts): Promise<void> {
  const dir = serviceDir(tree, options.service);
  if (!existsSync(dir)) {
    throw new SetupError(`service.cwd "${options.service.cwd}" does not exist in the ${tree.side} tree (${tree.ref}@${tree.sha.slice(0, 7)}).`);
  }
  const install = resolvedInstall(options.service, dir);
  const steps: ['install' | 'build', string | null][] = [
    ['install', install],
    ['build', options.service.build],
  ];
  if (install && options.copyInstallFrom && copyInstall(options.copyInstallFrom, dir, tree, options.logDir, ports)) steps.shift();
  // Head's tree is its user's before any of its code runs (the whole worktree: its install may write above service.cwd).
  headUserOf(options.tracker, options.env)?.give([tree.root]);
  for (const [phase, command] of steps) {
    if (!command) continue;
    ports.progress({ phase, side: tree.side, message: command });
    const logFile = join(options.logDir, `${tree.side}-${phase}.log`);
    const result = await runShell(command, { cwd: dir, env: options.env, logFile, tracker: options.tracker, timeoutMs: options.timeoutMs ?? 15 * 60_000 });
    if (result.code !== 0) {
      const how = result.timedOut ? 'timed out' : result.signal ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
      throw new SetupError(
        `${phase} of the ${tree.side} tree (${tree.ref}@${tree.sha.slice(0, 7)}) failed: \`${command}\` ${how}. ` +
          `Fix the command (service.${phase} in perfgate.yml) or the project. Log: ${logFile}\n${explainLog(logFile, 15)}`,
      );
    }
  }
}

/**
 * Copies base's node_modules into head's service directory (copyableInstall said it may), and
 * says so in head's install log; false, with nothing left behind, when there is nothing to copy
 * or the copy would link into base's tree (an absolute symbolic link): then head installs as usual.
 */
function copyInstall(from: { dir: string; root: string }, dir: string, tree: Tree, logDir: string, ports: EnginePorts): boolean {
  const started = Date.now();
  const target = join(dir, 'node_modules');
  // Base's install made none (nothing to install), or head's tree has its own: head installs.
  if (!existsSync(join(from.dir, 'node_modules')) || existsSync(target)) return false;
  ports.progress({ phase: 'install', side: tree.side, message: "a copy of base's node_modules" });
  cpSync(join(from.dir, 'node_modules'), target, { recursive: true, verbatimSymlinks: true });
  const links = linksInto(target, from.root);
  const log = join(logDir, `${tree.side}-install.log`);
  if (links.length > 0) {
    rmSync(target, { recursive: true, force: true });
    writeFileSync(log, `not copied from base (${links[0]} links into base's tree): installing\n`);
    return false;
  }
  writeFileSync(log, `npm ci not run: package.json, the lockfile, .npmrc and the install command are base's, so node_modules is a copy of base's (${Date.now() - started} ms)\n`);
  ports.logger.info(`head's node_modules copied from base's install (same package.json, lockfile and npm ci; ${Date.now() - started} ms)`);
  return true;
}
