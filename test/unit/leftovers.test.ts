import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isRunWorktree, removedText, startTicks } from '../../src/compare/leftovers.js';
import { isHeadHome, removeHeadHome } from '../../src/engine/process/head-user.js';

test("only a run's own worktrees under its run directory are removed after it was killed, never a worktree of the user's there", () => {
  const out = '/home/dev/app/.perfgate';
  assert.equal(isRunWorktree(out, '/home/dev/app/.perfgate/trees/base'), true);
  assert.equal(isRunWorktree(out, '/home/dev/app/.perfgate/trees/head'), true);
  assert.equal(isRunWorktree(out, '/home/dev/app/.perfgate/confirm/GET_users_42-2/tree/reverted'), true);
  // a record names its run directory, and code the run measured could have written the record
  assert.equal(isRunWorktree('/home/dev', '/home/dev/app-feature'), false);
  assert.equal(isRunWorktree(out, '/home/dev/app/.perfgate/trees/feature'), false);
  assert.equal(isRunWorktree(out, '/home/dev/app/.perfgate'), false);
  assert.equal(isRunWorktree(out, '/home/dev/app/other/trees/base'), false);
});

test("a process's start time tells a reused pid from the run that recorded it", () => {
  assert.match(startTicks(process.pid) ?? '', /^\d+$/);
  assert.equal(startTicks(2 ** 22 + 1), null, 'no such process');
});

test("a killed run's home for head's user is removed by its name, and nothing else its record could name", () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-homes-'));
  try {
    const home = join(dir, 'perfgate-head-home-a1B2c3');
    mkdirSync(join(home, '.npm', '_cacache'), { recursive: true });
    writeFileSync(join(home, '.npm', '_cacache', 'index'), 'x');
    assert.equal(isHeadHome(home), true);
    assert.equal(removeHeadHome(home, null), 'removed');
    assert.equal(existsSync(home), false);
    assert.equal(removeHeadHome(home, null), 'absent');
    // a record is a file in the git directory, which code the run measured could have written
    const other = join(dir, 'project');
    mkdirSync(other);
    assert.equal(isHeadHome(other), false);
    assert.equal(removeHeadHome(other, null), 'kept');
    assert.equal(isHeadHome(`${dir}/x/../perfgate-head-home-a1B2c3`), false, 'a path that is not plain');
    assert.equal(isHeadHome('perfgate-head-home-a1B2c3'), false, 'a relative path');
    const link = join(dir, 'perfgate-head-home-zzzzzz');
    symlinkSync(other, link);
    assert.equal(removeHeadHome(link, null), 'kept', 'a symbolic link named as a home');
    assert.equal(existsSync(other), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the line after a killed run names what was removed, and how to remove a home it could not", () => {
  const removed = { processes: 6, worktrees: 2, home: { path: '/tmp/perfgate-head-home-a1B2c3', outcome: 'removed' as const }, boundary: '/sys/fs/cgroup/perfgate-x' };
  assert.equal(removedText(removed), "stopped 6 processes, removed 2 worktrees, head's home /tmp/perfgate-head-home-a1B2c3, and its cgroup /sys/fs/cgroup/perfgate-x");
  assert.equal(
    removedText({ ...removed, processes: 1, boundary: null, home: { ...removed.home, outcome: 'kept' } }),
    "stopped 1 process, removed 2 worktrees, but could not remove head's home /tmp/perfgate-head-home-a1B2c3 (remove it as root: sudo rm -rf /tmp/perfgate-head-home-a1B2c3)",
  );
});
