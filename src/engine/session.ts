import { writeResults } from '../results/io.js';
import type { Results } from '../results/types.js';
import { CancelledError } from './errors.js';
import type { EnginePorts } from './ports.js';
import type { ProcessTracker } from './process/processes.js';
import { OutputTally } from './service/noisy-output.js';

/**
 * One run's shared state, handed to each phase (HTTP load, micro-benchmarks, profiles) instead
 * of the same six values as separate parameters: the results being built, where they are
 * written, the scrubbed environment of the user's processes, the log directory, the process
 * tracker and the cancel signal.
 */
export class RunSession {
  /** What the measured starts printed, for the warning about a noisy service. */
  readonly output = new OutputTally();

  constructor(
    readonly results: Results,
    readonly resultsPath: string,
    /** Scrubbed environment of the user's processes. */
    readonly env: Record<string, string>,
    readonly logDir: string,
    readonly tracker: ProcessTracker,
    readonly ports: EnginePorts,
    readonly signal?: AbortSignal,
  ) {}

  /** Applies a change to the results and writes results.json, so a crash keeps what was measured. */
  update(change: (results: Results) => void = () => {}): void {
    change(this.results);
    writeResults(this.resultsPath, this.results);
  }

  /** Throws CancelledError when the run was cancelled (the shells abort on SIGINT/SIGTERM). */
  checkCancelled(): void {
    if (this.signal?.aborted) throw new CancelledError('Cancelled: stopped the services and removed the worktrees.');
  }
}
