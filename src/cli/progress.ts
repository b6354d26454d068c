import type { PerfgateConfig } from '../config/types.js';
import { formatClock, pairsPerBlock, type RunEstimate, START_ALLOWANCE_MS } from '../engine/estimate.js';
import type { Logger, ProgressEvent } from '../engine/ports.js';
import { profiledScenarios } from '../engine/phases/profile.js';

export interface ProgressOptions {
  /** No progress lines (warnings still show). */
  quiet: boolean;
  /** The plan's estimate: the prior for the time left until measured rates replace it. */
  estimate?: RunEstimate;
  config?: PerfgateConfig;
  /** A CI log (process.env.CI set): lines are never rewritten in place, even on a TTY. */
  ci?: boolean;
  /** Clock, ms. */
  now?: () => number;
}

/** The phases after the HTTP measurement, in the order they run. */
const AFTER_MEASURE = ['benchmark', 'profile', 'confirm', 'done'] as const;

/**
 * The time left, from rates measured on this run: how long a block's services take to start,
 * and how long a pair takes with its share of the warm-ups (measured over whole stretches of
 * pairs, from the end of a boot or of the previous stretch to the pair that completes a
 * scenario's share of the block, so the warm-up at the head of a stretch is not charged to its
 * first pair alone). Until a stretch is complete the plan's estimate stands in. When a phase after
 * the measurement starts (a look stopped the run early, or it measured every block), the pairs
 * still planned leave the total. A failing scenario's third arm (its culprit reverted) joins it
 * when the engine announces it: the plan's estimate of one arm (RunEstimate.confirmArmMs) per arm,
 * and of one block (confirmBlockMs) per further block of an arm whose answer was unclear.
 */
export class TimeLeft {
  private readonly blockPairs: number[];
  private readonly scenarios: number;
  private readonly priorPairMs: number;
  private readonly afterPhases: { phase: string; ms: number }[];
  private readonly boots: number[] = [];
  private blockStartedAt: number | null = null;
  private stretchStartedAt: number | null = null;
  private block = 0;
  private readonly pairsDone = new Map<string, number>();
  private pairsInStretch = 0;
  private measuredMs = 0;
  private measuredPairs = 0;
  private after: { phase: string; since: number } | null = null;
  /** The scenarios the profile phase's estimate counts. */
  private profiledScenarios: number;
  /** One third arm: a block of the plan's first block's size and its reverted tree, ms. */
  private readonly armMs: number;
  /** A further block of an arm, ms. */
  private readonly armBlockMs: number;

  constructor(estimate: RunEstimate, config: PerfgateConfig) {
    this.blockPairs = pairsPerBlock(config);
    this.scenarios = config.scenarios.length;
    const measure = estimate.phases.find((p) => p.phase === 'measure')?.ms ?? 0;
    const totalPairs = config.load.pairs * this.scenarios;
    this.priorPairMs = totalPairs > 0 ? Math.max(0, measure - this.blockPairs.length * START_ALLOWANCE_MS) / totalPairs : 0;
    this.afterPhases = estimate.phases
      .filter((p) => p.phase !== 'measure')
      .map((p) => ({ phase: p.phase === 'benchmarks' ? 'benchmark' : p.phase, ms: p.ms }));
    // Nothing until a scenario fails: a passing run tests no culprit.
    this.afterPhases.push({ phase: 'confirm', ms: 0 });
    this.armMs = estimate.confirmArmMs;
    this.armBlockMs = estimate.confirmBlockMs;
    this.profiledScenarios = profiledScenarios(config).length;
  }

