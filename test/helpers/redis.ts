
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/engine/service/service.js';
import { spawnServer } from './server-process.js';

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
  // No snapshot, no append-only file: the test measures round trips, not the disk.
  const server = await spawnServer({ name: 'Redis', command: SERVER, args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--logfile', ''], port, dir, logFile, ready: () => pong(port), timeoutMs: READY_TIMEOUT_MS, pollMs: 50 });
  const { child } = server;
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!server.exited()) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        process.kill(-child.pid!, 'SIGTERM');
        const timer = setTimeout(() => !server.exited() && process.kill(-child.pid!, 'SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
