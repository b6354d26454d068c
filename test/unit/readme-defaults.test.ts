// The user docs name default settings in their prose (what a run does, perfgate.yml by example,
// what a run costs); they must be the defaults the code applies.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { estimateRun, formatMs } from '../../src/engine/estimate.js';
import { ROOT } from '../helpers/repo.js';

const page = (path: string) => readFileSync(join(ROOT, path), 'utf8').replace(/\s+/g, ' ');
/** The pages that name the load defaults, read as one text. */
const loadPages = ['docs/how-it-works.md', 'docs/perfgate-yml.md'].map(page).join(' ');
/** The pages that say what a scenario costs: the cost page, and init's note on the routes it picks. */
const costPages = ['docs/ci-time.md', 'docs/init.md'].map(page).join(' ');
const defaults = resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /'] } });

/** Every number those pages give in `pattern`'s group, as found. */
function named(pattern: RegExp): number[] {
  return [...loadPages.matchAll(pattern)].map((m) => Number(m[1]));
}

test('docs: the load defaults they name in prose are the code defaults', () => {
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
    assert.ok(found.length > 0, `the docs name ${name}`);
    assert.deepEqual(found, found.map(() => value), `the docs: ${name} is ${value}`);
  }
});

test('docs: what a scenario costs is what perfgate plan estimates for the defaults, in its words', () => {
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
  for (const sentence of stated) assert.ok(costPages.includes(sentence), `docs/ci-time.md or docs/init.md says: ${sentence}`);
  const modes = readFileSync(join(ROOT, 'docs', 'modes.md'), 'utf8').replace(/\s+/g, ' ');
  assert.ok(modes.includes(`each scenario adds ${formatMs(two.totalMs - one.totalMs)} to a run with the defaults`), 'docs/modes.md says the same');
  // no other figure for the same cost
  assert.doesNotMatch(`${costPages} ${page('README.md')}`, /about 3\.5 minutes|about 40 s more per|about 16 s per scenario/);
});
