/** Names shared by the main and post steps through the runner's state file. */
export const STATE_PID_FILE = 'perfgate-pid-file';
/** The PERFGATE_RUN_ID value of this run's processes: the post step stops only processes that carry it. */
export const STATE_RUN_MARKER = 'perfgate-run-marker';
/** The run directory and the repository it measured: the post step removes the worktrees a cancelled main step left there. */
export const STATE_OUT_DIR = 'perfgate-out-dir';
export const STATE_REPO = 'perfgate-repo';
/** The home the main step made for head's user (engine/process/head-user.ts): the post step removes it after a cancelled main step. */
export const STATE_HEAD_HOME = 'perfgate-head-home';
/** The cgroup the pull request's code ran in (engine/process/boundary.ts): the post step stops what is left in it. */
export const STATE_BOUNDARY = 'perfgate-boundary';
