/**
 * The servers the tests start of their own (PostgreSQL, MariaDB, Redis, FerretDB): spawned with
 * their output in a log, and waited for until a probe says they serve. One that exits or does
 * not answer in time is killed, its directory removed, and the error carries the log's tail.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

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

/**
 * A temporary directory for a server that refuses to run as root (initdb and postgres, mariadbd):
 * as root, the directory is the package's system user's and `as` runs a command as that user
 * through runuser; otherwise both are the caller's.
 */
export function serverDir(prefix: string, user: string): { dir: string; as(command: string, args: string[]): [string, string[]] } {
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  return { dir, as: (command, args) => (asRoot ? ['runuser', ['-u', user, '--', command, ...args]] : [command, args]) };
}
