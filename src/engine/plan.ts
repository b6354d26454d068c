import type { PerfgateConfig } from '../config/types.js';
import type { SequentialRecord, Side } from '../results/types.js';
import { lookBounds } from '../stats/sequential.js';
import { createRandom, shuffle } from '../stats/random.js';

export interface PlannedPair {
  /** 0-based over all blocks of the scenario. */
  index: number;
  /** The start pair (base start and head start) that serves this pair, 0-based over the run: block × instances + slot. */
  start: number;
  /** Which of the block's start pairs, 0-based. */
  slot: number;
  order: [Side, Side];
}

export interface PlannedBlock {
  index: number;
  /** Pairs of each scenario measured in this block. */
  pairs: number;
  /** Fresh starts of each side in this block (all up at once). */
  instances: number;
  /** Which side of the first start pair is launched first; the pairs after it alternate (all are ready before any slice). */
  bootOrder: [Side, Side];
  /** Environment padding of each start, bytes, per side and slot (see Service's envPad). */
  envPads: Record<Side, number[]>;
  scenarios: { name: string; pairs: PlannedPair[] }[];
  /**
   * The block's start pairs in the order they take their turns, each with the scenarios it
   * serves, in the order it serves them (run.ts measures start pair by start pair: the first
   * scenario of a turn has the full warm-up, the others one slice each: turnWarmup).
   */
  turns: { slot: number; scenarios: string[] }[];
}

export interface Plan {
  seed: number;
  blocks: PlannedBlock[];
  /** Pairs per scenario over all blocks. */
  pairsPerScenario: number;
  /** Start pairs over the run: blocks × instances. */
  starts: number;
  /** The adaptive-stopping design (planSequential): the looks between blocks; null without early stopping. */
  sequential: SequentialRecord | null;
}

/** Environment padding is drawn from 0 to this many bytes: a page, so the initial stack's offset within it is random. */
const ENV_PAD_RANGE = 4096;

/** Pairs per block (or per start of a block): split evenly, the first take the remainder. */
export function blockSizes(pairs: number, blocks: number): number[] {
  return Array.from({ length: blocks }, (_, b) => Math.floor(pairs / blocks) + (b < pairs % blocks ? 1 : 0));
}

/**
 * A start pair's warm-up as the slices that load it (ms): as many measured-length slices as fit,
 * then the rest. The warm-up is loaded the way the pairs are, slice by slice (a health window
 * each; windows of the start pair's one load in simultaneous mode), not as one long slice
 * followed by fresh connections: after one 4 s slice the first measured pair
 * served 35–40% fewer requests and its head/base ratio swung by ±10–30% on a 2-worker cluster
 * (±4–12% on plain http), whatever the warm-up's length (6 s did the same); warmed in 1 s
 * slices, the first pair was like the others and a start pair's pairs spread by 2.2% instead of
 * 6.7% (docs/calibration-log.md, "The first pair after the warm-up").
 */
export function warmupSlices(warmupMs: number, sliceMs: number): number[] {
  const slices: number[] = [];
  for (let done = 0; done < warmupMs; done += sliceMs) slices.push(Math.min(sliceMs, warmupMs - done));
  return slices;
}

/**
 * The warm-up of a scenario in a start pair's turn, as its slices (ms): the turn's first scenario
 * has the whole warm-up (warmupSlices); each scenario after it, on a service that is already
 * warm, one slice of at most sliceMs on its own load, so its own connections and its own route's
 * code are warmed before its first measured window (a window on fresh connections is slow; see
 * warmupSlices). With one scenario the schedule is the one every calibration measured.
 */
export function turnWarmup(load: { warmupMs: number; sliceMs: number }, position: number): number[] {
  return position === 0 ? warmupSlices(load.warmupMs, load.sliceMs) : warmupSlices(Math.min(load.warmupMs, load.sliceMs), load.sliceMs);
}

/**
 * The whole schedule, fixed up front from the seed. Pairs are split evenly across blocks (the
 * first blocks take the remainder; the sequential design's looks rely on the same split), and
 * within a block across its start pairs. A block's start pairs take their turns in a shuffled
 * order, and each start pair's pairs come one after the other, right after its own warm-up:
 * rotating over the start pairs instead (every start idle between its slices) made a pair's
 * throughput ratio spread more on fastify (median SD 8.7% against 6.35% over ten A/A runs
 * each; docs/calibration-log.md, "Where the noise is").
 * With several scenarios the turns are start-major: a start pair serves every scenario in its
 * turn, one after the other, so the service is warmed once per start pair, not once per start
 * pair and scenario (three scenarios: 15 s of load per start pair instead of 21 s with the
 * defaults). The turn order is drawn once per block, where a one-scenario plan draws its own, so
 * a one-scenario plan is the same for the same seed; the scenarios rotate from turn to turn, so
 * each comes first (after the long warm-up) equally often.
 * Each pair's order (base first or head first) is drawn at random. Reproducible from the logged
 * seed; cannot drift with what was measured.
 */
