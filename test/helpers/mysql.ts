/**
 * A real MySQL-protocol server for a test: MariaDB from Debian's `mariadb-server` package (.ci/run
 * installs it), its own data directory in a temporary directory, listening on 127.0.0.1 at a free
 * port (and a Unix socket in that directory), user `root` without a password, a database
 * `perfgate`. The package's own service is never used: a test owns its server and stops it.
 * mariadbd refuses to run as root without being told which user to be, so as root both
 * mariadb-install-db and mariadbd run as the `mysql` user the package creates, as postgres.ts
 * does with `postgres`. About 2 s from nothing to serving (mariadb-install-db most of it; on a
 * loaded 2-core machine 1 to 3.5 s), and a tenth of a second to stop.
 */
import { execFileSync, } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../../src/engine/service/service.js';
import { serverDir, spawnServer } from './server-process.js';

export interface Mysql {
  host: string;
  port: number;
  user: string;
  database: string;
  /** The Unix socket it also listens on. */
  socketPath: string;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

const SERVER = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const READY_TIMEOUT_MS = 30_000;
/**
 * Small InnoDB files (the defaults write a 96 MB redo log and a 12 MB system tablespace before the
 * first query): the tests measure queries, not the disk. Given to both mariadb-install-db and
 * mariadbd, which must agree on the files' sizes.
 */
const INNODB = ['--innodb-log-file-size=4M', '--innodb-buffer-pool-size=8M', '--innodb-data-file-path=ibdata1:4M:autoextend'];

/**
 * Whether the server greets a client: its first packet is the handshake, protocol version 10
 * after the 4-byte header (an error packet, 0xff, is not one).
 */
function handshake(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('data', (packet: Buffer) => {
      socket.destroy();
      resolve(packet[4] === 10);
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

/** Starts a fresh MariaDB; call `stop()` in the test's `after`. */
export async function startMysql(): Promise<Mysql> {
  if (!existsSync(SERVER) || !existsSync(INSTALL_DB)) {
    throw new Error(`No ${SERVER}: install it with \`apt-get install -y mariadb-server\` (.ci/run does).`);
  }
  const { dir, as } = serverDir('perfgate-mysql-', 'mysql');
  const data = join(dir, 'data');
  // --no-defaults everywhere: the package's /etc/mysql configuration (its datadir, its socket,
  // its log) is the package service's, not this server's.
  const [installCommand, installArgs] = as(INSTALL_DB, [
    '--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve', ...INNODB,
  ]);
  try {
    execFileSync(installCommand, installArgs, { cwd: dir, stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? error}`);
  }
  const port = await freePort();
  const socketPath = join(dir, 'mysqld.sock');
  const logFile = join(dir, 'mariadb.log');
  const pidFile = join(dir, 'mariadbd.pid');
  // The database is created at every start by --init-file, run before the server takes connections.
  const initFile = join(dir, 'init.sql');
  writeFileSync(initFile, 'CREATE DATABASE IF NOT EXISTS perfgate;\n', { mode: 0o644 });
  const [command, args] = as(SERVER, [
    '--no-defaults', `--datadir=${data}`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${socketPath}`,
    `--pid-file=${pidFile}`, `--log-error=${logFile}`, `--init-file=${initFile}`, '--skip-name-resolve',
    // Nothing is kept: no binary log, no flush per commit, no checkpoint at shutdown.
    '--skip-log-bin', '--innodb-flush-log-at-trx-commit=0', '--innodb-fast-shutdown=3', ...INNODB,
    // perfgate starts up to 16 instances of each side in a block, each with its own pool.
    '--max-connections=400',
  ]);
  const server = await spawnServer({ name: 'MariaDB', command, args, port, dir, logFile, outputFile: join(dir, 'stdout.log'), ready: () => handshake(port), timeoutMs: READY_TIMEOUT_MS, pollMs: 50 });
  const { child } = server;
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    user: 'root',
    database: 'perfgate',
    socketPath,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!server.exited()) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        // SIGTERM to mariadbd itself (its pid file), a normal shutdown: runuser, signalled, would
        // forward it and then wait 2 s before killing the server mid-shutdown.
        const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
        process.kill(pid > 0 ? pid : -child.pid!, 'SIGTERM');
        const timer = setTimeout(() => !server.exited() && process.kill(-child.pid!, 'SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
