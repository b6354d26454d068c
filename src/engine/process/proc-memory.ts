import { readFileSync } from 'node:fs';
import { serviceProcesses } from './proc-cpu.js';

/**
 * Resident memory of a service's processes from /proc, bytes: VmRSS of every live process of
 * the group and of its members' descendants (proc-cpu.ts, serviceProcesses; proc(5),
 * /proc/[pid]/status), so a cluster's primary and workers count together. Pages shared between
 * them (the binary, copy-on-write heap) are counted once per process, as `ps` does: a ratio
 * between two sides started the same way still compares like with like. null without procfs.
 */
export function groupRssBytes(pgid: number): number | null {
  const processes = serviceProcesses(pgid);
  if (processes === null) return null;
  let kb = 0;
  for (const pid of processes.keys()) {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'latin1');
    } catch {
      continue; // exited while we were reading
    }
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (match) kb += Number(match[1]);
  }
  return kb * 1024;
}
