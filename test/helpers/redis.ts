/**
 * A real Redis server for a test: Debian's redis-server (.ci/run installs it), started here on
 * 127.0.0.1 at a free port with nothing persisted (`--save ''`, `--appendonly no`) in a temporary
 * directory. The package's own service is never used: a test owns its server and stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/engine/service.js';

export interface Redis {
  host: string;
  port: number;
  /** redis://127.0.0.1:<port>, what node-redis and ioredis take. */
  url: string;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

const SERVER = '/usr/bin/redis-server';
const READY_TIMEOUT_MS = 15_000;

/** Whether the server answers PING with PONG (a port that accepts is not yet one that serves). */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (reply: string) => {
      socket.destroy();
      resolve(reply.startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a fresh Redis; call `stop()` in the test's `after`. */
export async function startRedis(): Promise<Redis> {
  if (!existsSync(SERVER)) throw new Error(`No ${SERVER}: install it with \`apt-get install -y redis-server\` (.ci/run does).`);
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-redis-'));
  const port = await freePort();
  const logFile = join(dir, 'redis.log');
  const log = openSync(logFile, 'a');
  // No snapshot, no append-only file: the test measures round trips, not the disk.
  const child: ChildProcess = spawn(
    SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--logfile', ''],
    { stdio: ['ignore', log, log], detached: true },
  );
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await pong(port))) {
    if (exited || Date.now() > deadline) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      if (!exited) process.kill(-child.pid!, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`Redis did not start on port ${port} (${exited ? 'it exited' : 'timed out'}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        process.kill(-child.pid!, 'SIGTERM');
        const timer = setTimeout(() => !exited && process.kill(-child.pid!, 'SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
