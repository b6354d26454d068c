/** Names shared by the main and post steps through the runner's state file. */
export const STATE_PID_FILE = 'perfgate-pid-file';
