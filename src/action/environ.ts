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

/** Fields 50 and 51 of /proc/<pid>/stat (since Linux 3.5): the environment block's addresses. */
function environBlock(): { start: number; end: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { start: Number(fields[50 - 3]), end: Number(fields[51 - 3]) };
}

/**
 * Overwrites, in this process's original environment block, the values of every variable whose
 * name matches; process.env keeps them. Returns the names hidden. Outside Linux, or where the
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
    if (name && matches(name) && process.env[name] !== undefined) {
      const value = process.env[name]!;
      delete process.env[name];
      process.env[name] = value; // now a heap copy: getenv no longer reads the block
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
