/**
 * How long a run takes, from its plan: the timed phases are fixed up front (blocks, starts,
 * slices, warm-ups, profiled windows), so only the allowances for starting and stopping
 * services are guesses. Install and build are the project's and are not counted. Pure.
 */
import type { PerfgateConfig } from '../config/types.js';
import { formatDuration } from '../config/units.js';
import { blockSizes, buildPlan, type Plan, type PlannedBlock, turnWarmup } from './plan.js';
import { MAX_ARM_BLOCKS, MAX_ARMS } from './phases/confirm.js';
import { profiledScenarios } from './phases/profile.js';

/** Starting every start of both sides of a block, waiting until they answer (they boot side by side), and stopping them (1.2 s for 12 starts of a small service on 2 vCPUs, 1.8 s for 20), ms. */
export const START_ALLOWANCE_MS = 2000;
/** Per measured slice beyond its length: health windows, connection set-up, writing results.json, ms. */
const SLICE_OVERHEAD_MS = 40;
/** Per profiled scenario beyond the profiled window (both sides at once): restart, profile write-out, ms. */
const PROFILE_SIDE_OVERHEAD_MS = 2000;
/** Per profiled scenario: merging the profiles and rendering three flamegraphs (1.3–2.4 s measured, docs/profiling.md), ms. */
const PROFILE_RENDER_MS = 2500;
/** Per confirmed culprit beyond its block: the reverted worktree and its copy of node_modules (the build is the project's, not counted), ms. */
const CONFIRM_TREE_MS = 2000;
/** The profiler's warm-up is load.warmup, at most this (as in profile.ts). */
const PROFILE_WARMUP_CAP_MS = 2000;

export interface PhaseEstimate {
  phase: 'measure' | 'benchmarks' | 'profile';
  /** Expected length, ms. */
  ms: number;
  /** What the phase does, in words. */
  detail: string;
}

export interface RunEstimate {
  phases: PhaseEstimate[];
  /** Sum of the phases, ms (install and build not included). */
  totalMs: number;
  /** Per interim look, the total when it stops the run early, ms (first look first); empty without early stopping. */
  earlyStops: { afterBlock: number; ms: number }[];
  /** Upper bounds that are not expectations (the micro-benchmark budget). */
  note: string | null;
  /**
   * What testing one failing scenario's culprit adds at most, ms, outside totalMs: only a scenario
   * that fails the gate gets its third arm (engine/phases/confirm.ts), one block and more while
   * its answer is unclear (MAX_ARM_BLOCKS), and a second arm when the first culprit explains too
   * little (MAX_ARMS); 0 when profile.confirm is off. Per scenario, because a passing run pays
   * nothing and the sum over every scenario failing at once is an unlikely worst case that reads
   * as the run's cost.
   */
  confirmMs: number;
  /** One arm of one block and its reverted tree, ms: what a clear answer costs; 0 when profile.confirm is off. */
  confirmArmMs: number;
  /** Each further block of an arm whose answer is still unclear, ms. */
  confirmBlockMs: number;
}

/**
 * The measured phase of `blocks`, ms: per block the start-up and the turns' warm-ups (per start
 * pair, the whole warm-up for its first scenario and one slice for each other: plan.ts,
 * turnWarmup; loaded in slices), then the slices (one per pair when simultaneous, two when
 * alternating).
 */
function measureMs(config: PerfgateConfig, blocks: PlannedBlock[]): number {
  const scenarios = config.scenarios.length;
  const { sliceMs, mode } = config.load;
  const slicesPerPair = mode === 'simultaneous' ? 1 : 2;
  const slices = (ms: number[]) => ms.reduce((sum, x) => sum + x + SLICE_OVERHEAD_MS, 0);
  const warmupPerStartPair = Array.from({ length: scenarios }, (_, position) => slices(turnWarmup(config.load, position))).reduce((a, b) => a + b, 0);
  const starts = blocks.reduce((n, b) => n + b.instances, 0);
  const pairs = blocks.reduce((n, b) => n + b.pairs, 0);
  return blocks.length * START_ALLOWANCE_MS + warmupPerStartPair * starts + scenarios * pairs * slicesPerPair * (sliceMs + SLICE_OVERHEAD_MS);
}

