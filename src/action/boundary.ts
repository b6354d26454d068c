import * as core from '@actions/core';
import { type Boundary, openBoundary } from '../engine/process/boundary.js';
import { programPathOrNull } from '../engine/process/programs.js';
import type { RunWarning } from '../results/types.js';
import { STATE_BOUNDARY } from './state.js';

/**
 * The boundary the pull request's code runs in, recorded for the post step; null, with a
 * warning for the log and for the results that says what it means, where none can be had (then
 * perfgate stops what it finds by process group and run marker, as without one).
 */
export function openRunBoundary(marker: string): { boundary: Boundary | null; warning: RunWarning | null } {
  const opened = openBoundary(marker, programPathOrNull('sudo'));
  if ('unavailable' in opened) {
    const message =
      `No boundary around the pull request's code: ${opened.unavailable}. A process it starts that leaves its process group ` +
      "and drops PERFGATE_RUN_ID from its environment (setsid env -i …) can outlive this step and write to the runner's files. " +
      'perfgate makes one as root or with sudo -n (docs/security.md).';
    core.warning(`perfgate: ${message}`);
    return { boundary: null, warning: { code: 'no-boundary', message } };
  }
  core.saveState(STATE_BOUNDARY, opened.path);
  core.info(`perfgate: the pull request's code runs inside ${opened.description}`);
  return { boundary: opened, warning: null };
}
