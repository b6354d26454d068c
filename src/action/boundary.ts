import * as core from '@actions/core';
import type { RunEnvironment } from '../compare/environment.js';
import type { RunWarning } from '../results/types.js';
import { STATE_BOUNDARY } from './state.js';

/**
 * The boundary the pull request's code runs in, recorded for the post step; where none could be
 * had, a warning for the log and for the results that says what it means (then perfgate stops
 * what it finds by process group and run marker, as without one).
 */
export function announceBoundary(environment: RunEnvironment): RunWarning | null {
  const { boundary, noBoundary } = environment;
  if (noBoundary !== null) {
    const message =
      `No boundary around the pull request's code: ${noBoundary}. A process it starts that leaves its process group ` +
      "and drops PERFGATE_RUN_ID from its environment (setsid env -i …) can outlive this step and write to the runner's files. " +
      'perfgate makes one as root or with sudo -n (docs/security.md).';
    core.warning(`perfgate: ${message}`);
    return { code: 'no-boundary', message };
  }
  if (boundary) {
    core.saveState(STATE_BOUNDARY, boundary.path);
    core.info(`perfgate: the pull request's code runs inside ${boundary.description}`);
  }
  return null;
}
