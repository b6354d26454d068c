#!/usr/bin/env node
// What a slice that opens fresh connections measures, against a window of a load that keeps its
// connections (docs/calibration-log.md, "Fresh connections in every slice"). A benchmark, not a test.
//
//   node bench/connection-start.mjs [--kind cpu|http|express|fastify|io|cluster] [--windows 10] [--rounds 2]
//
// Two starts of the same calibration service (bench/services/<kind>, no added work), both pinned
// to CPU 1 and the load generator (autocannon, in this process) to CPU 0, as perfgate pins them
// on two cores. Each round measures `windows` 1 s windows of both at once, after 4 s of warm-up,
// in two ways, one after the other: "fresh" opens 10 new connections per service for every
// window (50 ms of lead, as perfgate's slices did until 2026-11-25) and "kept" counts every
// window on one load that runs on. It prints the windows' p99 and the spread (SD) of the
// head/base log-ratio of one window, for throughput and p99, per way.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const require = createRequire(join(root, 'package.json'));
const autocannon = require('autocannon');

const { values } = parseArgs({
  options: {
    kind: { type: 'string', default: 'cpu' },
    windows: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
  },
});
const WINDOWS = Number(values.windows);
const WARMUP = 4;
const CONNECTIONS = 10;
const LEAD_MS = 50;

const dir = mkdtempSync(join(tmpdir(), 'perfgate-connections-'));
cpSync(join(root, 'bench', 'services', values.kind), dir, { recursive: true });
cpSync(join(root, 'bench', 'services', 'work.js'), join(dir, 'work.js'));
writeFileSync(join(dir, 'work.json'), '{"extra": 0}\n');
if (values.kind === 'express' || values.kind === 'fastify') execFileSync('npm', ['ci', '--silent', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const sd = (v) => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1));
};

function load(port) {
  const run = { latencies: [], counting: false };
  run.instance = autocannon({ url: `http://127.0.0.1:${port}/json`, connections: CONNECTIONS, duration: WARMUP + WINDOWS + 60, sampleInt: 50 });
  run.instance.on('response', (_client, _status, _bytes, ms) => {
    if (run.counting) run.latencies.push(ms);
  });
  return run;
}

async function stop(runs) {
  for (const run of runs) run.instance.stop();
  await Promise.all(runs.map((run) => run.instance));
}

/** One 1 s window on `runs`: [{ rps, p99 }] per run. */
async function window(runs) {
  for (const run of runs) {
    run.latencies = [];
    run.counting = true;
  }
  const t0 = performance.now();
  await sleep(1000);
  for (const run of runs) run.counting = false;
  const seconds = (performance.now() - t0) / 1000;
  return runs.map((run) => ({ rps: run.latencies.length / seconds, p99: quantile([...run.latencies].sort((a, b) => a - b), 0.99) }));
}

async function measure(ports, way) {
  const windows = [];
  if (way === 'kept') {
    const runs = ports.map(load);
    await sleep(LEAD_MS);
    for (let w = 0; w < WARMUP + WINDOWS; w++) {
      const measured = await window(runs);
      if (w >= WARMUP) windows.push(measured);
    }
    await stop(runs);
  } else {
    for (let w = 0; w < WARMUP + WINDOWS; w++) {
      const runs = ports.map(load);
      await sleep(LEAD_MS);
      const measured = await window(runs);
      await stop(runs);
      if (w >= WARMUP) windows.push(measured);
    }
  }
  return windows;
}

execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const ports = [41731, 41732];
const services = [];
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const way of ['fresh', 'kept']) {
      // fresh starts for every way and round: a start's own offset is not what this measures
      for (const port of ports) {
        services.push(spawn('taskset', ['-c', '1', process.execPath, 'server.js'], { cwd: dir, env: { ...process.env, PORT: String(port), NODE_ENV: 'production' }, stdio: 'ignore' }));
      }
      await sleep(1500);
      const windows = await measure(ports, way);
      for (const service of services.splice(0)) service.kill();
      await sleep(300);
      const rps = windows.map(([a, b]) => Math.log(b.rps / a.rps));
      const p99 = windows.map(([a, b]) => Math.log(b.p99 / a.p99));
      console.log(
        `${values.kind} round ${round} ${way.padEnd(5)}: p99 ms ${windows.map(([a, b]) => `${a.p99.toFixed(0)}/${b.p99.toFixed(0)}`).join(' ')}; SD of one window's log-ratio: throughput ${(100 * sd(rps)).toFixed(1)}%, p99 ${(100 * sd(p99)).toFixed(1)}%`,
      );
    }
  }
} finally {
  for (const service of services) service.kill();
  rmSync(dir, { recursive: true, force: true });
}
