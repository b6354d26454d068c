/** Names shared by the main and post steps through the runner's state file. */
export const STATE_PID_FILE = 'perfgate-pid-file';
/** The PERFGATE_RUN_ID value of this run's processes: the post step stops only processes that carry it. */
export const STATE_RUN_MARKER = 'perfgate-run-marker';
/** The cgroup the pull request's code ran in (engine/process/boundary.ts): the post step stops what is left in it. */
export const STATE_BOUNDARY = 'perfgate-boundary';
