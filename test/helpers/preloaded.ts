/**
 * A service under perfgate's preload, reporting to a health channel the test holds, as a start
 * of a run would: for tests that look at what the preload reports without a whole run.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HealthChannel } from '../../src/engine/service/health.js';
import { type ProcessTracker, sleep, startProcess } from '../../src/engine/process/processes.js';
import { preloadPath } from '../../src/engine/service/service.js';

/** `node --require <preload> ...args` in `dir`; resolves once it has printed PORT=<n> and connected. */
export async function startPreloaded(
  dir: string,
  args: string[],
  env: Record<string, string>,
  channel: HealthChannel,
  tracker: ProcessTracker,
  timeoutMs = 10_000,
): Promise<{ port: number; logFile: string }> {
  const logFile = join(dir, 'out.log');
  startProcess(process.execPath, ['--require', preloadPath(), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PERFGATE_HEALTH_SOCKET: channel.socketPath, ...env },
    logFile,
    tracker,
  });
  let port = 0;
  for (const deadline = Date.now() + timeoutMs; (port === 0 || channel.connected < 1) && Date.now() < deadline; await sleep(20)) {
    port = Number(/PORT=(\d+)/.exec(readFileSync(logFile, 'utf8'))?.[1] ?? 0);
  }
  assert.ok(port > 0 && channel.connected === 1, `the service started and connected: ${readFileSync(logFile, 'utf8')}`);
  return { port, logFile };
}
