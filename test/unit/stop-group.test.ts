/**
 * Stopping a service's process group: a member that exited but waits to be reaped (a zombie) is
 * no longer running, so a stop does not wait for whoever reaps it (an init that reaps orphans once
 * a second, or never).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { groupAlive, stopGroup } from '../../src/engine/process/processes.js';

/**
 * A group whose only member is a zombie: python forks a child that leads a group of its own and
 * exits at once; python never waits for it, so the child stays a zombie while python lives.
 */
async function zombieGroup(): Promise<{ pgid: number; parent: ReturnType<typeof spawn> }> {
  const parent = spawn('python3', ['-c', 'import os,time\npid=os.fork()\nif pid==0:\n  os.setpgid(0,0)\n  os._exit(0)\ntime.sleep(0.2)\nprint(pid,flush=True)\ntime.sleep(30)'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  return { pgid: Number(line.toString()), parent };
}

test('a group whose members have all exited is not alive, though they are not reaped yet', async () => {
  const { pgid, parent } = await zombieGroup();
  try {
    assert.ok(pgid > 1, 'the child was forked');
    // the zombie is still there for the kernel: kill(-pgid, 0) finds it
    assert.doesNotThrow(() => process.kill(-pgid, 0));
    assert.equal(groupAlive(pgid), false);
    const started = Date.now();
    await stopGroup(pgid, 5000);
    assert.ok(Date.now() - started < 1000, 'the stop did not wait out its grace');
  } finally {
    parent.kill('SIGKILL');
  }
});

test('a group with a running member is alive until it is stopped', async () => {
  const child = spawn('sh', ['-c', 'sleep 30; :'], { detached: true, stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  assert.equal(groupAlive(child.pid!), true);
  await stopGroup(child.pid!, 2000);
  assert.equal(groupAlive(child.pid!), false);
});

test('a stopped group (SIGSTOP) is continued after its SIGTERM, so it ends by that, without waiting out the grace', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  process.kill(-child.pid!, 'SIGSTOP');
  const started = Date.now();
  await stopGroup(child.pid!, 10_000);
  assert.equal(await exited, 'SIGTERM', 'ended by SIGTERM, not the SIGKILL after the grace');
  assert.ok(Date.now() - started < 5000, `the stop took ${Date.now() - started} ms of a 10 s grace`);
});
