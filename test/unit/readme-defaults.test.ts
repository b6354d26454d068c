// The README names default settings in its prose; they must be the defaults the code applies.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { ROOT } from '../helpers/repo.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const defaults = resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /'] } });

/** Every number the README gives in `pattern`'s group, as found. */
function named(pattern: RegExp): number[] {
  return [...readme.matchAll(pattern)].map((m) => Number(m[1]));
}

test('README: the load defaults it names in prose are the code defaults', () => {
  const { load } = defaults;
  const cases: [string, RegExp, number][] = [
    ['load.blocks', /`load\.blocks` \((\d+)\)/g, load.blocks],
    ['load.instances', /`load\.instances` \((\d+)\)/g, load.instances],
    ['load.warmup', /`load\.warmup`, (\d+) s/g, load.warmupMs / 1000],
    ['load.pairs in the example', /load: \{ pairs: (\d+),/g, load.pairs],
    ['load.blocks in the example', /load: \{ pairs: \d+, blocks: (\d+),/g, load.blocks],
    ['load.instances in the example', /load: \{ pairs: \d+, blocks: \d+, instances: (\d+),/g, load.instances],
  ];
  for (const [name, pattern, value] of cases) {
    const found = named(pattern);
    assert.ok(found.length > 0, `README names ${name}`);
    assert.deepEqual(found, found.map(() => value), `README: ${name} is ${value}`);
  }
});
