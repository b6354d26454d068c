import { execFileSync } from 'node:child_process';
import type { LoadConfig } from '../../config/types.js';
import { ownEnv, programPath } from './programs.js';

/**
 * Where the load generator (perfgate's own process: autocannon runs in it) and the measured
 * services may run, as taskset CPU lists. Keeping them apart removes one source of per-start
 * offset: a service the scheduler happens to place beside the generator serves less than one
 * placed away from it, for the whole life of that start.
 */
export interface Placement {
  /** CPUs of the load generator, e.g. "0". */
  generator: string;
  /** CPUs of every service process, e.g. "1-3". */
  services: string;
  /** The generator's CPU list before pinning, to restore afterwards. */
  previous: string;
}

/** The CPUs this process may run on (its affinity list, which a container or cgroup may narrow), or null off Linux or without taskset. */
export function allowedCpus(pid: number = process.pid): number[] | null {
  try {
    const out = execFileSync(programPath('taskset'), ['-p', '-c', String(pid)], { encoding: 'utf8', env: ownEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
    const list = out.slice(out.lastIndexOf(':') + 1).trim();
    return parseCpuList(list);
  } catch {
    return null;
  }
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [from, to] = part.split('-').map(Number);
    if (!Number.isInteger(from)) continue;
    for (let c = from!; c <= (Number.isInteger(to) ? to! : from!); c++) cpus.push(c);
  }
  return cpus;
}

/**
 * The placement for load.pin: "off" → none; "auto" and "on" → the generator on the first
 * allowed CPU and every service, base and head alike, on the rest (needs 2 or more). Both sides
 * share the same CPUs, so a CPU that the host slows down slows both; and the generator never
 * competes with a service for a CPU. Measured on a 2-vCPU runner: the spread of a pair's
 * throughput ratio fell from 13% to 1.3% with simultaneous load (docs/calibration.md).
 */
export function choosePlacement(mode: LoadConfig['pin'], cpus: number[] | null): Omit<Placement, 'previous'> | null {
  if (mode === 'off' || cpus === null || cpus.length < 2) return null;
  const [generator, ...rest] = cpus;
  return { generator: String(generator), services: rest.join(',') };
}

/** Pins every thread of this process to `cpus`; returns false when taskset failed. */
export function pinProcess(cpus: string, pid: number = process.pid): boolean {
  try {
    execFileSync(programPath('taskset'), ['-a', '-p', '-c', cpus, String(pid)], { env: ownEnv(), stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
