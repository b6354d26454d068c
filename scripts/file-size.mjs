#!/usr/bin/env node
// Fails when a source file in src/ is over 600 lines: a file that long holds more than one job,
// and the next reader has to find which. (Function length is biome's noExcessiveLinesPerFunction.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX_LINES = 600;
const long = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.(ts|cjs|mjs|js)$/.test(f))
  .map((f) => ({ file: join('src', f), lines: readFileSync(join('src', f), 'utf8').split('\n').length - 1 }))
  .filter((f) => f.lines > MAX_LINES);
for (const f of long) console.error(`${f.file}: ${f.lines} lines (at most ${MAX_LINES}): split it by job`);
process.exit(long.length ? 1 : 0);
