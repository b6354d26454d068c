// lane: beside — it tests a start's environment, with no load.
/**
 * What every start of a service gets in its environment that is about the start alone: a
 * PM2_HOME of its own (PM2 keeps its daemon's sockets there; starts that share one talk to one
 * daemon, docs/process-managers.md), removed when the start stops, unless service.env sets one.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ServiceConfig } from '../../src/config/types.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import { Service } from '../../src/engine/service/service.js';

// Records its PM2_HOME, and whether that directory exists, once it listens.
const SERVER = `const fs = require('node:fs');
require('node:http').createServer((_req, res) => res.end('ok')).listen(3000, () => {
  fs.writeFileSync(process.env.RECORD, JSON.stringify({ home: process.env.PM2_HOME, exists: fs.existsSync(process.env.PM2_HOME || '/nonexistent') }));
});
`;

async function startOnce(dir: string, start: number, env: Record<string, string> = {}): Promise<{ home: string; exists: boolean }> {
  const record = join(dir, `record-${start}.json`);
  const config: ServiceConfig = { install: '', build: null, setup: null, start: 'node server.js', cwd: '.', env: { RECORD: record, ...env }, ready: { path: null, timeoutMs: 10_000 } };
  const tracker = new ProcessTracker();
  const service = await Service.start({
    side: 'base',
    start,
    config,
    dir,
    env: { PATH: process.env.PATH ?? '' },
    logFile: join(dir, `service-${start}.log`),
    statusFile: join(dir, `service-${start}.status`),
    tracker,
  });
  try {
    await service.waitReady();
    for (let i = 0; i < 100 && !existsSync(record); i++) await new Promise((r) => setTimeout(r, 20));
    return JSON.parse(readFileSync(record, 'utf8'));
  } finally {
    await service.stop();
    await tracker.killAll();
  }
}

test('every start gets an empty PM2_HOME of its own, removed when it stops; one in service.env is kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-service-env-'));
  writeFileSync(join(dir, 'server.js'), SERVER);
  const [first, second] = await Promise.all([startOnce(dir, 0), startOnce(dir, 1)]);
  assert.ok(first.exists && second.exists, 'the directory is there while the start runs');
  assert.notEqual(first.home, second.home, 'two starts at once, two homes');
  assert.equal(existsSync(first.home), false, 'removed at stop');
  assert.equal(existsSync(second.home), false, 'removed at stop');
  const own = join(dir, 'pm2-home');
  const configured = await startOnce(dir, 2, { PM2_HOME: own });
  assert.equal(configured.home, own);
});
