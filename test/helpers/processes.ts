import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * True while a process with this pid runs (signal 0 probes without signalling). A zombie has
 * exited and runs nothing: an orphan that was killed stays one until the init process reaps it,
 * and some sandboxes' init reaps late.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false; // gone between the two looks
  }
}

/** Pids of the running processes whose working directory is inside `dir` (zombies are not running). */
export function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir) && alive(Number(pid));
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

/** A fixture service in a process of its own, on a free port it prints on stdout (PORT=0). */
export async function startPortService(script: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, url: `http://127.0.0.1:${chunk.toString().trim()}` };
}
