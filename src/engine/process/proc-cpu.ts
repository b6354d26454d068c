import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ownEnv, programPath } from './programs.js';

/**
 * CPU time of a service's processes from /proc, in seconds: user + system of every live
 * process of the group and of its members' descendants (serviceProcesses), plus the children's
 * times they have reaped (cutime/cstime), so short-lived helpers and cluster workers that
 * already exited still count. See proc(5), /proc/[pid]/stat.
 */
let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync(programPath('getconf'), ['CLK_TCK'], { encoding: 'utf8', env: ownEnv() }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields after the `(comm)` field, which may itself contain spaces and parentheses. */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** Every process's /proc stat fields after (comm), by pid; null without procfs (not Linux). */
function readAllStats(): Map<number, string[]> | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const all = new Map<number, string[]>();
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    try {
      all.set(Number(name), statFields(readFileSync(`/proc/${name}/stat`, 'latin1')));
    } catch {
      // exited while we were reading
    }
  }
  return all;
}

/**
 * The processes of the service started as process group `pgid`, pid → their stat fields (f[1] =
 * ppid, f[2] = pgrp): the members of the group, and every descendant of a member that left it.
 * A process manager may start its apps in groups of their own (PM2's fork mode spawns them
 * detached, so each is a session leader); they are still the service's.
 */
function processesOf(all: Map<number, string[]>, pgid: number): Map<number, string[]> {
  const found = new Map<number, string[]>();
  for (const [pid, f] of all) if (Number(f[2]) === pgid) found.set(pid, f);
  // Descendants, to a fixed point: a child's pid may be lower than its parent's (pids wrap).
  for (let grew = found.size > 0; grew; ) {
    grew = false;
    for (const [pid, f] of all) {
      if (!found.has(pid) && found.has(Number(f[1]))) {
        found.set(pid, f);
        grew = true;
      }
    }
  }
  return found;
}

/** A process's state letter from /proc (R, S, D, Z for a zombie…); null when it is gone or unreadable. */
export function processState(pid: number): string | null {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'latin1'))[0] ?? null;
  } catch {
    return null;
  }
}

/** The state letters of the members of process group `pgid` (proc(5): state, pgrp); null without procfs. */
export function groupStates(pgid: number): string[] | null {
  const all = readAllStats();
  if (all === null) return null;
  return [...all.values()].filter((f) => Number(f[2]) === pgid).map((f) => f[0]!);
}

/** The processes of the service started as process group `pgid` (processesOf); null without procfs. */
export function serviceProcesses(pgid: number): Map<number, string[]> | null {
  const all = readAllStats();
  return all === null ? null : processesOf(all, pgid);
}

/** The processes of each start (processesOf) from one pass over /proc; null without procfs. */
export function startsProcesses(pgids: readonly number[]): Map<number, string[]>[] | null {
  const all = readAllStats();
  return all === null ? null : pgids.map((pgid) => processesOf(all, pgid));
}

/**
 * CPU seconds of several services (each by its process group, with the descendants that left it)
 * from one pass over /proc: the engine reads every start of a block at a slice's edges, and one
 * pass keeps that to a few milliseconds however many starts there are. NaN for each without procfs.
 */
export function groupsCpuSeconds(pgids: readonly number[]): number[] {
  const all = readAllStats();
  if (all === null) return pgids.map(() => Number.NaN);
  return pgids.map((pgid) => {
    let ticks = 0;
    // utime..cstime are fields 14–17 → f[11..14]
    for (const f of processesOf(all, pgid).values()) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return ticks / clockTicks();
  });
}
