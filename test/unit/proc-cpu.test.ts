import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { groupsCpuSeconds, serviceProcesses } from '../../src/engine/process/proc-cpu.js';
import { groupRssBytes } from '../../src/engine/process/proc-memory.js';

// A parent that starts its worker detached, in a session and group of its own, as PM2's fork
// mode does; the worker burns 300 ms of CPU, says so, and waits.
const WORKER = "while (process.cpuUsage().user < 300000); console.log('busy done'); setInterval(() => {}, 1000);";
const PARENT = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(WORKER)}], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1000);`;

test("a worker that left the service's process group is still the service's: its CPU time and memory count", async () => {
  const parent = spawn(process.execPath, ['-e', PARENT], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await once(parent.stdout!, 'data');
    const processes = serviceProcesses(parent.pid!)!;
    assert.equal(processes.size, 2, 'the parent and its detached worker');
    const worker = [...processes.keys()].find((pid) => pid !== parent.pid)!;
    assert.notEqual(Number(processes.get(worker)![2]), parent.pid, 'the worker is in a group of its own');
    const [cpu] = groupsCpuSeconds([parent.pid!]);
    assert.ok(cpu! >= 0.3, `${cpu} s of CPU`);
    // two Node.js processes: more than one's resident set (tens of MB each)
    const oneNode = process.memoryUsage().rss / 2;
    assert.ok(groupRssBytes(parent.pid!)! > oneNode + 10 * 1024 * 1024, `${groupRssBytes(parent.pid!)} bytes`);
    process.kill(worker, 'SIGKILL');
  } finally {
    process.kill(-parent.pid!, 'SIGKILL');
  }
});