  /** Takes in one progress event at time `t` (ms). */
  observe(e: ProgressEvent, t: number): void {
    if ((AFTER_MEASURE as readonly string[]).includes(e.phase)) {
      if (this.after?.phase !== e.phase) this.after = { phase: e.phase, since: t };
      // The verdicts left some scenarios unprofiled: the phase is that much shorter.
      if (e.phase === 'profile' && e.pair === 0 && e.pairs !== undefined && this.profiledScenarios > 0) {
        const profile = this.afterPhases.find((p) => p.phase === 'profile');
        if (profile) profile.ms = (profile.ms * e.pairs) / this.profiledScenarios;
        this.profiledScenarios = e.pairs;
      }
      if (e.phase === 'confirm') this.countArms(e);
      return;
    }
    // After the measurement, starts and pairs are a third arm's: its time is the confirm phase's.
    if (this.after !== null) return;
    if (e.phase === 'start') {
      if (e.block !== undefined && e.block !== this.block) {
        this.block = e.block;
        this.blockStartedAt = t;
        this.stretchStartedAt = null;
        this.pairsInStretch = 0;
      }
      return;
    }
    if ((e.phase === 'warmup' || e.phase === 'measure') && this.stretchStartedAt === null && this.blockStartedAt !== null) {
      this.boots.push(t - this.blockStartedAt);
      this.stretchStartedAt = t;
    }
    if (e.phase !== 'measure' || !e.scenario || e.pair === undefined) return;
    this.pairsDone.set(e.scenario, e.pair);
    this.pairsInStretch++;
    // A scenario's share of this block is complete: the stretch since the last one is a measured rate.
    const through = this.blockPairs.slice(0, Math.max(1, e.block ?? this.block)).reduce((a, b) => a + b, 0);
    if (e.pair === through && this.stretchStartedAt !== null) {
      this.measuredMs += t - this.stretchStartedAt;
      this.measuredPairs += this.pairsInStretch;
      this.stretchStartedAt = t;
      this.pairsInStretch = 0;
    }
  }

  /** The arms the confirm phase holds: one per scenario it announces, one more for each next culprit, and a block more for each further block. */
  private countArms(e: ProgressEvent): void {
    const confirm = this.afterPhases.find((p) => p.phase === 'confirm')!;
    if (e.pair === 0 && e.pairs !== undefined) confirm.ms = e.pairs * this.armMs;
    else if ((e.block ?? 1) > 1) confirm.ms += this.armBlockMs;
    else if ((e.pair ?? 1) > 1) confirm.ms += this.armMs;
  }

  /** Time left at `t`, ms; null before the measurement has begun (nothing measured to go on). */
  leftMs(t: number): number | null {
    const after = this.after;
    if (!after) return this.blockStartedAt === null ? null : this.measureLeftMs(t) + this.afterPhases.reduce((sum, p) => sum + p.ms, 0);
    // After the measurement: the rest of the current phase (its estimate) and the phases after it.
    const order = (phase: string) => (AFTER_MEASURE as readonly string[]).indexOf(phase);
    let left = 0;
    for (const p of this.afterPhases) {
      if (order(p.phase) > order(after.phase)) left += p.ms;
      else if (p.phase === after.phase) left += Math.max(0, p.ms - (t - after.since));
    }
    return left;
  }

  /** The measurement's part of the time left: this block's rest, then whole blocks (boot and pairs). */
  private measureLeftMs(t: number): number {
    const pairMs = this.pairMs(t);
    const bootMs = this.boots.length > 0 ? this.boots.reduce((a, b) => a + b, 0) / this.boots.length : START_ALLOWANCE_MS;
    const block = Math.max(1, this.block);
    const through = this.blockPairs.slice(0, block).reduce((a, b) => a + b, 0);
    const done = [...this.pairsDone.values()].reduce((a, b) => a + b, 0);
    const leftInBlock = Math.max(0, through * this.scenarios - done);
    let left: number;
    if (this.stretchStartedAt === null) {
      // still booting this block's services
      left = Math.max(0, bootMs - (t - (this.blockStartedAt ?? t))) + leftInBlock * pairMs;
    } else {
      left = Math.max(0, this.stretchStartedAt + (this.pairsInStretch + leftInBlock) * pairMs - t);
    }
    for (const pairs of this.blockPairs.slice(block)) left += bootMs + pairs * this.scenarios * pairMs;
    return left;
  }

  /** A pair's share of the measurement (its warm-ups included), ms: measured once a stretch is complete. */
  private pairMs(t: number): number {
    if (this.measuredPairs > 0) return this.measuredMs / this.measuredPairs;
    // Nothing complete yet: the plan's figure, unless this first stretch already outlasts it. A
    // block's start pairs serve every scenario in turn, so the first stretch to complete holds
    // the block's pairs of every scenario.
    const stretchPairs = (this.blockPairs[Math.max(1, this.block) - 1] ?? 1) * Math.max(1, this.scenarios);
    const sofar = this.stretchStartedAt === null ? 0 : (t - this.stretchStartedAt) / stretchPairs;
    return Math.max(this.priorPairMs, sofar);
  }
}

/**
 * Progress on stderr: one line per block and phase, and the pair (or benchmark process) counter —
 * rewritten in place on a terminal, and in a CI log (not a TTY, or CI set) printed once a
 * scenario's pairs of a block are done. Counter lines show the time elapsed and the time left
 * (TimeLeft).
 */
