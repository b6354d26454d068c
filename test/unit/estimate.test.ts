import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { estimateRun, formatClock, formatMs } from '../../src/engine/estimate.js';
import { buildPlan } from '../../src/engine/plan.js';
import { estimateLine } from '../../src/cli/plan.js';
import { terminalProgress } from '../../src/cli/progress.js';

const config = (extra: Record<string, unknown> = {}) =>
  resolveConfig({ document: { service: { start: 'node s.js' }, scenarios: ['GET /'], ...extra } });

test('estimate: the timed phases from the configuration; the early-stop total when a look is planned', () => {
  const e = estimateRun(config({ load: { pairs: 60, blocks: 2, instances: 6, slice: '1s', warmup: '5s' }, profile: false }));
  assert.deepEqual(e.phases.map((p) => p.phase), ['measure']);
  // 2 blocks × (3 s start + 6 start pairs × 5 s warm-up in five 1 s slices, 40 ms each beyond
  // its length) + 60 simultaneous pairs × (1 s + 40 ms)
  assert.equal(e.totalMs, 2 * (2000 + 6 * 5200) + 60 * 1040);
  assert.deepEqual(e.earlyStops, [{ afterBlock: 0, ms: 2000 + 6 * 5200 + 30 * 1040 }]);
  // a look after every block but the last: three blocks, two times an early stop could end the run
  const three = estimateRun(config({ load: { pairs: 72, blocks: 3, instances: 8, slice: '1s', warmup: '4s' }, profile: false }));
  const block = 2000 + 8 * 4160 + 24 * 1040;
  assert.equal(three.totalMs, 3 * block);
  assert.deepEqual(three.earlyStops, [{ afterBlock: 0, ms: block }, { afterBlock: 1, ms: 2 * block }]);
  assert.equal(estimateLine(three), `estimated time: ~${formatMs(3 * block)} (~${formatMs(block)} when the look after block 1 stops early, ~${formatMs(2 * block)} after block 2), plus install and build`);
  // alternating pairs take two slices each
  const alternate = estimateRun(config({ load: { pairs: 60, blocks: 2, instances: 1, slice: '1s', warmup: '5s', mode: 'alternate' }, profile: false }));
  assert.equal(alternate.totalMs, 2 * (2000 + 5200) + 60 * 2 * 1040);
  const profiled = estimateRun(config({ load: { 'early-stop': false } }));
  assert.deepEqual(profiled.phases.map((p) => p.phase), ['measure', 'profile']);
  assert.deepEqual(profiled.earlyStops, []);
  // a failing scenario's culprit is tested in one more block of its pairs (two more while the
  // answer is unclear), the next culprit likewise: the usual cost and the budget, said beside the expected time
  const firstBlock = 2000 + 8 * 4160 + 24 * 1040;
  assert.equal(profiled.confirmArmMs, firstBlock + 2000, 'a clear answer: one block and the reverted tree');
  assert.equal(profiled.confirmBlockMs, firstBlock);
  assert.equal(profiled.confirmMs, 2 * (firstBlock + 2000 + 2 * firstBlock), 'two arms of three blocks at most');
  assert.equal(
    estimateLine(profiled),
    `estimated time: ~${formatMs(profiled.totalMs)}, plus install and build; a failing scenario adds ~${formatMs(firstBlock + 2000)} to test its culprit (up to ${formatMs(profiled.confirmMs)}: 3 blocks while the answer is unclear, and a next culprit)`,
  );
  assert.equal(estimateRun(config({ load: { 'early-stop': false }, profile: { confirm: false } })).confirmMs, 0);
});

test('estimate: three scenarios share each start pair\'s warm-up (the first 4 s, the others one slice), one scenario costs what it did', () => {
  const load = { pairs: 72, blocks: 3, instances: 8, slice: '1s', warmup: '4s' };
  const three = estimateRun(config({ scenarios: ['GET /a', 'GET /b', 'POST /c'], load, profile: false }));
  // per start pair: 4 × 1.04 s + 2 × 1.04 s of warm-up; per block 3 × 24 pairs × 1.04 s
  const block = 2000 + 8 * 6 * 1040 + 3 * 24 * 1040;
  assert.equal(three.totalMs, 3 * block);
  assert.deepEqual(three.earlyStops, [{ afterBlock: 0, ms: block }, { afterBlock: 1, ms: 2 * block }]);
  assert.match(three.phases[0]!.detail, /warmed up 4s per start pair, then 1s per other scenario/);
  // (before the turns served every scenario: 3 × 4 s of warm-up per start pair, 168 s of load per block instead of 120 s)
  const one = estimateRun(config({ load, profile: false }));
  assert.equal(one.totalMs, 3 * (2000 + 8 * 4160 + 24 * 1040));
  assert.doesNotMatch(one.phases[0]!.detail, /other scenario/);
});

test('estimate: from the plan the run executes, so a block with fewer pairs than load.instances counts only the starts it has', () => {
  const c = config({ load: { pairs: 10, blocks: 2, instances: 8, slice: '1s', warmup: '5s', 'early-stop': false }, profile: false });
  const plan = buildPlan(c, 7);
  assert.deepEqual(plan.blocks.map((b) => b.instances), [5, 5]);
  // 2 blocks × 3 s start + 10 start pairs × 5.2 s warm-up + 10 pairs × 1.04 s
  assert.equal(estimateRun(c, plan).totalMs, 2 * 2000 + 10 * 5200 + 10 * 1040);
  assert.deepEqual(estimateRun(c), estimateRun(c, plan), 'the seed does not change the estimate');
});

test('formatMs and formatClock', () => {
  assert.equal(formatMs(950), '950ms');
  assert.equal(formatMs(1500), '1.5s');
  assert.equal(formatMs(75_000), '1m 15s');
  assert.equal(formatMs(3_720_000), '1h 2m');
  assert.equal(formatClock(75_000), '1:15');
  assert.equal(formatClock(3_725_000), '1:02:05');
});

test('progress: elapsed time and time left on counter lines; --quiet keeps warnings', () => {
  const chunks: string[] = [];
  const stream = { isTTY: false, write: (c: string) => chunks.push(c) } as unknown as NodeJS.WriteStream;
  let t = 0;
  const c = config({ load: { pairs: 20, blocks: 1 }, profile: false });
  const { progress, logger } = terminalProgress(stream, { quiet: false, estimate: estimateRun(c), config: c, now: () => t });
  progress({ phase: 'start', side: 'base', block: 1, blocks: 1 });
  t = 2_000;
  progress({ phase: 'warmup', scenario: 'GET /', block: 1, blocks: 1 });
  t = 22_000;
  // the block's last pair: 20 pairs in 20 s measured, nothing left to measure
  progress({ phase: 'measure', scenario: 'GET /', pair: 20, pairs: 20, block: 1, blocks: 1 });
  assert.match(chunks.join(''), /pair 20\/20 · 0:22 elapsed, ~0:00 left\n/);
  const quiet: string[] = [];
  const q = terminalProgress({ isTTY: false, write: (s: string) => quiet.push(s) } as unknown as NodeJS.WriteStream, { quiet: true });
  q.progress({ phase: 'measure', scenario: 'GET /', pair: 10, pairs: 20 });
  q.logger.info('seed 1');
  q.logger.warn('the load generator is at its limit');
  assert.deepEqual(quiet, ['[perfgate] warning: the load generator is at its limit\n']);
  logger.warn('x');
});
