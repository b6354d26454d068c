import type { PerfgateConfig } from '../config/types.js';
import { formatClock, type RunEstimate } from '../engine/estimate.js';
import type { Logger, ProgressEvent } from '../engine/ports.js';

/**
 * Progress on stderr: one line per phase, and the pair (or benchmark process) counter —
 * rewritten in place on a terminal, every 10th (and the last) in a CI log. Counter lines show
 * the time elapsed and, once pairs are measured, the time left: the pairs still to measure at
 * the pace measured so far, plus the estimate of the phases after them.
 */
export function terminalProgress(
  stream: NodeJS.WriteStream,
  quiet: boolean,
  estimate?: RunEstimate,
  config?: PerfgateConfig,
  now: () => number = Date.now,
): { logger: Logger; progress(e: ProgressEvent): void } {
  const tty = stream.isTTY === true;
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
  const where = (e: ProgressEvent) =>
    [e.block && e.blocks && e.blocks > 1 ? `block ${e.block}/${e.blocks}` : '', e.scenario ?? '', e.side ?? '']
      .filter(Boolean)
      .join(' · ');

  // The time left: measured pace × pairs to go + the phases after the measurement.
  const totalPairs = (config?.load.pairs ?? 0) * (config?.scenarios.length ?? 0);
  const afterMeasureMs = (estimate?.phases ?? []).filter((p) => p.phase !== 'measure').reduce((sum, p) => sum + p.ms, 0);
  const pairsDone = new Map<string, number>();
  let measureStarted: number | null = null;
  const clock = (): string => {
    const elapsed = now() - started;
    const done = [...pairsDone.values()].reduce((a, b) => a + b, 0);
    if (!estimate || totalPairs === 0 || done === 0 || measureStarted === null) return formatClock(elapsed);
    const left = ((now() - measureStarted) / done) * Math.max(0, totalPairs - done) + afterMeasureMs;
    return `${formatClock(elapsed)} elapsed, ~${formatClock(left)} left`;
  };

  /** A counter line: rewritten in place on a terminal, every 10th (and the last) in a CI log. */
  const counter = (text: string, e: ProgressEvent) => {
    if (tty) {
      stream.write(`\r[perfgate] ${text} · ${clock()}\x1b[K`);
      open = true;
    } else if (e.pair === e.pairs || (e.pair ?? 0) % 10 === 0) {
      stream.write(`[perfgate] ${text} · ${clock()}\n`);
    }
  };
  return {
    logger,
    progress(e) {
      if (e.phase === 'start' && measureStarted === null) measureStarted = now();
      if (e.phase === 'measure' && e.scenario) pairsDone.set(e.scenario, e.pair ?? 0);
      if (quiet) return;
      switch (e.phase) {
        case 'measure':
          return counter(`measuring ${where(e)} · pair ${e.pair}/${e.pairs}`, e);
        case 'benchmark':
          return counter(`micro-benchmarks · ${e.message} · ${e.side} · process ${e.pair}/${e.pairs}`, e);
        case 'workspace':
          return line('preparing base and head trees');
        case 'install':
        case 'build':
          return line(`${e.phase} ${e.side}: ${e.message}`);
        case 'start':
          return line(`starting ${where(e)} (${clock()})`);
        case 'warmup':
          return line(`warming up ${where(e)}`);
        case 'stop':
          return line(`stopping services${e.blocks && e.blocks > 1 ? ` (block ${e.block}/${e.blocks})` : ''}`);
        case 'profile':
          return line(e.message ? `${e.scenario}: ${e.message}` : `profiling ${where(e)} (${clock()})`);
        case 'done':
          return line(`measurement done (${formatClock(now() - started)})`);
      }
    },
  };
}
