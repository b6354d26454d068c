import * as core from '@actions/core';
import { environmentWarnings, type RunEnvironment } from '../compare/environment.js';
import { STATE_BOUNDARY, STATE_HEAD_HOME } from './state.js';

/**
 * The boundary the pull request's code runs in and the user head's code runs as, recorded for the
 * post step and the log; where either could not be had, the warning results.json carries
 * (environmentWarnings) is said as an annotation too.
 */
export function announceBoundary(environment: RunEnvironment): void {
  const { boundary, headUser } = environment;
  if (boundary) {
    core.saveState(STATE_BOUNDARY, boundary.path);
    core.info(`perfgate: the pull request's code runs inside ${boundary.description}`);
    if (headUser) {
      core.saveState(STATE_HEAD_HOME, headUser.home);
      core.info(`perfgate: head's code runs as ${headUser.description}; base's as this step's user`);
    }
  }
  for (const warning of environmentWarnings(environment)) core.warning(`perfgate: ${warning.message}`);
}
