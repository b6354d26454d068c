#!/usr/bin/env node
// Which recorded slices the load-generator check marks, by rule: the saturation rule alone (the
// generator at 90% of a core or its loop 90% busy) and the whole rule of src/assess/health.ts
// (also: its loop 75% busy and twice the service's busiest loop). Reads the calibration pools
// (real runs of the six calibration services, docs/calibration/*.jsonl) and prints, per kind and
// noise, the slices each rule marks and the sides that would be generator-bound, and how busy the
// service was where the generator's loop was 75–90% busy. A benchmark, not a test (docs/health.md).
//
//   node bench/generator-scan.mjs [docs/calibration/*.jsonl ...]
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { aggregateHealth, generatorBoundSlice, GENERATOR_SATURATED, SERVICE_SPARE } = await import(join(root, 'src/assess/health.ts'));

const dir = join(root, 'docs', 'calibration');
const files = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => join(dir, f));

const saturated = (slice) => {
  const seconds = slice.durationMs / 1000;
  const cpu = slice.generatorCpuSeconds / seconds;
  const service = aggregateHealth(slice.health)?.utilization ?? slice.cpuSeconds / seconds;
  return (cpu >= GENERATOR_SATURATED || slice.generatorEventLoopUtilization >= GENERATOR_SATURATED) && service < SERVICE_SPARE;
};

const cells = new Map();
const nearLimit = [];
for (const file of files) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line);
    if (!record.results) continue;
    const key = `${record.kind} ${record.noise ? 'noisy' : 'quiet'}`;
    const cell = cells.get(key) ?? { slices: 0, saturated: 0, whole: 0, sides: 0, boundSaturated: 0, boundWhole: 0 };
    cells.set(key, cell);
    for (const scenario of record.results.scenarios) {
      for (const side of ['base', 'head']) {
        const measured = (s) => s?.generatorCpuSeconds !== undefined && s.generatorEventLoopUtilization !== undefined && Number.isFinite(aggregateHealth(s.health)?.utilization);
        const slices = scenario.pairs.map((p) => p[side]).filter(measured);
        if (slices.length === 0) continue;
        const a = slices.filter(saturated).length;
        const b = slices.filter(generatorBoundSlice).length;
        Object.assign(cell, {
          slices: cell.slices + slices.length,
          saturated: cell.saturated + a,
          whole: cell.whole + b,
          sides: cell.sides + 1,
          boundSaturated: cell.boundSaturated + (2 * a >= slices.length ? 1 : 0),
          boundWhole: cell.boundWhole + (2 * b >= slices.length ? 1 : 0),
        });
        for (const s of slices) {
          const service = aggregateHealth(s.health).utilization;
          if (service < SERVICE_SPARE && s.generatorEventLoopUtilization >= 0.75 && s.generatorEventLoopUtilization < GENERATOR_SATURATED) {
            nearLimit.push({ busy: s.generatorEventLoopUtilization, service });
          }
        }
      }
    }
  }
}

console.log('| service | slices | marked: saturation rule | marked: whole rule | sides bound (saturation / whole) |');
console.log('| :-- | --: | --: | --: | --: |');
let total = 0;
for (const [key, c] of [...cells].filter(([, c]) => c.slices > 0).sort()) {
  total += c.slices;
  console.log(`| ${key} | ${c.slices} | ${c.saturated} | ${c.whole} | ${c.boundSaturated} / ${c.boundWhole} of ${c.sides} |`);
}
console.log(`\n${total} slices. Service spare (< ${SERVICE_SPARE}) with the generator's loop 75–90% busy: ${nearLimit.length} slices`);
if (nearLimit.length > 0) {
  const lowest = Math.min(...nearLimit.map((x) => x.service));
  const ratio = Math.min(...nearLimit.map((x) => x.service / x.busy));
  console.log(`there the service's loop was at least ${(100 * lowest).toFixed(0)}% busy, at least ${ratio.toFixed(2)} times the generator's`);
}
