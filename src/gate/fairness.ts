/**
 * Whether base and head were measured on equal terms. Every start of a block is up before any
 * load, so the starts that wait for their turn share the CPUs with the ones being measured: an
 * idle Node.js service uses next to no CPU (perfgate's preload measures nothing between slices),
 * and a start that burns CPU while it waits takes it from the other side's measurement. A head
 * that spins whenever it gets no request makes base look slower and its own regression pass; a
 * base that does work while idle makes head look slower. Either way the verdicts measure the
 * interference, not the code, so the run gets none (the shells exit 2). Pure.
 */
import type { Results, Side, UnfairFinding } from '../results/types.js';
import { percentText } from './text.js';

/**
 * The most CPU one side's idle starts, all of them together, may use while the other side is
 * measured, as a share of one core averaged over those slices. An honest idle service uses
 * 0–1% (a clock tick now and then: 10 ms is 3% of a 300 ms slice, so single slices are coarse
 * and only the average is judged); 10% leaves room for a timer, a poller or a GC tick in each of
 * a dozen idle starts, and is far below what a busy loop burns (one core is 100%). The average,
 * not the median, over slices: a side that burns in fewer than half of them would pass a median
 * and still move the verdicts; under the average it can burn at most a tenth of a core's time,
 * however it spreads it.
 */
export const IDLE_CPU_LIMIT = 0.1;

const SIDES: readonly Side[] = ['base', 'head'];

/** One side's idle starts over the other side's slices: CPU seconds used, slice seconds, slices. */
function idleUse(results: Results, side: Side): { cpuSeconds: number; seconds: number; slices: number; starts: number } {
  const use = { cpuSeconds: 0, seconds: 0, slices: 0, starts: 0 };
  const other = side === 'base' ? 'head' : 'base';
  for (const scenario of results.scenarios) {
    for (const pair of scenario.pairs) {
      const slice = pair[other];
      const idle = slice.idle?.[side];
      if (!idle || idle.starts === 0 || slice.durationMs <= 0) continue;
      use.cpuSeconds += idle.cpuSeconds;
      use.seconds += slice.durationMs / 1000;
      use.slices++;
      use.starts = Math.max(use.starts, idle.starts);
    }
  }
  return use;
}

/** The run's unfair-comparison findings: each side whose idle starts burned more than IDLE_CPU_LIMIT while the other was measured. */
export function analyzeFairness(results: Results): UnfairFinding[] {
  const findings: UnfairFinding[] = [];
  for (const side of SIDES) {
    const use = idleUse(results, side);
    if (use.seconds === 0) continue;
    const share = use.cpuSeconds / use.seconds;
    if (share <= IDLE_CPU_LIMIT) continue;
    const other = side === 'base' ? 'head' : 'base';
    const starts = `${use.starts} start${use.starts === 1 ? '' : 's'}`;
    const cause =
      side === 'head'
        ? "the pull request's code does work while it receives no requests (a busy loop, a polling timer, a background job), and that CPU was taken from base's measurement, which makes head look faster than it is"
        : "base's code does work while it receives no requests (a polling timer, a background job), and that CPU was taken from head's measurement, which makes head look slower than it is";
    findings.push({
      code: 'idle-cpu',
      side,
      idleCoreShare: Math.round(share * 1e4) / 1e4,
      slices: use.slices,
      message:
        `${side}'s idle service used ${percentText(share)} of a core while ${other} was measured (its ${starts} not under load, on average over ${use.slices} slices; limit ${percentText(IDLE_CPU_LIMIT)}): ` +
        `the comparison is not fair, so this run gives no verdict. Likely ${cause}. ` +
        `Make the service wait idle when it has no requests (results.json: idle in each slice shows how much it used).`,
    });
  }
  return findings;
}