/**
 * The estimate of the run that executes `plan`. Without a plan, the one any seed gives: the seed
 * orders the pairs and the starts, it does not change how many there are.
 */
export function estimateRun(config: PerfgateConfig, plan: Plan = buildPlan(config, config.seed ?? 0)): RunEstimate {
  const phases: PhaseEstimate[] = [];
  const { pairs, blocks, sliceMs, warmupMs } = config.load;
  const scenarios = config.scenarios.length;
  let stopsMeasured: { afterBlock: number; ms: number }[] = [];
  let measure = 0;
  if (scenarios > 0) {
    measure = measureMs(config, plan.blocks);
    phases.push({
      phase: 'measure',
      ms: measure,
      detail: `${blocks} block${blocks === 1 ? '' : 's'} of ${config.load.instances} fresh start${config.load.instances === 1 ? '' : 's'} per side (warmed up ${formatDuration(warmupMs)} per start pair${scenarios > 1 ? `, then ${formatDuration(Math.min(warmupMs, sliceMs))} per other scenario` : ''}), ${pairs} ${config.load.mode} pairs of ${formatDuration(sliceMs)} slices per scenario`,
    });
    if (plan.sequential) {
      // the last look is the end of the run; the ones before it may stop it early
      stopsMeasured = plan.sequential.looks
        .slice(0, -1)
        .map((look) => ({ afterBlock: look.afterBlock, ms: measureMs(config, plan.blocks.slice(0, look.afterBlock + 1)) - measure }));
    }
  }
  let note: string | null = null;
  if (config.benchmarks) {
    const { rounds, budgetMs, files } = config.benchmarks;
    phases.push({
      phase: 'benchmarks',
      ms: budgetMs,
      detail: `${rounds} rounds of ${files.join(', ')}, one fresh process per file and side; at most ${formatDuration(budgetMs)} (benchmarks.budget)`,
    });
    note = `the micro-benchmark phase is counted at its budget (${formatDuration(budgetMs)}); it usually ends sooner`;
  }
  const profiled = profiledScenarios(config);
  if (profiled.length > 0 && config.profile) {
    const bothSides = Math.min(warmupMs, PROFILE_WARMUP_CAP_MS) + config.profile.durationMs + PROFILE_SIDE_OVERHEAD_MS;
    phases.push({
      phase: 'profile',
      ms: profiled.length * (bothSides + PROFILE_RENDER_MS),
      detail:
        `${profiled.length} scenario${profiled.length === 1 ? '' : 's'} × base and head at once, ${formatDuration(config.profile.durationMs)} of profiled load, then flamegraphs` +
        (config.profile.when === 'changed' ? '; at most: a scenario whose gated verdicts are all unchanged or no regression is not profiled' : ''),
    });
  }
  // Blocks of the plan's first block's size for a failing scenario's one scenario: MAX_ARM_BLOCKS per arm, MAX_ARMS arms at most.
  const confirms = profiled.length > 0 && config.profile.confirm && plan.blocks.length > 0;
  const confirmBlockMs = confirms ? measureMs({ ...config, scenarios: config.scenarios.slice(0, 1) }, plan.blocks.slice(0, 1)) : 0;
  const confirmArmMs = confirms ? confirmBlockMs + CONFIRM_TREE_MS : 0;
  const confirmMs = MAX_ARMS * (confirmArmMs + (MAX_ARM_BLOCKS - 1) * confirmBlockMs);
  const totalMs = phases.reduce((sum, p) => sum + p.ms, 0);
  const earlyStops = stopsMeasured.map((stop) => ({ afterBlock: stop.afterBlock, ms: totalMs + stop.ms }));
  return { phases, totalMs, earlyStops, note, confirmMs, confirmArmMs, confirmBlockMs };
}

/** Pairs per block, as the plan splits them. */
export function pairsPerBlock(config: PerfgateConfig): number[] {
  return blockSizes(config.load.pairs, config.load.blocks);
}

/** An approximate length: 950 → "950ms", 1500 → "1.5s", 75_000 → "1m 15s", 3_720_000 → "1h 2m". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? ` ${s % 60}s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}h${m % 60 ? ` ${m % 60}m` : ''}`;
}

/** A clock for progress lines: 75_000 → "1:15", 3_725_000 → "1:02:05". */
export function formatClock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}
