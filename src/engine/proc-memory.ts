import { readdirSync, readFileSync } from 'node:fs';

/**
 * Resident memory of a whole process group from /proc, bytes: VmRSS of every live member
 * (proc(5), /proc/[pid]/status), so a cluster's primary and workers count together. Pages
 * shared between them (the binary, copy-on-write heap) are counted once per process, as `ps`
 * does: a ratio between two sides started the same way still compares like with like.
 * null without procfs.
 */
export function groupRssBytes(pgid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let kb = 0;
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // pgrp is the 5th field; the 2nd, (comm), may hold spaces and parentheses.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      status = readFileSync(`/proc/${name}/status`, 'latin1');
    } catch {
      continue; // exited while we were reading
    }
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (match) kb += Number(match[1]);
  }
  return kb * 1024;
}
