import type { Logger, ProgressEvent } from '../engine/ports.js';

/**
 * Progress on stderr: one line per phase, and the pair (or benchmark process) counter —
 * rewritten in place on a terminal, every 10th (and the last) in a CI log.
 */
export function terminalProgress(stream: NodeJS.WriteStream, quiet: boolean): { logger: Logger; progress(e: ProgressEvent): void } {
  const tty = stream.isTTY === true;
  let open = false;
  const line = (text: string) => {
    if (quiet) return;
    if (open) stream.write('\n');
    open = false;
    stream.write(`[perfgate] ${text}\n`);
  };
  const logger: Logger = {
    info: (m) => line(m),
    warn: (m) => line(`warning: ${m}`),
    debug: () => {},
  };
  const where = (e: ProgressEvent) =>
    [e.block && e.blocks && e.blocks > 1 ? `block ${e.block}/${e.blocks}` : '', e.scenario ?? '', e.side ?? '']
      .filter(Boolean)
      .join(' · ');
  /** A counter line: rewritten in place on a terminal, every 10th (and the last) in a CI log. */
  const counter = (text: string, e: ProgressEvent) => {
    if (tty) {
      stream.write(`\r[perfgate] ${text}\x1b[K`);
      open = true;
    } else if (e.pair === e.pairs || (e.pair ?? 0) % 10 === 0) {
      stream.write(`[perfgate] ${text}\n`);
    }
  };
  return {
    logger,
    progress(e) {
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
          return line(`starting ${where(e)}`);
        case 'warmup':
          return line(`warming up ${where(e)}`);
        case 'stop':
          return line(`stopping services${e.blocks && e.blocks > 1 ? ` (block ${e.block}/${e.blocks})` : ''}`);
        case 'profile':
          return line(e.message ? `${e.scenario}: ${e.message}` : `profiling ${where(e)}`);
        case 'done':
          return line('measurement done');
      }
    },
  };
}
