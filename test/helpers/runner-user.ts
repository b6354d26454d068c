/**
 * A user like GitHub's hosted runners' `runner`: unprivileged, with passwordless sudo. Tests that
 * run perfgate the way those runners do (the step as that user, the boundary made through
 * `sudo -n`) create it once; they need root for that, and Debian's sudo (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  assert.ok(existsSync(SUDO), `${SUDO} is missing: install Debian's sudo package (.ci/run does)`);
  const home = `/var/lib/${NAME}`;
  try {
    execFileSync('id', ['-u', NAME], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--create-home', '--home-dir', home, '--shell', '/bin/sh', NAME]);
  }
  writeFileSync(`/etc/sudoers.d/${NAME}`, `${NAME} ALL=(ALL) NOPASSWD: ALL\n`, { mode: 0o440 });
  const id = (flag: string) => Number(execFileSync('id', [flag, NAME], { encoding: 'utf8' }).trim());
  return { name: NAME, uid: id('-u'), gid: id('-g'), home };
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
