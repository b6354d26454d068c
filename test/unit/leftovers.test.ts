import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRunWorktree, startTicks } from '../../src/compare/leftovers.js';

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
