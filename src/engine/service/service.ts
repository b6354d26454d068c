import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceConfig } from '../../config/types.js';
import type { Side } from '../../results/types.js';
import { ServiceError, SetupError } from '../errors.js';
import { HealthChannel } from './health.js';
import { preloadPath } from './preloads.js';
import { BoundedLog, type LogCap, START_LOG_CAP } from '../process/bounded-log.js';
import { explainLog, fileSize } from '../process/log-excerpt.js';
import type { HeadUser } from '../process/head-user.js';
import { headUserOf, type ProcessTracker, runShell, sleep, startShell, stopGroup } from '../process/processes.js';
import { groupRssBytes } from '../process/proc-memory.js';

export { preloadPath } from './preloads.js';


/** What a program that could not bind its port prints, in Node and in the usual other runtimes. */
const PORT_TAKEN = /EADDRINUSE|[Aa]ddress already in use|port is already allocated/;
/** Where each start's port comes from, for a service that did not listen on it. */
const PORT_HINT =
  "Each start gets a port of its own in $PORT: perfgate's preload moves a Node process's listen() there, but a program in another language must listen on $PORT itself (service.start: my-server --port $PORT).";

/**
 * Ports handed to services that are still running. A port is free until its service listens, so
 * two draws may give the same one, and a block starts many services before any of them listens:
 * without this, two starts could be told the same port (EADDRINUSE).
 */
const portsInUse = new Set<number>();

/** A free TCP port that no running service of this process was given. */
async function servicePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!portsInUse.has(port)) {
      portsInUse.add(port);
      return port;
    }
  }
}

/**
 * The first port of the kernel's range for the local end of outgoing connections
 * (ip_local_port_range; 32768 where it cannot be read: below macOS's 49152 too).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 && low <= 65535 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** The address a service listening on every address binds: '::' where this machine has IPv6, asked once. */
let wildcardHost: Promise<string> | undefined;

/** Whether `port` can be listened on, on every address (the way a service that listens on '::' will). */
function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port bind(0) gives on loopback: free now, but from the range outgoing connections draw on. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free TCP port for a server to listen on, below the kernel's range for outgoing connections.
 * A port bind(0) gives comes from that range, and between the check and the service's listen
 * any outgoing connection on the machine (the load generator's own, a neighbour's) may take it
 * as its local end: the service then fails with EADDRINUSE. Below the range only another server
 * can take it. Falls back to bind(0) when no port below the range is free.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  wildcardHost ??= canListen(0, '::').then((ipv6) => (ipv6 ? '::' : '0.0.0.0'));
  const host = await wildcardHost;
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * Math.max(1, low - 10_000));
    if (port < low && (await canListen(port, host))) return port;
  }
  return kernelPort();
}

/** Unix socket paths are limited to 107 bytes on Linux (sun_path); PM2 puts its sockets in PM2_HOME. */
const MAX_PM2_HOME = 90;

/**
 * A private, empty PM2_HOME for one start. PM2 keeps its daemon's sockets (rpc.sock, pub.sock),
 * pid files and logs in PM2_HOME, ~/.pm2 by default: the starts perfgate runs at once (both
 * sides, several instances each) would share it, and `pm2-runtime` or `pm2 start` in one start
 * would then talk to the daemon of another, which starts its apps instead (or nothing). Set for
 * every service, as the start command does not say whether PM2 is behind it (`npm start`); a
 * PM2_HOME in service.env is kept. Null when no temporary directory can be made.
 */
function privatePm2Home(): string | null {
  try {
    let dir = mkdtempSync(join(tmpdir(), 'perfgate-pm2-'));
    if (dir.length > MAX_PM2_HOME) {
      rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync('/tmp/perfgate-pm2-');
    }
    return dir;
  } catch {
    return null;
  }
}

/**
 * How long an exited start's output may take to reach its log: a process it left running (a
 * daemon) can hold the pipes open after it, and its death must still be said.
 */
const EXIT_OUTPUT_WAIT_MS = 1000;

/** How long service.setup may run before each start. */
const SETUP_TIMEOUT_MS = 10 * 60_000;

