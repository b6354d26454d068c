import * as core from '@actions/core';
import { type Boundary, openBoundary } from '../engine/boundary.js';
import { programPathOrNull } from '../engine/process.js';
import { STATE_BOUNDARY } from './state.js';

/**
 * The boundary the pull request's code runs in, recorded for the post step; null, with a
 * warning that says what it means, where none can be had (then perfgate stops what it finds by
 * process group and run marker, as without one).
 */
export function openRunBoundary(marker: string): Boundary | null {
  const opened = openBoundary(marker, programPathOrNull('sudo'));
  if ('unavailable' in opened) {
    core.warning(
      `perfgate: no boundary around the pull request's code: ${opened.unavailable}. A process it starts that leaves its process group ` +
        'and drops PERFGATE_RUN_ID from its environment (setsid env -i …) can outlive this step and write to the runner\'s files. ' +
        'Run the job where perfgate can create a cgroup (as root, or see docs/security.md).',
    );
    return null;
  }
  core.saveState(STATE_BOUNDARY, opened.path);
  core.info(`perfgate: the pull request's code runs inside ${opened.description}`);
  return opened;
}
