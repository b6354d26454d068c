/**
 * The third arm measures another block while its answer is unclear, up to a budget fixed before
 * its first, and each look's interval spends a share of the 5%: the decision to go on, the level,
 * and the words. Known truth: throughput pairs built to the share each case needs (the drop is
 * base ~1000 → head ~650 req/s, −35%; a share of 50% is a reverted head at ~806 req/s).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { lookLevel } from '../../src/assess/confirmation.js';
import { confirmAgain } from '../../src/assess/look.js';
import { MAX_ARM_BLOCKS } from '../../src/engine/phases/confirm.js';
import { describeConfirmation } from '../../src/report/confirmation.js';
import type { Confirmation, Pair, Results } from '../../src/results/types.js';
import { resultsFromPairs, slice } from '../helpers/results.js';

const failingRun = (): Results => resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000 + (i % 3) * 5, 650 + (i % 4) * 3]));

/** `blocks` blocks of 12 start pairs each, the reverted head at `reverted(i)` req/s (i over the arm) against head at ~650. */
/** `maxBlocks` null: a record without a budget of blocks, read as one look. */
function arm(reverted: (i: number) => number, blocks = 1, maxBlocks: number | null = MAX_ARM_BLOCKS): Confirmation {
  const pairs = Array.from({ length: 12 * blocks }, (_, i): Pair => ({ block: Math.floor(i / 12), start: i, index: i, order: ['base', 'head'], base: slice('base', reverted(i)), head: slice('head', 650 + (i % 4) * 3) }));
  return {
    scenario: 'GET /hello',
    culprit: { name: 'resolvePermissions', file: 'server.js', line: 25, endLine: 30, package: null },
    status: 'measured',
    reason: null,
    reverted: { file: 'server.js', hunks: 1 },
    pairs,
    wallMs: 14_000 * blocks,
    blocks,
    ...(maxBlocks !== null && { maxBlocks }),
  };
}

function finding(record: Confirmation) {
  const results = { ...failingRun(), confirmations: [record] };
  const subject = assessResults(results).subjects.find((s) => s.type === 'scenario');
  assert.ok(subject?.type === 'scenario' && subject.confirmation);
  return { found: subject.confirmation, again: confirmAgain(results, 'GET /hello') };
}

/** A revert that gives back about half of the drop, its starts spread widely around it: 700 … 950 req/s. */
const halfway = (i: number) => 700 + ((i * 7) % 12) * 23;

test('an arm whose interval straddles the 50% line measures another block; a confirmed, explains-little or skipped one does not', () => {
  const unclear = finding(arm(halfway));
  assert.equal(unclear.found.status, 'unclear', JSON.stringify(unclear.found));
  assert.ok(unclear.found.givenBack!.low < unclear.found.points! / 2 && unclear.found.givenBack!.high > unclear.found.points! / 2);
  assert.equal(unclear.again, true);
  assert.equal(finding(arm((i) => 995 + (i % 3) * 7)).again, false, 'confirmed');
  assert.equal(finding(arm((i) => 660 + (i % 3) * 4)).again, false, 'explains little');
  const failed = arm((i) => 3000 + i);
  for (const pair of failed.pairs) pair.base = { ...pair.base, non2xx: pair.base.requests };
  assert.equal(finding(failed).found.status, 'skipped');
  assert.equal(finding(failed).again, false, 'a reverted head that answers errors is not helped by more blocks');
  assert.equal(confirmAgain(failingRun(), 'GET /hello'), false, 'no arm, nothing to go on with');
});

test('too few start pairs for an interval at the looks\' level is unclear too: another block is measured', () => {
  const few = arm((i) => 995 + (i % 3) * 7);
  few.pairs = few.pairs.slice(0, 6);
  // Six start pairs reach a 95% signed-rank interval (1/32 a side), not 98.3% (1/64 a side).
  assert.equal(finding({ ...few, maxBlocks: 1 }).found.status, 'confirmed');
  const { found, again } = finding(few);
  assert.equal(found.status, 'unclear');
  assert.equal(again, true);
  assert.match(describeConfirmation(found)!, /too few start pairs \(6\) for an interval\): not clear how much/);
});

test("each look's interval is at 1 − 0.05 / the budget of blocks, so the looks together err at most 5%; a record without a budget is one look at 95%", () => {
  assert.equal(lookLevel(1), 0.95);
  assert.ok(Math.abs(lookLevel(3) - (1 - 0.05 / 3)) < 1e-12);
  const one = finding(arm(halfway, 1, null)).found;
  const three = finding(arm(halfway, 1, 3)).found;
  assert.equal(one.givenBack!.estimate, three.givenBack!.estimate, 'the estimate is the same, only the interval widens');
  assert.ok(three.givenBack!.low < one.givenBack!.low && three.givenBack!.high > one.givenBack!.high, JSON.stringify([one.givenBack, three.givenBack]));
});

test('a second block that settles it: the answer is over both blocks\' start pairs, said with the blocks measured', () => {
  // The first block as above (unclear); the second's starts restore base's speed.
  const record = arm((i) => (i < 12 ? halfway(i) : 990 + (i % 3) * 6), 2);
  const { found, again } = finding(record);
  assert.equal(found.status, 'confirmed', JSON.stringify(found));
  assert.equal(again, false);
  assert.equal(found.starts, 24);
  assert.equal(found.blocks, 2);
  assert.match(describeConfirmation(found)!, /^reverting this PR's change to resolvePermissions gives back [\d.]+ of the 3\d\.\d points \(95% CI [\d.]+ … [\d.]+ over 2 blocks\): confirmed$/);
});
