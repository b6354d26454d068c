/**
 * A gate run that measures one commit on both of the engine's sides: a record of a pushed commit
 * (action/record-mode.ts), or a pull request's head set against a stored record of its base
 * (action/stored-baseline.ts). The gate's sequence (action/gate-mode.ts) runs it, with these
 * two hooks.
 */
import type { Preflight } from '../engine/preflight.js';
import type { Results } from '../results/types.js';
import type { RunContext } from './context.js';
import type { StepFiles } from './file-commands.js';

export interface OneCommitRun {
  /** Once the refs and configuration are resolved, before anything is checked out or run: throws to refuse. */
  check(checked: Preflight, context: RunContext): Promise<void>;
  /**
   * The measured results → what the gate publishes (a stored baseline attached), or null when
   * this hook finished the step itself (a record, uploaded as its artifact).
   */
  finish(results: Results, resultsPath: string, outDir: string, files: StepFiles): Promise<Results | null>;
}
