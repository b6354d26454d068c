// The HTTP schedule: which start pair serves which pair, in what order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { blockSizes, buildPlan, turnWarmup, warmupSlices } from '../../src/engine/plan.js';
import { createRandom, shuffle } from '../../src/stats/random.js';

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

/** The plan as it was before start-major turns, for one scenario: every calibration measured this schedule. */
function oneScenarioReference(cfg: ReturnType<typeof config>, seed: number) {
  const random = createRandom(seed);
  const order = (): [string, string] => (random() < 0.5 ? ['base', 'head'] : ['head', 'base']);
  const { pairs, blocks, instances } = cfg.load;
  return blockSizes(pairs, blocks).map((inBlock, b) => {
    const slots = Math.min(instances, inBlock);
    const bootOrder = order();
    const envPads = { base: Array.from({ length: slots }, () => Math.floor(random() * 4096)), head: Array.from({ length: slots }, () => Math.floor(random() * 4096)) };
    const perSlot = blockSizes(inBlock, slots);
    const list: { start: number; slot: number; order: [string, string] }[] = [];
    for (const slot of shuffle(perSlot.map((_, i) => i), random)) {
      for (let k = 0; k < perSlot[slot]!; k++) list.push({ start: b * instances + slot, slot, order: order() });
    }
    return { bootOrder, envPads, list };
  });
}

test('a one-scenario plan is the schedule every calibration measured: the same starts, turns, orders and warm-up for the same seed', () => {
  const single = (load: Record<string, unknown>) => resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /a'], load } });
  for (const load of [{}, { pairs: 14, blocks: 2, instances: 3 }, { pairs: 48, blocks: 2 }]) {
    for (const seed of [1, 42, 20261127]) {
      const cfg = single(load);
      const plan = buildPlan(cfg, seed);
      const reference = oneScenarioReference(cfg, seed);
      plan.blocks.forEach((block, b) => {
        assert.deepEqual(block.bootOrder, reference[b]!.bootOrder);
        assert.deepEqual(block.envPads, reference[b]!.envPads);
        const pairs = block.scenarios[0]!.pairs;
        assert.deepEqual(
          pairs.map((p) => ({ start: p.start, slot: p.slot, order: p.order })),
          reference[b]!.list,
        );
        // The run measures turn by turn: the turns are the start pairs in the pairs' order, each the one scenario with the whole warm-up.
        assert.deepEqual(
          block.turns.map((t) => t.slot),
          pairs.map((p) => p.slot).filter((slot, i, all) => i === 0 || all[i - 1] !== slot),
        );
        for (const turn of block.turns) assert.deepEqual(turn.scenarios, ['GET /a']);
      });
      assert.deepEqual(turnWarmup(cfg.load, 0), warmupSlices(cfg.load.warmupMs, cfg.load.sliceMs));
    }
  }
});

test('with several scenarios a start pair serves them all in its turn: one long warm-up, one slice for each other scenario, the first place rotating', () => {
  const three = resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: ['GET /a', 'GET /b', 'POST /c'] } });
  const plan = buildPlan(three, 9);
  for (const block of plan.blocks) {
    assert.equal(block.turns.length, block.instances);
    assert.equal(new Set(block.turns.map((t) => t.slot)).size, block.instances, 'every start pair takes one turn per block');
    for (const turn of block.turns) assert.deepEqual([...turn.scenarios].sort(), ['GET /a', 'GET /b', 'POST /c']);
    // Each scenario's pairs come in the turns' order, so its pairs of one start pair are measured in that start pair's turn.
    for (const scenario of block.scenarios) {
      const slots = scenario.pairs.map((p) => p.slot).filter((slot, i, all) => i === 0 || all[i - 1] !== slot);
      assert.deepEqual(slots, block.turns.map((t) => t.slot));
    }
    const firsts = new Map<string, number>();
    for (const turn of block.turns) firsts.set(turn.scenarios[0]!, (firsts.get(turn.scenarios[0]!) ?? 0) + 1);
    assert.deepEqual([...firsts.values()].sort(), [2, 3, 3], 'of 8 turns, each scenario is first 2 or 3 times');
  }
  assert.deepEqual(turnWarmup(three.load, 0), [1000, 1000, 1000, 1000]);
  assert.deepEqual(turnWarmup(three.load, 1), [1000]);
  assert.deepEqual(turnWarmup({ warmupMs: 300, sliceMs: 1000 }, 2), [300]);
  assert.deepEqual(turnWarmup({ warmupMs: 0, sliceMs: 1000 }, 1), []);
});
