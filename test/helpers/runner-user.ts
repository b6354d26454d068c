/**
 * A user like GitHub's hosted runners' `runner`: unprivileged, with passwordless sudo. Tests that
 * run perfgate the way those runners do (the step as that user, the boundary made through
 * `sudo -n`) create it once; they need root for that, and Debian's sudo (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';

export interface RunnerUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

const NAME = 'perfgate-runner';
const SUDO = '/usr/bin/sudo';

/** True where the user can be made: Linux, as root. */
export const canMakeRunnerUser = process.platform === 'linux' && process.getuid?.() === 0;

/** The runner-like user, created when missing, with a sudoers rule like the runner image's. */
export function runnerUser(): RunnerUser {
  return runnerLike(NAME, 'ALL');
}

/**
 * A runner-like user whose sudo runs anything but chown, as a self-hosted runner's sudoers rule
 * may allow some programs and not others: perfgate makes its boundary (a script through
 * `sudo -n /bin/sh`) but cannot give head's user its files, so head's code runs as this user.
 */
export function runnerUserWithoutChown(): RunnerUser {
  return runnerLike(`${NAME}-nochown`, 'ALL, !/usr/bin/chown, !/bin/chown');
}

function runnerLike(name: string, commands: string): RunnerUser {
  assert.ok(existsSync(SUDO), `${SUDO} is missing: install Debian's sudo package (.ci/run does)`);
  const home = `/var/lib/${name}`;
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--create-home', '--home-dir', home, '--shell', '/bin/sh', name]);
  }
  writeFileSync(`/etc/sudoers.d/${name}`, `${name} ALL=(ALL) NOPASSWD: ${commands}\n`, { mode: 0o440 });
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { name, uid: id('-u'), gid: id('-g'), home };
}

/** Gives `dir` and everything in it to the user. */
export function giveTree(dir: string, user: RunnerUser): void {
  chownSync(dir, user.uid, user.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !entry.isSymbolicLink()) giveTree(path, user);
    else chownSync(path, user.uid, user.gid);
  }
}

/** The command prefix that runs a program as the user: no root left, only its own groups. */
export function asUser(user: RunnerUser): string[] {
  return ['setpriv', '--reuid', String(user.uid), '--regid', String(user.gid), '--init-groups', '--'];
}

/** A directory every user can read, and the files copied into it for another user to run. */
export interface SharedDir {
  dir: string;
  /** Puts `source` (a file or a directory tree) at `name` inside; returns its path there. */
  copy(name: string, source: string): string;
  /** Writes `text` to a file `name` inside; returns its path. */
  write(name: string, text: string): string;
  remove(): void;
}

/**
 * A place for what another user runs (the bundle, a Node binary, a script). The checkout may live
 * where no other user can reach it (a clone under a 0700 directory, as `mktemp -d` makes and many
 * homes are), so those files are copied out of it, into a new directory under the system's temp
 * directory that every user can read; `remove` deletes it. The temp directory must be one other
 * users can enter (the tests' repositories are made there too): checked here, up front.
 */
export function makeSharedDir(): SharedDir {
  const parent = realpathSync(tmpdir());
  for (let dir = parent; ; dir = dirname(dir)) {
    assert.ok(
      (statSync(dir).mode & 0o001) !== 0,
      `${dir} cannot be entered by other users, so the temp directory ${parent} is out of their reach: ` +
        'the tests that run code as another user need a temp directory they can enter (set TMPDIR to one such as /tmp)',
    );
    if (dir === parse(dir).root) break;
  }
  const dir = mkdtempSync(join(parent, 'perfgate-shared-'));
  chmodSync(dir, 0o755);
  const target = (name: string) => {
    const path = join(dir, name);
    for (let d = dirname(path); d !== dir && !existsSync(d); d = dirname(d)) {
      mkdirSync(d, { recursive: true });
      openUp(d);
    }
    return path;
  };
  return {
    dir,
    copy(name, source) {
      const path = target(name);
      placeReadable(realpathSync(source), path);
      return path;
    },
    write(name, text) {
      const path = target(name);
      writeFileSync(path, text);
      openUp(path);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Copies `source` to `path`, readable (and, where the owner may run it, runnable) by all. A file
 * every user can already read and run is hard-linked where the filesystem allows (a Node binary
 * is over 100 MB); its mode is left as it is, since a link shares it with the original.
 */
function placeReadable(source: string, path: string): void {
  const stats = statSync(source);
  if (stats.isFile() && (stats.mode & 0o005) === 0o005) {
    try {
      linkSync(source, path);
      return;
    } catch {
      // Another filesystem (EXDEV): copied below.
    }
  }
  if (stats.isDirectory()) cpSync(source, path, { recursive: true });
  else copyFileSync(source, path);
  openUp(path);
}

/** Adds read (and search, or run where the owner may run it) for all to a copy and everything in it. */
function openUp(path: string): void {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) return;
  const runnable = stats.isDirectory() || (stats.mode & 0o100) !== 0;
  chmodSync(path, (stats.mode & 0o7777) | 0o444 | (runnable ? 0o111 : 0));
  if (stats.isDirectory()) for (const entry of readdirSync(path)) openUp(join(path, entry));
}
