import type { PerfgateConfig } from '../config/types.js';
import type { Side } from '../results/types.js';
import { createRandom } from '../stats/random.js';

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
 * first blocks take the remainder), and each pair's order drawn at random, so the order is
 * reproducible from the logged seed and cannot drift with what was measured.
 */
export function buildPlan(config: PerfgateConfig, seed: number): Plan {
  const random = createRandom(seed);
  const order = (): [Side, Side] => (random() < 0.5 ? ['base', 'head'] : ['head', 'base']);
  const { pairs, blocks } = config.load;
  const counters = new Map<string, number>();
  const planned: PlannedBlock[] = [];
  for (let b = 0; b < blocks; b++) {
    const inBlock = Math.floor(pairs / blocks) + (b < pairs % blocks ? 1 : 0);
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
