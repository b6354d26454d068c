/**
 * The user head's code runs as: a system user of its own (`perfgate-head`), with no sudo rights,
 * no login shell and a home perfgate makes for the run. The boundary's cgroup keeps head's
 * processes where perfgate can stop them; this user keeps them out of what the runner's user
 * owns: perfgate's process (its /proc/<pid>/environ, its signals), the runner's file commands
 * (GITHUB_OUTPUT, GITHUB_ENV …), base's processes and base's files, and the boundary's own
 * cgroup.procs files, which are the runner's (so head cannot leave `pr`), and `sudo`, which asks
 * this user for a password it has none of. Base is the target branch's code and stays the
 * runner's.
 *
 * Changing user needs privilege at every start: as root, `setpriv` directly; otherwise through
 * `sudo -n`, as the boundary is made. sudo resets the environment (env_reset, secure_path), so
 * the environment perfgate built is handed over explicitly (`env -i NAME=value …`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ownEnv, programPathOrNull } from './programs.js';

/** The user's name: one per machine, reused by every run. */
export const HEAD_USER = 'perfgate-head';

/** What a run's home for the user is named, in TMPDIR (mkdtemp adds six characters). */
const HOME_PREFIX = 'perfgate-head-home-';

const SETPRIV = '/usr/bin/setpriv';
const ENV = '/usr/bin/env';
const KILL = '/bin/kill';

export interface HeadUser {
  name: string;
  uid: number;
  gid: number;
  /** Its home for this run (npm's cache, ~/.config …), empty at the start. */
  home: string;
  /** For the log and the report. */
  description: string;
  /** The program and arguments that run `file args` as the user with `env` as its whole environment. */
  command(file: string, args: readonly string[], env: Record<string, string>): [string, string[]];
  /** The environment head's processes get: `env` with the user's home. */
  env(env: Record<string, string>): Record<string, string>;
  /** Gives files and directories (recursively) to the user; perfgate still reads them. */
  give(paths: readonly string[]): void;
  /** Takes back what `give` gave (all of it when `paths` is unset), so perfgate can remove it. */
  reclaim(paths?: readonly string[]): void;
  /** Takes everything back and removes the home. */
  close(): void;
  /**
   * Sends `signal` to process group `pgid` as the user. perfgate's user may not signal the user's
   * processes: sudo relays a signal to the one process it started, and a service started through
   * `sh -c` leaves its node behind when sh dies of it. Nothing to do when perfgate is root.
   */
  signalGroup(pgid: number, signal: NodeJS.Signals): Promise<void>;
}

interface Privilege {
  /** Runs a command as root (directly, or through sudo -n); the error's text, or null. */
  run(file: string, args: readonly string[]): string | null;
  /** The prefix that runs a command as root at a start. */
  prefix: string[];
}

function privilege(sudo: string | null): Privilege | null {
  if (process.getuid?.() === 0) {
    return { run: (file, args) => failure(spawnSync(file, args, { encoding: 'utf8', env: ownEnv(), timeout: 60_000 })), prefix: [] };
  }
  if (!sudo) return null;
  return { run: (file, args) => failure(spawnSync(sudo, ['-n', file, ...args], { encoding: 'utf8', env: ownEnv(), timeout: 60_000 })), prefix: [sudo, '-n'] };
}

function failure(result: ReturnType<typeof spawnSync>): string | null {
  if (result.status === 0) return null;
  return String(result.stderr || result.error?.message || `exit ${result.status}`).trim();
}

function idOf(flag: '-u' | '-g' | '-G'): string | null {
  const result = spawnSync('id', [flag, HEAD_USER], { encoding: 'utf8', env: ownEnv() });
  return result.status === 0 ? result.stdout.trim() : null;
}

/**
 * Makes (or reuses) the user and a home for this run. Returns why not where it cannot: not
 * Linux, neither root nor `sudo -n`, no setpriv, or an existing `perfgate-head` that is root or
 * in a group besides its own (a group such as `sudo` would give head's code the powers this
 * user is there to withhold).
 */