export function buildPlan(config: PerfgateConfig, seed: number, looks: LookDesign | null = 'paired'): Plan {
  const random = createRandom(seed);
  const order = (): [Side, Side] => (random() < 0.5 ? ['base', 'head'] : ['head', 'base']);
  const { pairs, blocks, instances } = config.load;
  const counters = new Map<string, number>();
  const planned: PlannedBlock[] = [];
  const sizes = blockSizes(pairs, blocks);
  for (let b = 0; b < blocks; b++) {
    const inBlock = sizes[b]!;
    const slots = Math.min(instances, inBlock);
    planned.push({
      index: b,
      pairs: inBlock,
      instances: slots,
      bootOrder: order(),
      envPads: {
        base: Array.from({ length: slots }, () => Math.floor(random() * ENV_PAD_RANGE)),
        head: Array.from({ length: slots }, () => Math.floor(random() * ENV_PAD_RANGE)),
      },
      scenarios: [],
      turns: [],
    });
    const block = planned[b]!;
    const perSlot = blockSizes(inBlock, slots);
    // Drawn here, before the first scenario's pair orders, as a one-scenario plan always drew it.
    let slotOrder: number[] | null = null;
    for (const s of config.scenarios) {
      slotOrder ??= shuffle(perSlot.map((_, i) => i), random);
      const first = counters.get(s.name) ?? 0;
      counters.set(s.name, first + inBlock);
      const list: PlannedPair[] = [];
      for (const slot of slotOrder) {
        for (let k = 0; k < perSlot[slot]!; k++) list.push({ index: first + list.length, start: b * instances + slot, slot, order: order() });
      }
      block.scenarios.push({ name: s.name, pairs: list });
    }
    const names = config.scenarios.map((s) => s.name);
    block.turns = (slotOrder ?? []).map((slot, turn) => ({ slot, scenarios: names.map((_, i) => names[(turn + i) % names.length]!) }));
  }
  return {
    seed,
    blocks: planned,
    pairsPerScenario: pairs,
    starts: planned.reduce((n, b) => n + b.instances, 0),
    sequential: looks === null ? null : planSequential(config, looks),
  };
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

export const SEQUENTIAL_DESIGN = "O'Brien–Fleming-type (Lan–DeMets), one-sided";

/**
 * What a look compares: base's starts against head's, pair by pair, measured side by side
 * (paired); or head's starts against a stored record's (unpaired, assess/unpaired.ts).
 */
export type LookDesign = 'paired' | 'unpaired';

/**
 * The information a look has, up to a constant, after `measured` of the plan's `total` start
 * pairs. Paired: the units are head's and base's start pairs, each an independent difference, so
 * the information grows with their count (Jennison & Turnbull 2000, §7.1: information fraction).
 * Unpaired: the shift of head's starts against a record of `total` start pairs, a sample that is
 * complete at every look; the estimate's variance is σ²·(1/total + 1/measured), so the
 * information is its inverse, and the statistics at the looks still have the canonical joint
 * distribution (J&T §3.1: corr(Z_j, Z_k) = √(I_j / I_k) for j < k, since the covariance of the
 * two estimates is the later one's variance). A record measures the configuration of the run
 * that compares with it (checkRunner refuses another), so `total` is its starts too.
 */
function information(measured: number, total: number, looks: LookDesign): number {
  return looks === 'paired' ? measured : 1 / (1 / total + 1 / measured);
}

/**
 * The adaptive-stopping design for this configuration, before any load (docs/method.md,
 * "Adaptive stopping"): null when early stopping is off, or there is no HTTP scenario, or one
 * block (no block boundary to look at). A look after every block, the last one final: the
 * verdicts count starts, not slices, so a look's information fraction is its share of the final
 * look's information (`information`). Against a stored record the early looks carry more of it
 * (with three blocks, 1/2 and 4/5 rather than 1/3 and 2/3): the record's half of the comparison
 * is whole from the start.
 */
export function planSequential(config: PerfgateConfig, looks: LookDesign = 'paired'): SequentialRecord | null {
  const { pairs, blocks, earlyStop } = config.load;
  if (!earlyStop || blocks < 2 || config.scenarios.length === 0) return null;
  const sizes = blockSizes(pairs, blocks);
  // Starts per block are equal (load.instances) unless a block has fewer pairs than instances.
  const starts = sizes.map((n) => Math.min(n, config.load.instances));
  const total = starts.reduce((a, b) => a + b, 0);
  let measured = 0;
  let measuredPairs = 0;
  const planned = sizes.map((size, block) => {
    measured += starts[block]!;
    measuredPairs += size;
    return { afterBlock: block, pairs: measuredPairs, t: information(measured, total, looks) / information(total, total, looks) };
  });
  // The tests are one-sided at alpha (see assess/compare.ts): the symmetric two-sided design at
  // 2·alpha has nearly those one-sided bounds, at half its two-sided levels: they differ only by
  // the paths that cross the other bound at one look and this one at a later look, which at
  // these levels must move by several standard deviations in between.
  const bounds = lookBounds(planned.map((look) => look.t), 2 * config.alpha);
  return {
    design: SEQUENTIAL_DESIGN,
    alpha: config.alpha,
    looks: planned.map((look, k) => ({ ...look, nominalAlpha: bounds.nominal[k]! / 2 })),
    taken: [],
  };
}
