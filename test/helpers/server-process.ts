/**
 * The servers the tests start of their own (PostgreSQL, MariaDB, Redis, FerretDB): spawned with
 * their output in a log, and waited for until a probe says they serve. One that exits or does
 * not answer in time is killed, its directory removed, and the error carries the log's tail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync } from 'node:fs';

export interface ServerProcess {
  child: ChildProcess;
  /** Whether it has exited (or could not be spawned). */
  exited(): boolean;
}

export interface ServerOptions {
  /** For the error: "PostgreSQL", "Redis". */
  name: string;
  command: string;
  args: string[];
  port: number;
  /** The server's temporary directory, removed when it fails to start. */
  dir: string;
  /** Where its log is read from for the error; its stdout and stderr go to `outputFile`, by default this. */
  logFile: string;
  outputFile?: string;
  /** Resolves true once the server serves. */
  ready: () => Promise<boolean>;
  /** Its own process group (killed as a group), the default; false for a single process. */
  group?: boolean;
  timeoutMs?: number;
  pollMs?: number;
}

export async function spawnServer(options: ServerOptions): Promise<ServerProcess> {
  const { name, port, dir, logFile, ready, group = true, timeoutMs = 30_000, pollMs = 100 } = options;
  const log = openSync(options.outputFile ?? logFile, 'a');
  const child = spawn(options.command, options.args, { cwd: dir, stdio: ['ignore', log, log], detached: group });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  child.once('error', () => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (exited || Date.now() > deadline) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      if (!exited) group ? process.kill(-child.pid!, 'SIGKILL') : child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`${name} did not start on port ${port} (${exited ? 'it exited' : 'timed out'}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return { child, exited: () => exited };
}