export function openHeadUser(sudo: string | null): HeadUser | { unavailable: string } {
  if (process.platform !== 'linux') return { unavailable: `${process.platform} is not supported` };
  const root = privilege(sudo);
  if (!root) return { unavailable: 'making and changing to another user needs root, and sudo was not found' };
  if (spawnSync(SETPRIV, ['--version'], { stdio: 'ignore' }).status !== 0) return { unavailable: `${SETPRIV} (util-linux) is missing` };
  if (idOf('-u') === null) {
    const made = root.run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', HEAD_USER]);
    if (made !== null) return { unavailable: `cannot make the user ${HEAD_USER}${root.prefix.length ? ' with sudo -n' : ''}: ${made}` };
  }
  const uid = Number(idOf('-u'));
  const gid = Number(idOf('-g'));
  const groups = (idOf('-G') ?? '').split(/\s+/).filter(Boolean);
  if (!(uid > 0) || groups.some((g) => Number(g) !== gid)) {
    return { unavailable: `the existing user ${HEAD_USER} is root or in other groups (${groups.join(' ')}): remove it (userdel ${HEAD_USER}) and perfgate makes it again` };
  }
  const home = mkdtempSync(join(tmpdir(), HOME_PREFIX));
  chmodSync(home, 0o755);
  const owner = `${process.getuid?.()}:${process.getgid?.()}`;
  const given = new Set<string>();
  const user: HeadUser = {
    name: HEAD_USER,
    uid,
    gid,
    home,
    description: `${HEAD_USER} (uid ${uid}), home ${home}`,
    // As root the environment is spawn's; through sudo (which replaces it) it is env -i's arguments.
    command: (file, args, env) =>
      root.prefix.length === 0
        ? [SETPRIV, [...dropTo(uid, gid), file, ...args]]
        : [root.prefix[0]!, [...root.prefix.slice(1), ENV, '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), SETPRIV, ...dropTo(uid, gid), file, ...args]],
    env: (env) => ({ ...env, HOME: home, USER: HEAD_USER, LOGNAME: HEAD_USER }),
    give(paths) {
      if (paths.length === 0) return;
      const error = root.run('chown', ['-R', '--no-dereference', `${uid}:${gid}`, '--', ...paths]);
      if (error !== null) throw new Error(`cannot give ${paths.join(', ')} to ${HEAD_USER}: ${error}`);
      for (const path of paths) given.add(path);
      for (const path of paths) openWayTo(path);
    },
    reclaim(paths) {
      const back = (paths ?? [...given]).filter((p) => given.has(p));
      for (const path of back) given.delete(path);
      // Not thrown: a run that ends keeps its outcome; what stays head's user's is said where perfgate fails to remove it.
      if (back.length > 0) root.run('chown', ['-R', '--no-dereference', owner, '--', ...back]);
    },
    close() {
      user.reclaim();
      rmSync(home, { recursive: true, force: true });
    },
    signalGroup(pgid, signal) {
      if (root.prefix.length === 0) return Promise.resolve();
      const [file, args] = user.command(KILL, ['-s', signal.replace(/^SIG/, ''), '--', `-${pgid}`], { PATH: '/usr/bin:/bin' });
      return new Promise((resolve) => {
        const child = spawn(file, args, { stdio: 'ignore', env: ownEnv(), timeout: 10_000 });
        child.once('error', () => resolve());
        child.once('close', () => resolve());
      });
    },
  };
  // The node perfgate found first on PATH is the one it asked what the services' node allows
  // (--cpu-prof in NODE_OPTIONS): head's user must reach it too, or its PATH falls through to
  // another node (one in a 0700 directory of the step's user is skipped).
  const node = programPathOrNull('node');
  if (node) for (const path of new Set([node, realpathSync(node)])) openWayTo(path);
  try {
    user.give([home]);
  } catch (e) {
    rmSync(home, { recursive: true, force: true });
    return { unavailable: (e as Error).message };
  }
  return user;
}

/** Whether `path` names a run's home for head's user: an absolute path to a directory named as openHeadUser names one. */
export function isHeadHome(path: string): boolean {
  return resolve(path) === path && new RegExp(`^${HOME_PREFIX}[A-Za-z0-9]{6}$`).test(basename(path));
}

/**
 * Removes the home a run that was killed left (it could not close its user). What is in it is
 * head's user's: removed as root, directly or through `sudo -n`, where perfgate's user cannot.
 * A path not named as a home, or not a directory (a symbolic link), is left alone ('kept').
 */
export function removeHeadHome(path: string, sudo: string | null): 'removed' | 'absent' | 'kept' {
  const isDirectory = () => {
    try {
      return lstatSync(path).isDirectory() ? true : null;
    } catch {
      return false;
    }
  };
  const found = isDirectory();
  if (found === false) return 'absent';
  if (!isHeadHome(path) || found === null) return 'kept';
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    privilege(sudo)?.run('rm', ['-rf', '--one-file-system', '--', path]);
  }
  return isDirectory() === false ? 'removed' : 'kept';
}

/** setpriv's arguments: the user's ids, no supplementary groups, no new privileges (sudo in head's code is refused). */
function dropTo(uid: number, gid: number): string[] {
  return ['--reuid', String(uid), '--regid', String(gid), '--clear-groups', '--no-new-privs', '--'];
}

/**
 * Lets other users pass through the directories above `path` that perfgate's user owns (search,
 * o+x: not list), as a run's output directory made by mkdtemp (0700) is not: head's user reaches
 * what it was given by its path, and nothing else there that is not readable by all. Base's tree
 * and outputs stay perfgate's user's, readable as before and writable by it alone.
 */
function openWayTo(path: string): void {
  const own = process.getuid?.();
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const stats = statSync(dir);
      if ((stats.mode & 0o001) === 0 && stats.uid === own) chmodSync(dir, (stats.mode & 0o7777) | 0o001);
    } catch {
      return;
    }
  }
}
