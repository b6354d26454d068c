import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** actionlint (`go install github.com/rhysd/actionlint/cmd/actionlint@latest`; .ci/run installs it): $ACTIONLINT, ~/go/bin, or the PATH. */
export const ACTIONLINT = [process.env.ACTIONLINT, join(homedir(), 'go', 'bin', 'actionlint')].find((p) => p && existsSync(p)) ?? 'actionlint';
export const actionlintFound = spawnSync(ACTIONLINT, ['-version'], { encoding: 'utf8' }).status === 0;
/** For a test's `skip` option. */
export const actionlintSkip = actionlintFound ? false : 'actionlint is not installed: go install github.com/rhysd/actionlint/cmd/actionlint@latest';

/** Runs actionlint on workflow files: exit status and what it printed. */
export function runActionlint(files: readonly string[]): { status: number | null; output: string } {
  const run = spawnSync(ACTIONLINT, ['-no-color', ...files], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}
