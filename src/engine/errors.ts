/**
 * Errors that stop a run. Each message says what happened and what to do next; the shells
 * print it and exit 2 (a regression is a verdict, never an exception).
 */
export class PerfgateError extends Error {
  /** Set when the run had started: what was measured so far is kept there. */
  resultsPath?: string;
  /** Set with resultsPath: how many pairs (and benchmark runs) were measured before the error. */
  measured?: number;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A setup step (git, install, build) failed. */
export class SetupError extends PerfgateError {}

/** The service did not become ready, or died while being measured. */
export class ServiceError extends PerfgateError {
  constructor(
    message: string,
    readonly logTail: string,
  ) {
    super(logTail ? `${message}\n--- last lines of the service log ---\n${logTail}` : message);
  }
}

/** A scenario cannot be measured as written (its route fails on both sides). */
export class ScenarioError extends PerfgateError {}

/** The run was cancelled (Ctrl-C, job cancelled). */
export class CancelledError extends PerfgateError {}

/** Base's tree changed after perfgate installed and built it (engine/workspace/base-seal.ts): the run gives no verdict. */
export class BaseTreeChangedError extends PerfgateError {}

/** Another process stopped, reniced, re-pinned or moved a service's processes, or burned CPU outside every start (engine/process/interference.ts): the run gives no verdict. */
export class InterferenceError extends PerfgateError {}

/** The copy of the preloads perfgate loads into every service changed during the run (engine/service/preloads.ts): the run gives no verdict. */
export class PreloadChangedError extends PerfgateError {}

/**
 * The line after a failed run's message that says where its results.json is, and whether it holds
 * any measurement: "the pairs are kept" when none was measured sends the reader to an empty file.
 * null when the run had not started (nothing was written).
 */
export function keptResultsLine(error: Pick<PerfgateError, 'resultsPath' | 'measured'>): string | null {
  if (!error.resultsPath) return null;
  if (error.measured === 0) return `Nothing was measured before the error; the run's settings and the error are in ${error.resultsPath}`;
  return `The pairs measured before the error are kept in ${error.resultsPath}`;
}
