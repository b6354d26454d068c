import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { HealthChannel } from '../../src/engine/service/health.js';
import { exitOf, ProcessTracker, sleep, startProcess } from '../../src/engine/process/processes.js';
import { preloadPath } from '../../src/engine/service/service.js';

/** A node process running `script` with perfgate's preload, connected to `channel`. */
function startNode(channel: HealthChannel, script: string, tracker: ProcessTracker) {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-channel-'));
  const logFile = join(dir, 'out.log');
  const child = startProcess(process.execPath, ['--require', preloadPath(), '-e', script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PERFGATE_HEALTH_SOCKET: channel.socketPath },
    logFile,
    tracker,
  });
  return { child, log: () => readFileSync(logFile, 'utf8') };
}

async function waitConnected(channel: HealthChannel, count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (channel.connected < count && Date.now() < deadline) await sleep(20);
  assert.equal(channel.connected, count, 'processes connected to the health socket');
}

test('one window: the process measures its loop, GC and heap between begin and end, and reports once', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    // allocates steadily (GCs) and stalls its loop for ~250 ms once: longer than a busy machine
    // keeps a process off the CPU, so the second window, without the stall, reads shorter delays
    const { child } = startNode(
      channel,
      `let keep = [];
       setInterval(() => { for (let i = 0; i < 20000; i++) keep.push({ i }); if (keep.length > 200000) keep = []; }, 5);
       setTimeout(() => { const t = Date.now(); while (Date.now() - t < 250); }, 300);`,
      tracker,
    );
    await waitConnected(channel, 1);
    const id = await channel.begin();
    await sleep(700);
    const { processes, missing } = await channel.end(id);
    assert.equal(missing, 0);
    assert.equal(processes.length, 1);
    const report = processes[0]!;
    assert.equal(report.pid, child.pid);
    assert.equal(report.worker, false);
    assert.ok(report.windowMs > 500 && report.windowMs < 2000, `window ${report.windowMs} ms`);
    assert.ok(report.eventLoopDelayUs!.max > 200_000, `the 250 ms stall shows: max ${report.eventLoopDelayUs!.max} µs`);
    assert.ok(report.eventLoopDelayUs!.p50 < 20_000, 'a typical iteration is short');
    assert.ok(report.eventLoopUtilization > 0.15 && report.eventLoopUtilization <= 1);
    assert.ok(report.gc.minor.count > 0 && report.gc.minor.ms > 0, 'scavenges counted');
    assert.ok(report.heapAfterGcBytes! > 0 && report.heapAfterGcBytes! <= report.heapUsedBytes * 2);
    assert.ok(report.rssBytes > report.heapUsedBytes);
    assert.ok(report.activeHandles >= 1, 'the interval keeps the loop alive');
    // a second window starts from zero
    const second = await channel.begin();
    await sleep(150);
    const again = (await channel.end(second)).processes[0]!;
    assert.ok(again.eventLoopDelayUs!.max < 200_000, `the stall was in the first window only: max ${again.eventLoopDelayUs!.max} µs`);
    // an end for a window that is over gets no answer (and does not wait for one)
    const stale = await channel.end(id);
    assert.deepEqual(stale, { processes: [], missing: 0 });
  } finally {
    await tracker.killAll();
    channel.close();
  }
});

test('a service that does not read: begin and end give up at their timeouts, the run goes on', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    startNode(channel, 'setTimeout(() => { const t = Date.now(); while (Date.now() - t < 20000); }, 300);', tracker);
    await waitConnected(channel, 1);
    await sleep(500); // now its loop is stuck for 20 s
    const started = Date.now();
    const id = await channel.begin();
    assert.ok(Date.now() - started < 2000, 'begin waited at most its timeout');
    const ended = Date.now();
    const reports = await channel.end(id);
    assert.ok(Date.now() - ended < 6000, 'end waited at most its timeout');
    assert.deepEqual(reports, { processes: [], missing: 0 }, 'it never opened the window: nothing to wait for, nothing missing');
  } finally {
    await tracker.killAll();
    channel.close();
  }
});

test('the socket never keeps a service alive, and the service outlives the engine closing it', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    const done = startNode(channel, 'setTimeout(() => console.log("done"), 300);', tracker);
    await waitConnected(channel, 1);
    const [code] = await exitOf(done.child);
    assert.equal(code, 0, 'exited on its own: the unref\'d socket held nothing open');
    assert.match(done.log(), /done/);

    const lasting = startNode(channel, 'let n = 0; setInterval(() => { if (++n === 10) { console.log("still here"); process.exit(0); } }, 50);', tracker);
    await waitConnected(channel, 1);
    channel.close();
    const [lastingCode] = await exitOf(lasting.child);
    assert.equal(lastingCode, 0);
    assert.match(lasting.log(), /still here/);
  } finally {
    await tracker.killAll();
    channel.close();
  }
});

test('a window in which the loop never turned: the whole window is its delay, not a missing value', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    // one synchronous call after another, each 400 ms: the loop turns only between them
    startNode(channel, `function block() { const t = Date.now(); while (Date.now() - t < 400); setImmediate(block); } block();`, tracker);
    await waitConnected(channel, 1);
    const id = await channel.begin();
    await sleep(250);
    const report = (await channel.end(id)).processes[0]!;
    assert.ok(report.eventLoopDelayUs !== null, 'a blocked window still has an event-loop delay');
    assert.ok(report.eventLoopDelayUs.max > 200_000, `the 400 ms block shows: max ${report.eventLoopDelayUs.max} µs (${report.eventLoopDelayUs.samples} samples)`);
    assert.ok(report.eventLoopUtilization > 0.9, `the loop was busy: ${report.eventLoopUtilization}`);
  } finally {
    await tracker.killAll();
    channel.close();
  }
});
