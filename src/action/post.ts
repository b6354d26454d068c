import * as core from '@actions/core';
import { killGroupsFromFile, stopMarked } from '../engine/process.js';
import { STATE_PID_FILE, STATE_RUN_MARKER } from './state.js';

/**
 * The post step runs even when the job was cancelled mid-measurement: stop any service the
 * main step left behind, by process group and by the run's marker (a process that left its
 * group). A failing cleanup only warns.
 */
export async function post(): Promise<void> {
  try {
    const pidFile = core.getState(STATE_PID_FILE);
    const marker = core.getState(STATE_RUN_MARKER);
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
