import type { PerfgateConfig } from '../config/types.js';
import type { Side } from '../results/types.js';
import { blockSizes } from '../gate/sequential.js';
import { createRandom, shuffle } from '../stats/random.js';

export interface PlannedPair {
  /** 0-based over all blocks of the scenario. */
  index: number;
  order: [Side, Side];
}

export interface PlannedBlock {
  index: number;
  /** Which service boots first (both are warm before any slice). */
  bootOrder: [Side, Side];
  scenarios: { name: string; pairs: PlannedPair[] }[];
}

export interface Plan {
  seed: number;
  blocks: PlannedBlock[];
  /** Pairs per scenario over all blocks. */
  pairsPerScenario: number;
}

/**
 * The whole schedule, fixed up front from the seed: pairs split evenly across blocks (the
 * first blocks take the remainder; the sequential design's looks rely on the same split), and each pair's order drawn at random, so the order is
 * reproducible from the logged seed and cannot drift with what was measured.
 */
export function buildPlan(config: PerfgateConfig, seed: number): Plan {
  const random = createRandom(seed);
  const order = (): [Side, Side] => (random() < 0.5 ? ['base', 'head'] : ['head', 'base']);
  const { pairs, blocks } = config.load;
  const counters = new Map<string, number>();
  const planned: PlannedBlock[] = [];
  const sizes = blockSizes(pairs, blocks);
  for (let b = 0; b < blocks; b++) {
    const inBlock = sizes[b]!;
    planned.push({
      index: b,
      bootOrder: order(),
      scenarios: config.scenarios.map((s) => {
        const start = counters.get(s.name) ?? 0;
        counters.set(s.name, start + inBlock);
        return { name: s.name, pairs: Array.from({ length: inBlock }, (_, i) => ({ index: start + i, order: order() })) };
      }),
    });
  }
  return { seed, blocks: planned, pairsPerScenario: pairs };
}

/** One benchmark file in a round: its processes run back to back, in `order`. */
export interface PlannedBenchFile {
  file: string;
  /** Both sides in random order, or the one side that has the file. */
  order: Side[];
}

export interface PlannedBenchRound {
  index: number;
  files: PlannedBenchFile[];
}

/**
 * The micro-benchmark schedule, fixed up front from the run's seed like the HTTP plan
 * (docs/benchmarks.md): every round runs every file on both sides, one fresh process each; the
 * files of a round come in random order, and each file's two processes run adjacently (they
 * share the machine's state, as the two slices of an HTTP pair do) in random order. A file only
 * one side has runs in the first round only: it has nothing to be compared with, it is listed.
 * The generator is seeded from the run's seed mixed with a constant, so this order does not
 * repeat the HTTP pairs' coin flips.
 */
export function buildBenchPlan(files: Record<Side, readonly string[]>, rounds: number, seed: number): PlannedBenchRound[] {
  const random = createRandom((seed ^ 0x5eed_be4c) >>> 0);
  const all = [...new Set([...files.base, ...files.head])].sort();
  const sidesOf = (file: string): Side[] => (['base', 'head'] as Side[]).filter((side) => files[side].includes(file));
  return Array.from({ length: rounds }, (_, index) => ({
    index,
    files: shuffle(all, random)
      .map((file) => ({ file, order: sidesOf(file) }))
      .filter((entry) => entry.order.length === 2 || index === 0)
      .map((entry) => ({ ...entry, order: entry.order.length === 2 && random() < 0.5 ? entry.order.reverse() : entry.order })),
  }));
}
