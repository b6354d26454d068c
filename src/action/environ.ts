/**
 * Hides values from this process's /proc/<pid>/environ. The PR's code runs as the same user and
 * may read the environ of every ancestor; deleting from process.env does not change that file,
 * because the kernel shows the process's original environment block (the memory between
 * env_start and env_end, proc(5)). So each hidden variable is first copied to the heap (setenv
 * allocates a new string and repoints environ: glibc setenv(3)), then its value in the original
 * block is overwritten through /proc/self/mem, which a process may always write for itself.
 * The heap copy stays readable only through /proc/<pid>/mem, which needs ptrace attach rights:
 * Yama's ptrace_scope 1 (Ubuntu's default, GitHub's runners) denies that to a child.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { SECRET_VARIABLES } from '../engine/process/env.js';

/**
 * The token variables this process has no use for once its inputs and GitHub client hold the
 * token. ACTIONS_RUNTIME_TOKEN stays: @actions/artifact and @actions/cache read it from
 * process.env at each call.
 */
export const DROPPED_TOKEN_VARIABLES: readonly string[] = [...SECRET_VARIABLES.filter((name) => name !== 'ACTIONS_RUNTIME_TOKEN'), 'ACTIONS_ID_TOKEN_REQUEST_URL'];

/**
 * Removes the token variables from `env` (process.env), so that no process started without an
 * explicit environment (a library's child: @actions/cache runs tar) inherits them. Returns the
 * names removed. The kernel's copy in /proc/<pid>/environ is hideFromEnviron's to blank.
 */
export function dropTokenVariables(env: Record<string, string | undefined> = process.env): string[] {
  const dropped = DROPPED_TOKEN_VARIABLES.filter((name) => env[name] !== undefined);
  for (const name of dropped) delete env[name];
  return dropped;
}

/** Fields 50 and 51 of /proc/<pid>/stat (since Linux 3.5): the environment block's addresses. */
function environBlock(): { start: number; end: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { start: Number(fields[50 - 3]), end: Number(fields[51 - 3]) };
}

/**
 * Overwrites, in this process's original environment block, the values of every variable whose
 * name matches; process.env keeps those it still has. Returns the names hidden. Outside Linux, or where the
 * kernel refuses, nothing changes and the names are returned as not hidden (empty list).
 */
export function hideFromEnviron(matches: (name: string) => boolean): string[] {
  let block: Buffer;
  let range: { start: number; end: number };
  try {
    block = readFileSync('/proc/self/environ');
    range = environBlock();
  } catch {
    return [];
  }
  if (!Number.isSafeInteger(range.start) || range.end - range.start !== block.length) return [];
  const patched = Buffer.from(block);
  const hidden: string[] = [];
  let offset = 0;
  for (const entry of block.toString('latin1').split('\0')) {
    const eq = entry.indexOf('=');
    const name = eq > 0 ? entry.slice(0, eq) : '';
    if (name && matches(name)) {
      // A variable still in process.env becomes a heap copy (getenv no longer reads the block);
      // one already removed (dropTokenVariables) is referenced by nothing, and only overwritten.
      const value = process.env[name];
      if (value !== undefined) {
        delete process.env[name];
        process.env[name] = value;
      }
      patched.fill(0x2a, offset + eq + 1, offset + entry.length); // '*'
      hidden.push(name);
    }
    offset += entry.length + 1;
  }
  if (hidden.length === 0) return [];
  try {
    const fd = openSync('/proc/self/mem', 'r+');
    try {
      writeSync(fd, patched, 0, patched.length, range.start);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  return hidden;
}
