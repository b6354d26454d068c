/**
 * A real MongoDB-compatible server for a test: FerretDB 1.x (MongoDB's wire protocol over SQLite),
 * its databases in a temporary directory, listening on 127.0.0.1 at a free port. The binary is
 * .ci/ferretdb, a main around FerretDB's embeddable package (`go install ./.ci/ferretdb`, which
 * .ci/run does, puts it in ~/go/bin). MongoDB itself is in no registry this project can install
 * from; FerretDB is a Go module.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/engine/service/service.js';
import { spawnServer } from './server-process.js';

/** perfgate-ferretdb: $PERFGATE_FERRETDB, ~/go/bin, or the PATH. */
export const FERRETDB = [process.env.PERFGATE_FERRETDB, join(homedir(), 'go', 'bin', 'perfgate-ferretdb')].find((p) => p && existsSync(p)) ?? 'perfgate-ferretdb';
const found = spawnSync(FERRETDB, ['-h'], { encoding: 'utf8' }).error === undefined;
/** For a test's `skip` option. */
export const ferretdbSkip = found ? false : 'perfgate-ferretdb is not installed: go install ./.ci/ferretdb (.ci/run does)';

export interface FerretDB {
  port: number;
  /** mongodb://127.0.0.1:<port>/ */
  url: string;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts FerretDB on an empty SQLite directory; call `stop()` in the test's `after`. */
export async function startFerretDB(): Promise<FerretDB> {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-ferretdb-'));
  const port = await freePort();
  const logFile = join(dir, 'ferretdb.log');
  const server = await spawnServer({ name: 'FerretDB', command: FERRETDB, args: ['-listen-addr', `127.0.0.1:${port}`, '-sqlite-url', `file:${dir}/`], port, dir, logFile, ready: () => canConnect(port), group: false, timeoutMs: READY_TIMEOUT_MS });
  const { child } = server;
  let stopped = false;
  return {
    port,
    url: `mongodb://127.0.0.1:${port}/`,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!server.exited()) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => !server.exited() && child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
