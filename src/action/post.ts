import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { removedText, removeLeftovers } from '../compare/leftovers.js';
import { boundaryAt } from '../engine/process/boundary.js';
import { isDroppedName } from '../engine/process/env.js';
import { dropTokenVariables, hideFromEnviron } from './environ.js';
import { STATE_BOUNDARY, STATE_HEAD_HOME, STATE_OUT_DIR, STATE_PID_FILE, STATE_REPO, STATE_RUN_MARKER } from './state.js';

/**
 * The post step runs even when the job was cancelled mid-measurement, and a hard cancel kills the
 * main step before its `finally`: it cleans up as the next CLI run cleans up after a killed one
 * (compare/leftovers.ts), from what the main step saved. It stops everything left in the run's
 * boundary, then any service left behind by process group and by the run's marker (where there
 * was no boundary), then removes the run's worktrees (only perfgate's own, under its run
 * directory) and its home for head's user, and says so in one line. A failing cleanup only warns.
 * The runner gives the post step the main step's environment again (its inputs, github-token
 * included, ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN with id-token: write) plus the
 * saved state (STATE_*). Without state (the main step stopped before it ran any PR code, or
 * ran in report mode) there is nothing to clean: it returns at once. Otherwise it drops and hides
 * the token variables before it looks for the processes that could read them.
 */
export async function post(): Promise<void> {
  const pidFile = core.getState(STATE_PID_FILE);
  const marker = core.getState(STATE_RUN_MARKER);
  const boundaryPath = core.getState(STATE_BOUNDARY);
  const outDir = core.getState(STATE_OUT_DIR);
  const headHome = core.getState(STATE_HEAD_HOME);
  if (!pidFile && !marker && !boundaryPath && !outDir && !headHome) return;
  dropTokenVariables(process.env);
  hideFromEnviron(isDroppedName);
  try {
    if (boundaryPath && !boundaryAt(boundaryPath)) core.warning(`perfgate cleanup: the state names ${boundaryPath}, which is not a boundary perfgate creates; left alone.`);
    // The pid file lies in RUNNER_TEMP, where the PR's code could write: with a marker, only
    // groups whose leader carries it are stopped. A home is one this step's TMPDIR holds, as the
    // main step made it there.
    const removed = await removeLeftovers(
      core.getState(STATE_REPO) || null,
      { marker: marker || null, outDir: outDir || null, boundary: boundaryPath || null, headHome: headHome && dirname(headHome) === tmpdir() ? headHome : null },
      pidFile || null,
      3000,
    );
    if (removed.processes > 0 || removed.worktrees > 0 || (removed.home && removed.home.outcome !== 'absent')) {
      core.info(`perfgate: the main step ended before it could clean up (a cancelled job); ${removedText(removed)}`);
    }
  } catch (e) {
    core.warning(`perfgate cleanup: ${(e as Error).message}`);
  }
}