export interface StartOptions {
  side: Side;
  /**
   * Whose code the start runs, for PERFGATE_SIDE, when not `side`'s: the third arm measures head
   * with a culprit reverted in base's place, and that is head's code, with head's database.
   */
  codeOf?: Side;
  /** Which start of this side: its number over the run (0-based), or the profiling phase's start. PERFGATE_START tells the service's commands. */
  start: number | 'profile' | 'probe';
  config: ServiceConfig;
  /** Directory the start command runs in (tree root joined with service.cwd). */
  dir: string;
  /** Scrubbed environment of the user's processes. */
  env: Record<string, string>;
  logFile: string;
  statusFile: string;
  tracker: ProcessTracker;
  /** Added for this start only (the profiling phase: the profiler's variables and Node options). */
  profiling?: { env: Record<string, string>; nodeOptions: string };
  /** CPUs the service's processes may run on (a taskset list), or unset for the scheduler's choice. */
  cpus?: string;
  /** How much of this start's output the log keeps (bounded-log.ts); START_LOG_CAP unless set. */
  logCap?: LogCap;
  /**
   * Bytes of padding in the environment of this start (PERFGATE_ENV_PAD): drawn per start, so the
   * size of the environment (which shifts the initial stack, Mytkowicz et al., ASPLOS 2009)
   * varies at random across starts instead of favouring one side.
   */
  envPad?: number;
}

/** How often readiness is checked: the port (a file read), then the ready path (an HTTP request). */
const PORT_POLL_MS = 10;
const READY_PATH_POLL_MS = 100;

/** A running service: one process group, one forced port. */
export class Service {
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private stopping = false;
  /** Base URL to send load to, known once ready. */
  url = '';
  /** Responses this start of the service has answered in perfgate's load (warm-ups included). */
  requestsServed = 0;
  /** What this start told before any load: set by waitReady. */
  startup: { readyMs: number; rssBytes: number | null } | null = null;
  /** When the start command was spawned (epoch ms, the clock the preload's events use). */
  private readonly spawnedAt = Date.now();

  private constructor(
    readonly side: Side,
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly options: StartOptions,
    /** The per-slice health channel to the service's processes; null while profiling. */
    readonly health: HealthChannel | null,
    /** The start's own PM2_HOME, removed when it stops; null when service.env sets one. */
    private readonly pm2Home: string | null,
    /** This start's output, kept within its cap. */
    private readonly log: BoundedLog,
    /** Where this start's part of the side's log begins (its command line), in bytes. */
    private readonly logFrom: number,
    /** The user head's code runs as, when this start runs it: its group is signalled as that user too. */
    private readonly headUser: HeadUser | null,
  ) {
    // Exited once its last words are in the log: every message that says it died quotes them.
    child.once('exit', (code, signal) => {
      void log.settled(EXIT_OUTPUT_WAIT_MS).then(() => {
        this.exit = { code, signal };
      });
    });
  }

