#!/usr/bin/env node
// How much one pair's throughput ratio moves, by how the pair is measured. Two starts of one
// calibration service (A/A), each warmed up, then `--pairs` pairs of 1 s slices, measured either
// one after the other (alternate, order swapped every pair) or both at once (simultaneous), with
// or without the load generator (this process) pinned to CPU 0 and both services to the others.
// Prints the spread of the pairs' log-ratios; a benchmark, not a test (docs/calibration.md).
//
//   node bench/pair-noise.mjs [--kind fastify] [--pairs 25] [--warmup 4] [--modes alternate,simultaneous] [--pin both|on|off]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({
  options: {
    kind: { type: 'string', default: 'fastify' },
    pairs: { type: 'string', default: '25' },
    warmup: { type: 'string', default: '4' },
    modes: { type: 'string', default: 'alternate,simultaneous' },
    pin: { type: 'string', default: 'both' },
  },
});

const dir = mkdtempSync(join(tmpdir(), 'perfgate-pair-noise-'));
cpSync(join(root, 'bench', 'services', values.kind), dir, { recursive: true });
cpSync(join(root, 'bench', 'services', 'work.js'), join(dir, 'work.js'));
writeFileSync(join(dir, 'work.json'), '{"extra": 0}\n');
execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent'], { cwd: dir, stdio: 'ignore' });

const cpus = execFileSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' }).split(':').pop().trim();
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sd = (v) => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1));
};
const load = async (port, seconds) => {
  const r = await autocannon({ url: `http://127.0.0.1:${port}/json`, connections: 10, duration: seconds });
  return r.requests.total / seconds;
};

async function measure(mode, pin) {
  execFileSync('taskset', ['-a', '-p', '-c', pin ? '0' : cpus, String(process.pid)], { stdio: 'ignore' });
  const services = pin ? cpus.replace(/^0,?/, '').replace(/^0-/, '1-') || '1' : cpus;
  const start = (port) =>
    spawn('taskset', ['-c', services, process.execPath, 'server.js'], { cwd: dir, env: { ...process.env, PORT: String(port), NODE_ENV: 'production' }, stdio: 'ignore' });
  const [a, b] = [start(3901), start(3902)];
  try {
    await new Promise((r) => setTimeout(r, 1000));
    await Promise.all([load(3901, Number(values.warmup)), load(3902, Number(values.warmup))]);
    const ratios = [];
    for (let i = 0; i < Number(values.pairs); i++) {
      let ra;
      let rb;
      if (mode === 'simultaneous') [ra, rb] = await Promise.all([load(3901, 1), load(3902, 1)]);
      else if (i % 2) [ra, rb] = [await load(3901, 1), await load(3902, 1)];
      else [rb, ra] = [await load(3902, 1), await load(3901, 1)];
      ratios.push(Math.log(rb / ra));
    }
    return { mode, pin, n: ratios.length, sd: sd(ratios), median: median(ratios) };
  } finally {
    a.kill();
    b.kill();
  }
}

try {
  const pins = { both: [false, true], on: [true], off: [false] }[values.pin];
  for (const mode of values.modes.split(',')) {
    for (const pin of pins) {
      const r = await measure(mode, pin);
      console.log(
        `${values.kind} ${r.mode.padEnd(12)} ${r.pin ? 'pinned  ' : 'unpinned'} ${r.n} pairs: SD of the pair log-ratio ${(100 * r.sd).toFixed(1)}%, median ${(100 * r.median).toFixed(1)}%`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
