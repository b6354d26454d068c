import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ownEnv, programPath } from './process.js';

/**
 * CPU time of a whole process group from /proc, in seconds: user + system of every live
 * member, plus the children's times they have reaped (cutime/cstime), so short-lived helpers
 * and cluster workers that already exited still count. See proc(5), /proc/[pid]/stat.
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

/**
 * Several process groups from one pass over /proc: the engine reads every start of a block at a
 * slice's edges, and one pass keeps that to a few milliseconds however many starts there are.
 * NaN for each group without procfs.
 */
export function groupsCpuSeconds(pgids: readonly number[]): number[] {
  const ticks = new Map(pgids.map((pgid) => [pgid, 0]));
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pgids.map(() => Number.NaN); // no procfs (not Linux)
  }
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited while we were reading
    }
    const f = statFields(text);
    // f[0] = state (field 3); pgrp is field 5 → f[2]; utime..cstime are fields 14–17 → f[11..14]
    const pgrp = Number(f[2]);
    const sum = ticks.get(pgrp);
    if (sum === undefined) continue;
    ticks.set(pgrp, sum + Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  return pgids.map((pgid) => ticks.get(pgid)! / clockTicks());
}
