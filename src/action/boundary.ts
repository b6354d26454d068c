import * as core from '@actions/core';
import type { RunEnvironment } from '../compare/environment.js';
import type { RunWarning } from '../results/types.js';
import { STATE_BOUNDARY, STATE_HEAD_HOME } from './state.js';

/**
 * The boundary the pull request's code runs in and the user head's code runs as, recorded for the
 * post step and the log; where either could not be had, a warning for the log and for the results
 * that says what it means (then perfgate stops what it finds by process group and run marker, as
 * without one).
 */
export function announceBoundary(environment: RunEnvironment): RunWarning[] {
  const { boundary, noBoundary, headUser, noHeadUser } = environment;
  if (noBoundary !== null) {
    const message =
      `No boundary around the pull request's code: ${noBoundary}. A process it starts that leaves its process group ` +
      "and drops PERFGATE_RUN_ID from its environment (setsid env -i …) can outlive this step and write to the runner's files. " +
      'perfgate makes one as root or with sudo -n (docs/security.md).';
    core.warning(`perfgate: ${message}`);
    return [{ code: 'no-boundary', message }];
  }
  if (!boundary) return [];
  core.saveState(STATE_BOUNDARY, boundary.path);
  core.info(`perfgate: the pull request's code runs inside ${boundary.description}`);
  if (headUser) {
    core.saveState(STATE_HEAD_HOME, headUser.home);
    core.info(`perfgate: head's code runs as ${headUser.description}; base's as this step's user`);
    return [];
  }
  const message =
    `Head's code runs as this step's own user: ${noHeadUser}. It can read this step's environment, write the runner's files ` +
    "(GITHUB_OUTPUT, GITHUB_ENV) and base's tree, and use this user's sudo. perfgate makes the user perfgate-head as root or with sudo -n (docs/security.md).";
  core.warning(`perfgate: ${message}`);
  return [{ code: 'no-head-user', message }];
}