export function terminalProgress(stream: NodeJS.WriteStream, options: ProgressOptions): { logger: Logger; progress(e: ProgressEvent): void } {
  const { quiet, estimate, config } = options;
  const now = options.now ?? Date.now;
  const tty = stream.isTTY === true && options.ci !== true;
  const started = now();
  let open = false;
  const write = (text: string) => {
    if (open) stream.write('\n');
    open = false;
    stream.write(`[perfgate] ${text}\n`);
  };
  const line = (text: string) => {
    if (!quiet) write(text);
  };
  const logger: Logger = {
    info: (m) => line(m),
    // Warnings are never hidden: --quiet silences progress, not problems.
    warn: (m) => write(`warning: ${m}`),
    debug: () => {},
  };
  const blockOf = (e: ProgressEvent) => (e.block && e.blocks && e.blocks > 1 ? `block ${e.block}/${e.blocks}` : '');
  const where = (e: ProgressEvent) => [blockOf(e), e.scenario ?? '', e.side ?? ''].filter(Boolean).join(' · ');

  const timeLeft = estimate && config && config.scenarios.length > 0 ? new TimeLeft(estimate, config) : null;
  const blockEnds = config ? pairsPerBlock(config).map((_, b, sizes) => sizes.slice(0, b + 1).reduce((x, y) => x + y, 0)) : [];
  const clock = (): string => {
    const elapsed = formatClock(now() - started);
    const left = timeLeft?.leftMs(now());
    return left === null || left === undefined ? elapsed : `${elapsed} elapsed, ~${formatClock(left)} left`;
  };

  /** A counter line: rewritten in place on a terminal; in a CI log only when `due`. */
  const counter = (text: string, due: boolean) => {
    if (tty) {
      stream.write(`\r[perfgate] ${text} · ${clock()}\x1b[K`);
      open = true;
    } else if (due) {
      stream.write(`[perfgate] ${text} · ${clock()}\n`);
    }
  };
  let startedBlock: number | null = null;
  /** The culprit whose revert is being measured, once the third arm runs: its pairs are said as the arm's. */
  let reverted: string | null = null;
  return {
    logger,
    progress(e) {
      timeLeft?.observe(e, now());
      if (quiet) return;
      switch (e.phase) {
        case 'measure': {
          const due = e.pair === e.pairs || (blockEnds.length > 0 ? blockEnds.includes(e.pair ?? -1) : (e.pair ?? 0) % 10 === 0);
          const arm = reverted === null ? '' : ` · head against ${reverted} reverted`;
          return counter(`measuring ${where(e)}${arm} · pair ${e.pair}/${e.pairs}`, reverted !== null ? e.pair === e.pairs : due);
        }
        case 'benchmark':
          return counter(`micro-benchmarks · ${e.message} · ${e.side} · process ${e.pair}/${e.pairs}`, e.pair === e.pairs || (e.pair ?? 0) % 10 === 0);
        case 'workspace':
          return line('preparing base and head trees');
        case 'install':
        case 'build':
          return line(`${e.phase} ${e.side}: ${e.message}`);
        case 'start':
          // Every start of a block boots at once: one line for all of them.
          if (startedBlock === (e.block ?? 0)) return;
          startedBlock = e.block ?? 0;
          return line(`starting ${blockOf(e) || 'the services'} (${clock()})`);
        case 'warmup':
          return line(`warming up ${where(e)}`);
        case 'stop':
          return line(`stopping services${e.blocks && e.blocks > 1 ? ` (block ${e.block}/${e.blocks})` : ''}`);
        case 'profile':
          return line(e.message ? [e.scenario, e.message].filter(Boolean).join(': ') : `profiling ${where(e)} (${clock()})`);
        case 'confirm':
          if (e.pair === 0) return line(`testing the culprit of ${e.pairs} failing scenario${e.pairs === 1 ? '' : 's'} by reverting it (${clock()})`);
          reverted = e.message ?? null;
          // The arm's block starts its services afresh: its starting line is said again.
          startedBlock = null;
          if ((e.block ?? 1) > 1) return line(`${e.scenario}: the answer is not clear yet: block ${e.block}/${e.blocks} of ${e.message} reverted (${clock()})`);
          return line(`${e.scenario}: reverting this PR's change to ${e.message}${(e.pair ?? 1) > 1 ? ' (the next culprit)' : ''} (${clock()})`);
        case 'done':
          return line(`measurement done (${formatClock(now() - started)})`);
      }
    },
  };
}