  static async start(options: StartOptions): Promise<Service> {
    const command = options.config.start;
    // The config requires a start command whenever there are scenarios to load.
    if (command === null) throw new Error('Service.start: service.start is not set');
    const sideEnv = { PERFGATE_SIDE: options.codeOf ?? options.side, PERFGATE_START: String(options.start) };
    if (options.config.setup) await runSetup(options, options.config.setup, sideEnv);
    const port = await servicePort();
    const head = headUserOf(options.tracker, sideEnv);
    // Removed first: a status file an earlier start of head's left behind is its user's, not perfgate's to rewrite.
    rmSync(options.statusFile, { force: true });
    writeFileSync(options.statusFile, '');
    // Health is measured in the timed slices only, never under the profiler. Without a socket
    // (no writable temporary directory) the run goes on, and the report says health is missing.
    const health = options.profiling ? null : await HealthChannel.open(head !== null).catch(() => null);
    head?.give([options.statusFile, ...(health ? [health.socketPath] : [])]);
    // Head's goes in its user's home, which goes with the run; perfgate's user could not remove what head's pm2 writes.
    const headPm2Home = head && options.config.env.PM2_HOME === undefined ? join(head.home, `pm2-${process.hrtime.bigint()}`) : null;
    const pm2Home = options.config.env.PM2_HOME === undefined && !head ? privatePm2Home() : null;
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      ...options.env,
      ...(pm2Home && { PM2_HOME: pm2Home }),
      ...(headPm2Home && { PM2_HOME: headPm2Home }),
      ...options.config.env,
      ...sideEnv,
      PORT: String(port),
      PERFGATE_PORT: String(port),
      PERFGATE_STATUS_FILE: options.statusFile,
      ...(health && { PERFGATE_HEALTH_SOCKET: health.socketPath }),
      ...(options.envPad !== undefined && { PERFGATE_ENV_PAD: 'x'.repeat(options.envPad) }),
    };
    const userOptions = env.NODE_OPTIONS ? `${env.NODE_OPTIONS} ` : '';
    env.NODE_OPTIONS = `${userOptions}--require "${preloadPath()}"`;
    if (options.profiling) {
      Object.assign(env, options.profiling.env);
      if (options.profiling.nodeOptions) env.NODE_OPTIONS += ` ${options.profiling.nodeOptions}`;
    }
    const logFrom = fileSize(options.logFile);
    writeFileSync(options.logFile, `$ ${command}   (${options.side}, port ${port}, in ${options.dir}${options.cpus ? `, CPUs ${options.cpus}` : ''})\n`, {
      flag: 'a',
    });
    let child: ChildProcess;
    const log = new BoundedLog(options.logFile, options.logCap ?? START_LOG_CAP);
    try {
      // taskset execs the shell: the group, its pid and everything it starts keep the CPU list.
      child = startShell(command, { cwd: options.dir, env, logFile: options.logFile, boundedLog: log, tracker: options.tracker, ...(options.cpus && { cpus: options.cpus }) });
    } catch (e) {
      void log.settled(0);
      health?.close();
      if (pm2Home) rmSync(pm2Home, { recursive: true, force: true });
      portsInUse.delete(port);
      throw e;
    }
    return new Service(options.side, port, child, options, health, pm2Home, log, logFrom, head);
  }

  get pgid(): number {
    return this.child.pid!;
  }

  /** Which start of its side this is (StartOptions.start). */
  get start(): StartOptions['start'] {
    return this.options.start;
  }

  /** The CPUs perfgate gave it, or undefined when it inherited perfgate's. */
  get cpus(): string | undefined {
    return this.options.cpus;
  }

  get exited(): boolean {
    return this.exit !== null;
  }

  /** The end of this start's output and its first error (log-excerpt.ts). */
  logTail(lines = 20): string {
    return explainLog(this.options.logFile, lines, this.logFrom);
  }

  /** Bytes this start has printed so far, and how many of them its log left out. */
  get output(): { printed: number; dropped: number } {
    return { printed: this.log.printed, dropped: this.log.dropped };
  }

  private exitDescription(): string {
    if (!this.exit) return 'is running';
    return this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  /** Throws a ServiceError when the service is no longer running. */
  assertRunning(when: string): void {
    if (this.exit && !this.stopping) {
      const log = this.logTail();
      const hint = PORT_TAKEN.test(log) ? ` ${PORT_HINT}` : '';
      throw new ServiceError(`The ${this.side} service ${this.exitDescription()} ${when}.${hint} Its log: ${this.options.logFile}`, log);
    }
  }

  /**
   * Ready = the port is bound (reported by the preload, or accepting connections) and, when
   * configured, the ready path answers 2xx. Fails early when the process exits.
   */
  async waitReady(): Promise<void> {
    const { timeoutMs, path } = this.options.config.ready;
    const deadline = Date.now() + timeoutMs;
    let host = '';
    let lastProblem = 'the port was never bound';
    while (Date.now() < deadline) {
      this.assertRunning('before it was ready');
      if (!host) {
        host = this.reportedHost() ?? ((await canConnect('127.0.0.1', this.port)) ? '127.0.0.1' : '');
      }
      if (host) {
        this.url = `http://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
        if (!path) return this.recordStartup();
        const status = await httpStatus(`${this.url}${path}`, Math.max(100, Math.min(2000, deadline - Date.now())));
        if (status >= 200 && status < 300) return this.recordStartup();
        lastProblem = status ? `GET ${path} answered ${status}` : `GET ${path} got no answer`;
      }
      // Until the port is bound, the check is a read of the preload's status file (or a refused
      // connect): every start of every pair waits here, and a 100 ms step cost each pair ~50 ms.
      await sleep(host ? READY_PATH_POLL_MS : PORT_POLL_MS);
    }
    const seconds = (timeoutMs / 1000).toFixed(timeoutMs % 1000 ? 1 : 0);
    // A port never bound is a slow start or a port perfgate did not give; an answer that was not
    // 2xx is the ready path's.
    const hint = host
      ? `Check service.ready.path in perfgate.yml, or raise service.ready.timeout if it answers once it has warmed up.`
      : `If it takes longer than ${seconds} s to start, raise service.ready.timeout in perfgate.yml (ready: { timeout: 120s }). ${PORT_HINT}`;
    throw new ServiceError(
      `The ${this.side} service was not ready within ${seconds} s (${lastProblem}; port ${this.port}). ${hint} Its log: ${this.options.logFile}`,
      this.logTail(),
    );
  }

  /**
   * Start-up time: to the listening socket the preload reported (ms resolution, independent of
   * how often readiness is polled), else to now; memory: the group's resident set now, before
   * any load.
   */
  private recordStartup(): void {
    const listenedAt = this.listening()?.time;
    const readyAt = typeof listenedAt === 'number' && listenedAt >= this.spawnedAt ? listenedAt : Date.now();
    this.startup = { readyMs: readyAt - this.spawnedAt, rssBytes: groupRssBytes(this.pgid) };
  }

  /** The preload's report of the forced port being bound, if it came. */
  private listening(): { address?: string; time?: number } | null {
    let text = '';
    try {
      text = readFileSync(this.options.statusFile, 'utf8');
    } catch {
      return null;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      let event: { event?: string; address?: string; port?: number; time?: number };
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      if (event.event === 'listening' && event.port === this.port) return event;
    }
    return null;
  }

  /** The address the preload saw bound, as a host to connect to. */
  private reportedHost(): string | null {
    const event = this.listening();
    if (!event) return null;
    const address = event.address ?? '';
    if (address === '' || address === '::' || address === '0.0.0.0') return '127.0.0.1';
    return address;
  }

  async stop(graceMs = 5000): Promise<void> {
    this.stopping = true;
    // The windows' allocated bytes, read by each process only now that its load is over.
    await this.health?.flush();
    await stopGroup(this.pgid, graceMs, this.headUser);
    this.options.tracker.delete(this.pgid);
    await this.log.settled(EXIT_OUTPUT_WAIT_MS);
    this.health?.close();
    if (this.pm2Home) rmSync(this.pm2Home, { recursive: true, force: true });
    portsInUse.delete(this.port);
  }
}

/**
 * service.setup, in the start's directory with the start's environment (service.env, its side and
 * start number), before the service is spawned: a database reset or migrations each start needs.
 * Its output goes to the side's setup log; a failure names the start and shows the log's end.
 */
async function runSetup(options: StartOptions, command: string, sideEnv: Record<string, string>): Promise<void> {
  const logFile = options.logFile.replace(/\.log$/, '-setup.log');
  const logFrom = fileSize(logFile);
  writeFileSync(logFile, `$ ${command}   (${options.side}, start ${options.start}, in ${options.dir})\n`, { flag: 'a' });
  const env = { NODE_ENV: 'production', ...options.env, ...options.config.env, ...sideEnv };
  const boundedLog = new BoundedLog(logFile, START_LOG_CAP);
  const result = await runShell(command, { cwd: options.dir, env, logFile, boundedLog, tracker: options.tracker, timeoutMs: SETUP_TIMEOUT_MS });
  if (result.code === 0) return;
  const how = result.timedOut ? `timed out after ${SETUP_TIMEOUT_MS / 60_000} min` : result.signal ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
  throw new SetupError(
    // The number the command itself saw (PERFGATE_START) and the setup log shows: one numbering, from 0.
    `service.setup failed before ${typeof options.start === 'number' ? `start ${options.start} (PERFGATE_START=${options.start})` : `the ${options.start} start`} of ${options.side}: \`${command}\` ${how}. ` +
      `Fix the command in perfgate.yml or what it needs (a database that is not reachable?). What was measured before is kept. Log: ${logFile}\n${explainLog(logFile, 15, logFrom)}`,
  );
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Status code of a GET, or 0 when there is no answer. */
export function httpStatus(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
    req.end();
  });
}
