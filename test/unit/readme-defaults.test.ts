// The README names default settings in its prose; they must be the defaults the code applies.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { estimateRun, formatMs } from '../../src/engine/estimate.js';
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

test('README: what a scenario costs is what perfgate plan estimates for the defaults, in its words', () => {
  const run = (n: number) =>
    estimateRun(resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: Array.from({ length: n }, (_, i) => `GET /${i}`) } }));
  const [one, two, three] = [run(1), run(2), run(3)];
  const measure = (e: ReturnType<typeof run>) => e.phases.find((p) => p.phase === 'measure')!.ms;
  const profile = (e: ReturnType<typeof run>) => e.phases.find((p) => p.phase === 'profile')!.ms;
  const perBlock = (ms: number) => Math.round(ms / defaults.load.blocks / 1000);
  const stated = [
    `one scenario is ${formatMs(measure(one))} of measuring, about ${perBlock(measure(one))} s per block`,
    `and ${formatMs(profile(one))} to profile it: **${formatMs(one.totalMs)}**`,
    `Each further scenario adds **${formatMs(two.totalMs - one.totalMs)}**: ${formatMs(measure(two) - measure(one))} of measuring (about ${perBlock(measure(two) - measure(one))} s per block`,
    `Three scenarios: ${formatMs(three.totalMs)} when all three blocks run`,
    `three scenarios took about 2m 13s per block (the estimate: ${formatMs(measure(three) / defaults.load.blocks)})`,
    `each scenario adds ${formatMs(two.totalMs - one.totalMs)} to every run at the default load (as \`perfgate plan\` estimates it`,
  ];
  for (const sentence of stated) assert.ok(readme.includes(sentence), `README says: ${sentence}`);
  const modes = readFileSync(join(ROOT, 'docs', 'modes.md'), 'utf8').replace(/\s+/g, ' ');
  assert.ok(modes.includes(`each scenario adds ${formatMs(two.totalMs - one.totalMs)} to a run with the defaults`), 'docs/modes.md says the same');
  // no other figure for the same cost
  assert.doesNotMatch(readme, /about 3\.5 minutes|about 40 s more per|about 16 s per scenario/);
});
