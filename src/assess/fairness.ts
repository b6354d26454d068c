/**
 * Whether base and head were measured on equal terms. Every start of a block is up before any
 * load, so the starts that wait for their turn share the CPUs with the ones being measured. What
 * they burn is only unfair when it falls on one side's measurement more than on the other's: a
 * head that spins whenever it gets no request (while base is measured alone) makes base look
 * slower and its own regression pass; a base that does the same makes head look slower. A
 * service that does work on a timer whether or not it is measured (a cache rebuild, a poller)
 * burns as much during either side's slices, and with simultaneous slices (the default) both
 * sides are measured in the same window, so the same idle CPU falls on both: neither is unfair.
 * An unfair run gets no verdicts (the shells exit 2): they would measure the interference, not
 * the code. Pure.
 */
import type { Results, Side, UnfairFinding } from '../results/types.js';
import { percentText } from './text.js';

/**
 * How much more CPU the idle starts may use during one side's slices than during the other's,
 * as a share of one core averaged over each side's slices. An honest idle service uses 0–1%
 * (a clock tick now and then: 10 ms is 3% of a 300 ms slice, so single slices are coarse and
 * only the average is judged); 10% leaves room for timers and GC ticks that happen to fall
 * unevenly, and is far below a busy loop (one core is 100%). The average, not the median, over
 * slices: a side that burns in fewer than half of them would pass a median and still move the
 * verdicts; under the average it can tilt the measurement by at most a tenth of a core.
 */
export const IDLE_CPU_LIMIT = 0.1;

const SIDES: readonly Side[] = ['base', 'head'];
const otherOf = (side: Side): Side => (side === 'base' ? 'head' : 'base');

/** Per side measured, what each side's idle starts used during its slices (CPU seconds per second of slice), and how many slices and idle starts that is. */
function idleUse(results: Results): Record<Side, { share: Record<Side, number>; slices: number; starts: Record<Side, number> }> {
  const sums = Object.fromEntries(
    SIDES.map((measured) => [measured, { cpu: { base: 0, head: 0 }, seconds: 0, slices: 0, starts: { base: 0, head: 0 } }]),
  ) as Record<Side, { cpu: Record<Side, number>; seconds: number; slices: number; starts: Record<Side, number> }>;
  for (const scenario of results.scenarios) {
    for (const pair of scenario.pairs) {
      for (const measured of SIDES) {
        const slice = pair[measured];
        if (!slice.idle || slice.durationMs <= 0) continue;
        const sum = sums[measured];
        sum.seconds += slice.durationMs / 1000;
        sum.slices++;
        for (const idle of SIDES) {
          sum.cpu[idle] += slice.idle[idle].cpuSeconds;
          sum.starts[idle] = Math.max(sum.starts[idle], slice.idle[idle].starts);
        }
      }
    }
  }
  const share = (measured: Side, idle: Side) => (sums[measured].seconds > 0 ? sums[measured].cpu[idle] / sums[measured].seconds : 0);
  return Object.fromEntries(
    SIDES.map((measured) => [measured, { share: { base: share(measured, 'base'), head: share(measured, 'head') }, slices: sums[measured].slices, starts: sums[measured].starts }]),
  ) as ReturnType<typeof idleUse>;
}

/**
 * The run's unfair-comparison finding, if any: the idle starts used more than IDLE_CPU_LIMIT of a
 * core more during one side's slices than during the other's. It names the side whose idle
 * starts made the difference, by how much more they burned while the other side was measured.
 */
export function analyzeFairness(results: Results): UnfairFinding[] {
  const use = idleUse(results);
  if (use.base.slices === 0 || use.head.slices === 0) return [];
  const during = (measured: Side) => use[measured].share.base + use[measured].share.head;
  const tilt = during('base') - during('head');
  if (Math.abs(tilt) <= IDLE_CPU_LIMIT) return [];
  // The side measured under more idle CPU, and the side whose idle starts burned more then.
  const hurt: Side = tilt > 0 ? 'base' : 'head';
  const burner = otherOf(hurt);
  const own = use[hurt].share[burner];
  const ownWhenMeasured = use[burner].share[burner];
  const starts = `${use[hurt].starts[burner]} start${use[hurt].starts[burner] === 1 ? '' : 's'}`;
  const cause =
    burner === 'head'
      ? "the pull request's code does work while it receives no requests (a busy loop, a polling timer, a background job) when only base is measured, and that CPU was taken from base's measurement, which makes head look faster than it is"
      : "base's code does work while it receives no requests (a polling timer, a background job) when only head is measured, and that CPU was taken from head's measurement, which makes head look slower than it is";
  return [
    {
      code: 'idle-cpu',
      side: burner,
      idleCoreShare: Math.round(Math.abs(tilt) * 1e4) / 1e4,
      slices: use[hurt].slices,
      message:
        `${burner}'s idle service used ${percentText(own)} of a core while ${hurt} was measured (its ${starts} not under load, on average over ${use[hurt].slices} slices), ` +
        `${percentText(ownWhenMeasured)} while ${burner} itself was: ${hurt}'s measurement got ${percentText(Math.abs(tilt))} of a core more from the services waiting their turn (limit ${percentText(IDLE_CPU_LIMIT)}). ` +
        `The comparison is not fair, so this run gives no verdict. Likely ${cause}. ` +
        `Make the service wait idle when it has no requests (results.json: idle in each slice shows how much it used).`,
    },
  ];
}
