/**
 * A real PostgreSQL server for a test: its own cluster in a temporary directory, listening on
 * 127.0.0.1 at a free port, trusted local connections as user `postgres`. Built from the Debian
 * packages' binaries (/usr/lib/postgresql/<major>/bin; .ci/run installs them on a fresh
 * machine). initdb and postgres refuse to run as root, so as root they run as the `postgres`
 * user the package creates.
 */
import { execFileSync, } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../../src/engine/service/service.js';
import { serverDir, spawnServer } from './server-process.js';

export interface Postgres {
  host: string;
  port: number;
  user: string;
  /** The environment a libpq-style client (psql, `pg`) reads: PGHOST, PGPORT, PGUSER. */
  env: Record<string, string>;
  /** Stops the server (fast shutdown, then SIGKILL) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

const PG_ROOT = '/usr/lib/postgresql';
const READY_TIMEOUT_MS = 30_000;

/** The newest installed major's bin directory, or a message that says how to install one. */
function findBinDir(): string {
  const majors = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((m) => existsSync(join(PG_ROOT, m, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) {
    throw new Error(`No PostgreSQL server under ${PG_ROOT}: install it with \`apt-get install -y postgresql\` (.ci/run does).`);
  }
  return join(PG_ROOT, majors[0]!, 'bin');
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a fresh PostgreSQL cluster; call `stop()` in the test's `after`. */
export async function startPostgres(): Promise<Postgres> {
  const bin = findBinDir();
  const { dir, as } = serverDir('perfgate-pg-', 'postgres');
  const data = join(dir, 'data');
  const [initCommand, initArgs] = as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  execFileSync(initCommand, initArgs, { stdio: 'pipe' });
  const port = await freePort();
  const logFile = join(dir, 'postgres.log');
  // fsync off: the test measures queries, not the disk; a crash loses nothing a test needs.
  const [command, args] = as(join(bin, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
    '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'logging_collector=off',
    // perfgate starts up to 16 instances of each side in a block, each with its own pool: the
    // default 100 connections ran out ("sorry, too many clients already").
    '-c', 'max_connections=400',
  ]);
  const server = await spawnServer({ name: 'PostgreSQL', command, args, port, dir, logFile, ready: () => canConnect('127.0.0.1', port), timeoutMs: READY_TIMEOUT_MS });
  const { child } = server;
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    env: { PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: 'postgres' },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!server.exited()) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops at once.
        process.kill(-child.pid!, 'SIGINT');
        const timer = setTimeout(() => !server.exited() && process.kill(-child.pid!, 'SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
