import * as core from '@actions/core';
import { boundaryAt } from '../engine/process/boundary.js';
import { isDroppedName } from '../engine/process/env.js';
import { killGroupsFromFile, stopMarked } from '../engine/process/processes.js';
import { dropTokenVariables, hideFromEnviron } from './environ.js';
import { STATE_BOUNDARY, STATE_PID_FILE, STATE_RUN_MARKER } from './state.js';

/**
 * The post step runs even when the job was cancelled mid-measurement: stop everything left in
 * the run's boundary, then any service the main step left behind by process group and by the
 * run's marker (where there was no boundary). A failing cleanup only warns.
 * The runner gives the post step the main step's environment again (its inputs, github-token
 * included, ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN with id-token: write) plus the
 * saved state (STATE_*). Without state (the main step stopped before it ran any PR code, or
 * ran in report mode) there is nothing to stop: it returns at once. Otherwise it drops and hides
 * the token variables before it looks for the processes that could read them.
 */
export async function post(): Promise<void> {
  const pidFile = core.getState(STATE_PID_FILE);
  const marker = core.getState(STATE_RUN_MARKER);
  const boundaryPath = core.getState(STATE_BOUNDARY);
  if (!pidFile && !marker && !boundaryPath) return;
  dropTokenVariables(process.env);
  hideFromEnviron(isDroppedName);
  try {
    // The boundary first: it stops everything in it at once, whatever left its group.
    const boundary = boundaryPath ? boundaryAt(boundaryPath) : null;
    if (boundaryPath && !boundary) core.warning(`perfgate cleanup: the state names ${boundaryPath}, which is not a boundary perfgate creates; left alone.`);
    const inside = boundary ? await boundary.close() : 0;
    if (inside > 0) core.info(`perfgate: stopped ${inside} process(es) left in ${boundary!.description}`);
    // The pid file lies in RUNNER_TEMP, where the PR's code could write: with a marker, only
    // groups whose leader carries it are stopped.
    const killed = pidFile ? await killGroupsFromFile(pidFile, 3000, marker || null) : 0;
    if (killed > 0) core.info(`perfgate: stopped ${killed} service process group(s) left running`);
    const escaped = marker ? await stopMarked(marker) : 0;
    if (escaped > 0) core.info(`perfgate: stopped ${escaped} process(es) of this run left running outside their group`);
  } catch (e) {
    core.warning(`perfgate cleanup: ${(e as Error).message}`);
  }
}
