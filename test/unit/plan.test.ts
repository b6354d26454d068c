// The HTTP schedule: which start pair serves which pair, in what order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { buildPlan, warmupSlices } from '../../src/engine/plan.js';

const config = (load: Record<string, unknown>) =>
  resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /a', 'GET /b'], load } });

test("a block's start pairs take turns: each start pair's pairs come back to back, every start pair once", () => {
  for (const [load, perStart] of [
    [{}, [3]], // defaults: 48 pairs, 2 blocks × 8 start pairs
    [{ pairs: 14, blocks: 2, instances: 3 }, [3, 2]],
  ] as const) {
    const plan = buildPlan(config(load), 42);
    for (const block of plan.blocks) {
      for (const scenario of block.scenarios) {
        const runs: number[][] = [];
        for (const pair of scenario.pairs) {
          if (runs.length === 0 || runs.at(-1)![0] !== pair.slot) runs.push([pair.slot]);
          else runs.at(-1)!.push(pair.slot);
        }
        assert.equal(runs.length, block.instances, 'each start pair has one turn per block and scenario');
        assert.deepEqual(new Set(runs.map((r) => r[0])).size, block.instances);
        for (const r of runs) assert.ok((perStart as readonly number[]).includes(r.length), `a turn of ${r.length} pairs`);
        assert.deepEqual(
          scenario.pairs.map((p) => p.index),
          scenario.pairs.map((_, i) => scenario.pairs[0]!.index + i),
          'pairs are numbered in the order they are measured',
        );
        for (const pair of scenario.pairs) assert.equal(pair.start, block.index * config(load).load.instances + pair.slot);
      }
    }
  }
  // The turn order and each pair's side order are drawn, not fixed.
  const orders = new Set([1, 2, 3, 4, 5].map((seed) => buildPlan(config({}), seed).blocks[0]!.scenarios[0]!.pairs.map((p) => p.slot).join()));
  assert.ok(orders.size > 1);
  const sides = buildPlan(config({}), 7).blocks.flatMap((b) => b.scenarios.flatMap((s) => s.pairs.map((p) => p.order[0])));
  assert.ok(sides.includes('base') && sides.includes('head'));
});

test('a warm-up is loaded in slices of the measured length, the last one shorter', () => {
  assert.deepEqual(warmupSlices(4000, 1000), [1000, 1000, 1000, 1000]);
  assert.deepEqual(warmupSlices(2500, 1000), [1000, 1000, 500]);
  assert.deepEqual(warmupSlices(300, 1000), [300]);
  assert.deepEqual(warmupSlices(0, 1000), []);
});
