/**
 * How much each side's starts printed, and under which scenario's load: a service whose output
 * went past its log's cap (process/bounded-log.ts) gets one warning for the run, naming the side,
 * the scenario it printed most under and how much, and the fix. Printing is work the service
 * does while it is measured, and a debug logger left on can be most of it.
 */
import type { RunWarning, Side } from '../../results/types.js';
import { formatBytes } from '../../stats/format.js';
import { START_LOG_CAP } from '../process/bounded-log.js';
import type { Service } from './service.js';

interface SideOutput {
  starts: number;
  printed: number;
  /** The most one start printed. */
  most: number;
  /** Starts whose output went past the cap. */
  over: number;
  dropped: number;
  /** Bytes printed while each scenario was measured (its warm-up and pairs). */
  underLoad: Map<string, number>;
}

const emptySide = (): SideOutput => ({ starts: 0, printed: 0, most: 0, over: 0, dropped: 0, underLoad: new Map() });

export class OutputTally {
  private readonly sides: Record<Side, SideOutput> = { base: emptySide(), head: emptySide() };

  /** Runs one scenario's turn on `services` and counts what they printed meanwhile. */
  async measured<T>(services: readonly Service[], scenario: string, turn: () => Promise<T>): Promise<T> {
    const before = services.map((s) => s.output.printed);
    try {
      return await turn();
    } finally {
      services.forEach((service, i) => {
        const { underLoad } = this.sides[service.side];
        underLoad.set(scenario, (underLoad.get(scenario) ?? 0) + service.output.printed - before[i]!);
      });
    }
  }

  /** Counts a stopped start's whole output. */
  stopped(service: Service): void {
    const side = this.sides[service.side];
    const { printed, dropped } = service.output;
    side.starts++;
    side.printed += printed;
    side.most = Math.max(side.most, printed);
    side.dropped += dropped;
    if (dropped > 0) side.over++;
  }

  /** The run's one warning about its services' output, or null when every start's output fit its log. */
  warning(): RunWarning | null {
    const noisy = (['base', 'head'] as const).filter((side) => this.sides[side].over > 0);
    if (noisy.length === 0) return null;
    const said = noisy.map((side) => describeSide(side, this.sides[side]));
    const dropped = noisy.reduce((n, side) => n + this.sides[side].dropped, 0);
    const logs = noisy.map((side) => `logs/${side}.log`).join(' and ');
    const scenarios = new Set(noisy.flatMap((side) => topScenario(this.sides[side]) ?? []));
    return {
      code: 'noisy-service',
      message:
        `${said.join('; ')}. perfgate kept the first ${START_LOG_CAP.headBytes / 1024} KiB and the last ${START_LOG_CAP.tailBytes / 1024} KiB of each start's output ` +
        `in ${logs} and left out ${formatBytes(dropped)}. Printing this much is work the service did while it was measured: log less under load, ` +
        'e.g. set the logger\'s level through the service\'s env (service.env: { LOG_LEVEL: warn } in perfgate.yml, for a logger that reads it).',
      ...(scenarios.size === 1 && { scenario: [...scenarios][0]! }),
    };
  }
}

/** The scenario under whose load a side printed most, or null when it printed nothing under load. */
function topScenario(side: SideOutput): string | null {
  const [name, bytes] = [...side.underLoad].reduce((top, entry) => (entry[1] > top[1] ? entry : top), ['', 0]);
  return bytes > 0 ? name : null;
}

function describeSide(name: Side, side: SideOutput): string {
  const top = topScenario(side);
  const underLoad = [...side.underLoad.values()].reduce((a, b) => a + b, 0);
  const where = top
    ? `${formatBytes(underLoad)} of it under load, the most while scenario "${top}" was measured (${formatBytes(side.underLoad.get(top)!)})`
    : 'all of it before any load (at start-up)';
  const starts = `${side.over} of its ${side.starts} start${side.starts === 1 ? '' : 's'}`;
  return `The ${name} service printed up to ${formatBytes(side.most)} per start, ${formatBytes(side.printed)} in all (${where}); ${starts} printed more than its log keeps`;
}
