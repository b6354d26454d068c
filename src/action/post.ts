import * as core from '@actions/core';
import { killGroupsFromFile } from '../engine/process.js';
import { STATE_PID_FILE } from './state.js';

/**
 * The post step runs even when the job was cancelled mid-measurement: stop any service the
 * main step left behind. A failing cleanup only warns.
 */
export async function post(): Promise<void> {
  try {
    const pidFile = core.getState(STATE_PID_FILE);
    if (!pidFile) return;
    const killed = await killGroupsFromFile(pidFile);
    if (killed > 0) core.info(`perfgate: stopped ${killed} service process group(s) left running`);
  } catch (e) {
    core.warning(`perfgate cleanup: ${(e as Error).message}`);
  }
}
