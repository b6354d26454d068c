/**
 * The interference check against a real process perfgate "started": untouched, it finds nothing;
 * stopped, reniced, re-pinned or moved to another scheduling policy by another process, it names the pid and what changed; a stray
 * CPU figure over the limit stops the run, one under it does not.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { setPriority } from 'node:os';
import { test } from 'node:test';
import { InterferenceError } from '../../src/engine/errors.js';
import { assertNoStrayCpu, assertUntouched, expectedNow, findInterference } from '../../src/engine/process/interference.js';
import { type HeadIdentity, sleep } from '../../src/engine/process/processes.js';

const linux = process.platform === 'linux';

function started() {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  return { child, start: { side: 'base' as const, start: 1, pgid: child.pid!, cpus: undefined } };
}

test('an untouched start has no finding; stopped and reniced, each is named with its pid', { skip: !linux }, async (t) => {
  const { child, start } = started();
  t.after(() => child.kill('SIGKILL'));
  const expected = expectedNow(null, 'shared');
  await sleep(50);
  assert.deepEqual(findInterference([start], expected), []);
  process.kill(child.pid!, 'SIGSTOP');
  await sleep(50);
  assert.deepEqual(findInterference([start], expected), [`base's start 2, pid ${child.pid} was stopped (SIGSTOP, SIGTSTP or a debugger)`]);
  process.kill(child.pid!, 'SIGCONT');
  setPriority(child.pid!, expected.nice + 5);
  await sleep(50);
  assert.throws(
    () => assertUntouched([start], expected, 'in block 1 of 1'),
    (e: Error) => e instanceof InterferenceError && e.message.includes(`pid ${child.pid} ran at nice ${expected.nice + 5} (perfgate started it at ${expected.nice})`),
  );
});

test('the message says who could have made the change: the pull request\'s code as the same user (and why), or, where head has its own user, only perfgate\'s user or root', { skip: !linux }, async (t) => {
  const { child, start } = started();
  t.after(() => child.kill('SIGKILL'));
  process.kill(child.pid!, 'SIGSTOP');
  await sleep(50);
  const said = (head: HeadIdentity) => {
    try {
      assertUntouched([start], expectedNow(null, head), 'in block 1 of 1');
    } catch (e) {
      assert.ok(e instanceof InterferenceError);
      return e.message;
    }
    assert.fail('the stopped start was not found');
  };
  assert.match(said('shared'), /runs as the same user as base's service \(perfgate gives it a user of its own only inside a boundary: the action's, or the CLI's with --boundary\) and can stop it/);
  assert.match(said('shared-in-boundary'), /runs as the same user as base's service here \(inside the boundary, but no user of its own could be made for it\) and can stop it/);
  const own = said('own-user');
  assert.match(own, /Head's code runs as its own user \(perfgate-head\): it can change its own starts, not base's, which .* only by a process of that user or root/);
  assert.doesNotMatch(own, /same user/);
});

test('a start pinned to other CPUs than perfgate gave it is named', { skip: !linux || spawnSync('taskset', ['-V']).status !== 0 }, async (t) => {
  const { child, start } = started();
  t.after(() => child.kill('SIGKILL'));
  const expected = expectedNow(null, 'shared');
  const [first] = expected.cpus.split(',');
  // Perfgate "gave" it every CPU it has; a narrower list is a change (with one CPU, give it a CPU it cannot have).
  const given = expected.cpus.includes(',') ? expected.cpus : `${Number(first) + 1}`;
  spawnSync('taskset', ['-p', '-c', first!, String(child.pid)], { stdio: 'ignore' });
  const found = findInterference([{ ...start, cpus: given }], expected);
  assert.deepEqual(found, [`base's start 2, pid ${child.pid} was allowed CPUs ${first} (perfgate gave it ${given})`]);
});

test('a start moved to SCHED_IDLE or SCHED_BATCH is named, each with its pid', { skip: !linux || spawnSync('chrt', ['--version']).status !== 0 }, async (t) => {
  const expected = expectedNow(null, 'shared');
  assert.equal(expected.policy, 0, 'perfgate itself runs under SCHED_OTHER here');
  for (const [flag, name] of [
    ['--idle', 'SCHED_IDLE'],
    ['--batch', 'SCHED_BATCH'],
  ] as const) {
    const { child, start } = started();
    t.after(() => child.kill('SIGKILL'));
    await sleep(20);
    assert.deepEqual(findInterference([start], expected), []);
    assert.equal(spawnSync('chrt', [flag, '-p', '0', String(child.pid)]).status, 0);
    assert.deepEqual(findInterference([start], expected), [
      `base's start 2, pid ${child.pid} ran under the scheduling policy ${name} (perfgate started it under SCHED_OTHER)`,
    ]);
  }
});

test('stray CPU over a tenth of a core stops the run; under it, it does not', () => {
  assert.doesNotThrow(() => assertNoStrayCpu(10.2, 10, 3, 'in block 1 of 2'));
  assert.throws(() => assertNoStrayCpu(11.1, 10, 3, 'in block 1 of 2'), /used 37% of a core in block 1 of 2 \(1\.10 CPU s over 3\.0 s; limit 10%\)/);
});
