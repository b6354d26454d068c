/**
 * A real MongoDB-compatible server for a test: FerretDB 1.x (MongoDB's wire protocol over SQLite),
 * its databases in a temporary directory, listening on 127.0.0.1 at a free port. The binary is
 * .ci/ferretdb, a main around FerretDB's embeddable package (`go install ./.ci/ferretdb`, which
 * .ci/run does, puts it in ~/go/bin). MongoDB itself is in no registry this project can install
 * from; FerretDB is a Go module.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/engine/service.js';

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
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn(FERRETDB, ['-listen-addr', `127.0.0.1:${port}`, '-sqlite-url', `file:${dir}/`], { stdio: ['ignore', log, log] });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  child.once('error', () => {
    exited = true;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await canConnect(port))) {
    if (exited || Date.now() > deadline) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      if (!exited) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`FerretDB did not start on port ${port} (${exited ? 'it exited' : 'timed out'}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  let stopped = false;
  return {
    port,
    url: `mongodb://127.0.0.1:${port}/`,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => !exited && child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
