import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { groupsCpuSeconds, serviceProcesses } from '../../src/engine/process/proc-cpu.js';
import { groupRssBytes } from '../../src/engine/process/proc-memory.js';

// A parent that starts its worker detached, in a session and group of its own, as PM2's fork
// mode does; the worker burns 300 ms of CPU, says so, and waits.
const WORKER = "while (process.cpuUsage().user < 300000); console.log('busy done'); setInterval(() => {}, 1000);";
const PARENT = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(WORKER)}], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1000);`;

test("a worker that left the service's process group is still the service's: its CPU time and memory count", async () => {
  const parent = spawn(process.execPath, ['-e', PARENT], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  let worker: number | undefined;
  try {
    await once(parent.stdout!, 'data');
    const processes = serviceProcesses(parent.pid!)!;
    assert.equal(processes.size, 2, 'the parent and its detached worker');
    worker = [...processes.keys()].find((pid) => pid !== parent.pid)!;
    assert.notEqual(Number(processes.get(worker)![2]), parent.pid, 'the worker is in a group of its own');
    const [cpu] = groupsCpuSeconds([parent.pid!]);
    assert.ok(cpu! >= 0.3, `${cpu} s of CPU`);
    // two Node.js processes: more than the parent's own resident set (tens of MB each)
    const parentRss = Number(readFileSync(`/proc/${parent.pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)![1]) * 1024;
    assert.ok(groupRssBytes(parent.pid!)! > parentRss + 10 * 1024 * 1024, `${groupRssBytes(parent.pid!)} bytes, the parent ${parentRss}`);
  } finally {
    // the worker is in a group of its own, and holds this process's stdout open until it ends
    if (worker) process.kill(worker, 'SIGKILL');
    process.kill(-parent.pid!, 'SIGKILL');
  }
});
