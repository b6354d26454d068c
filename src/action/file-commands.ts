/**
 * The runner's file commands (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV, GITHUB_PATH,
 * GITHUB_STEP_SUMMARY) are files under RUNNER_TEMP that the PR's code, running as the same user,
 * can find and append to even without their variables: a forged `decision=pass` output, a
 * post-step state, a NODE_OPTIONS for later steps. perfgate takes their content before the PR's
 * code runs and, once every process it started is stopped, puts it back.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const FILE_COMMANDS = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY'] as const;

export type FileCommandSnapshot = { name: string; path: string; content: Buffer }[];

export function snapshotFileCommands(env: Record<string, string | undefined>): FileCommandSnapshot {
  return FILE_COMMANDS.flatMap((name) => {
    const path = env[name];
    if (!path) return [];
    try {
      return [{ name, path, content: readFileSync(path) }];
    } catch {
      return [];
    }
  });
}

/** Restores every file that changed since the snapshot; returns the names of those that had. */
export function restoreFileCommands(snapshot: FileCommandSnapshot): string[] {
  const changed: string[] = [];
  for (const { name, path, content } of snapshot) {
    let now: Buffer | null = null;
    try {
      now = readFileSync(path);
    } catch {
      // removed: written back below
    }
    if (now?.equals(content)) continue;
    writeFileSync(path, content);
    changed.push(name);
  }
  return changed;
}
