/**
 * The run environment both shells measure in (compare/environment.ts): what Ctrl-C or a
 * cancelled job does to a run's processes, and that a finished run gives the signals back.
 * The CLI's exit status on a signal is proven end to end by test/integration/signals.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { openRunEnvironment } from '../../src/compare/environment.js';
import { RUN_MARKER_VAR, sleep } from '../../src/engine/process/processes.js';
import { alive } from '../helpers/processes.js';

/** The SIGINT and SIGTERM handlers `open` adds, called as the process would call them on the signal. */
function openCatchingHandlers<T>(open: () => T): { opened: T; deliver(signal: NodeJS.Signals): void } {
  const before = { SIGINT: new Set(process.listeners('SIGINT')), SIGTERM: new Set(process.listeners('SIGTERM')) };
  const opened = open();
  const added = (signal: 'SIGINT' | 'SIGTERM') => process.listeners(signal).filter((l) => !before[signal].has(l));
  assert.equal(added('SIGINT').length, 1, 'one SIGINT handler while the run is open');
  assert.equal(added('SIGTERM').length, 1, 'one SIGTERM handler while the run is open');
  return { opened, deliver: (signal) => (added(signal as 'SIGINT' | 'SIGTERM')[0] as (s: NodeJS.Signals) => void)(signal) };
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await sleep(25);
  }
  return !alive(pid);
}

test('SIGTERM during a run: the run is cancelled, its process groups stop at once, and once closed the signals are the process\'s own again', async (t) => {
  const listeners = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
  const { opened: environment, deliver } = openCatchingHandlers(() => openRunEnvironment({ boundary: 'off', env: { PATH: process.env.PATH } }));
  const service = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  await once(service, 'spawn');
  t.after(() => service.kill('SIGKILL'));
  environment.tracker.add(service.pid!);
  assert.equal(environment.cancelledBy(), null);

  deliver('SIGTERM');
  assert.equal(environment.signal.aborted, true, 'the engine sees the cancellation');
  assert.equal(environment.cancelledBy(), 'SIGTERM', 'the CLI exits 143 on it');
  assert.ok(await gone(service.pid!, 3000), 'the service group is stopped without waiting for the engine to unwind');

  await environment.close();
  assert.deepEqual({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') }, listeners);
});

test('a process that left its group but carries the run\'s marker is stopped on Ctrl-C too', async (t) => {
  const marker = '7e57c0de-0000-4000-8000-000000000001';
  const { opened: environment, deliver } = openCatchingHandlers(() => openRunEnvironment({ boundary: 'off', marker, env: { PATH: process.env.PATH } }));
  t.after(() => environment.close());
  assert.equal(environment.env[RUN_MARKER_VAR], marker, "the user's processes start with the marker");
  // Started from the run's environment but never tracked: as a daemon that setsid'd away from its service's group.
  const escaped = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', env: environment.env as NodeJS.ProcessEnv });
  await once(escaped, 'spawn');
  t.after(() => escaped.kill('SIGKILL'));

  deliver('SIGINT');
  assert.equal(environment.cancelledBy(), 'SIGINT');
  assert.ok(await gone(escaped.pid!, 3000), 'found by its marker and stopped');
});
