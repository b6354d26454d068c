import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { scrubEnv, secretsFrom } from './env.js';

/**
 * The programs perfgate runs itself. They are looked up once, before any of the pull request's
 * code runs: a program that code plants later in a directory of PATH (~/.local/bin comes before
 * /usr/bin on GitHub's runners) is then never the one perfgate starts. The shell is /bin/sh,
 * by its path. tar and its compressors are the Actions cache's (action/tool-cache.ts).
 */
export const OWN_PROGRAMS = ['git', 'taskset', 'getconf', 'node', 'npm', 'sudo', 'find', 'tar', 'zstd', 'unzstd', 'zstdmt', 'gzip'] as const;

interface OwnProcesses {
  /** Absolute path of each program found; a missing one is absent. */
  programs: Map<string, string>;
  /** What perfgate's own helpers (git, taskset, getconf) start with: no token, no file command. */
  env: Record<string, string>;
}

let own: OwnProcesses | null = null;

/** The first executable file named `name` in the absolute directories of `path` (relative ones are skipped: they name the PR's tree). */
export function findOnPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? '').split(':')) {
    if (!isAbsolute(dir)) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Resolves OWN_PROGRAMS on the environment's PATH and fixes the scrubbed environment perfgate's
 * own helpers run with. The shells call it first thing; without that call the first use
 * settles from this process's environment, which for the CLI is the same moment.
 */
export function settleOwnProcesses(env: Record<string, string | undefined>): void {
  const programs = new Map<string, string>();
  for (const name of OWN_PROGRAMS) {
    const file = findOnPath(name, env.PATH);
    if (file) programs.set(name, file);
  }
  own = { programs, env: scrubEnv(env, secretsFrom(env)) };
}

function settled(): OwnProcesses {
  if (!own) settleOwnProcesses(process.env);
  return own!;
}

export class MissingProgramError extends Error {}

/**
 * The absolute path `name` was found at when perfgate started. An absolute name is kept. A
 * name that was not on PATH then throws: looking it up now could find what the PR planted.
 */
export function programPath(name: string): string {
  if (isAbsolute(name)) return name;
  const file = settled().programs.get(name);
  if (!file) throw new MissingProgramError(`${name} was not on PATH when perfgate started; install it (or put it on PATH) before the perfgate step.`);
  return file;
}

/** programPath, or null when the program was not found. */
export function programPathOrNull(name: string): string | null {
  return isAbsolute(name) ? name : (settled().programs.get(name) ?? null);
}

/** The environment of perfgate's own helper processes (git, taskset, getconf): the scrubbed one. */
export function ownEnv(): Record<string, string> {
  return settled().env;
}
