#!/usr/bin/env node
// Runs the test suite with node's own runner (TypeScript through tsx).
// `npm test` runs everything; `npm test -- unit` (or integration, e2e) runs one layer.
// Files run one at a time: integration tests put real load on real services, and two of
// them at once on a 2-core machine would measure each other.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const layers = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('-'));
const roots = (layers.length ? layers : ['unit', 'integration', 'e2e']).map((l) => join('test', l));

function find(dir) {
  let out = [];
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries.sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(find(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = roots.flatMap(find);
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...passThrough, ...files],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
