import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Boundary } from './boundary.js';
import type { BoundedLog } from './bounded-log.js';
import type { HeadUser } from './head-user.js';
import { groupStates, processState } from './proc-cpu.js';
import { programPath } from './programs.js';

/**
 * Every process perfgate starts runs in its own process group (detached) so that stopping it
 * stops everything it started: `npm start` → sh → node → cluster workers.
 * The tracker remembers the groups, kills them all in `finally`, and mirrors the list to a
 * pid file that the action's post step reads to kill survivors of a cancelled job. With a
 * boundary (a cgroup, engine/process/boundary.ts), every process starts inside it and killAll ends with
 * stopping it: a process that left its group and changed its environment is stopped too.
 */
export class ProcessTracker {
  private readonly groups = new Set<number>();

  /**
   * `marker`: the value of PERFGATE_RUN_ID in every started process's environment (the caller
   * puts it there); killAll also stops processes that left their group (setsid, a double fork).
   */
  constructor(
    private readonly pidFile: string | null = null,
    private readonly marker: string | null = null,
    readonly boundary: Boundary | null = null,
    /** The user head's code runs as (made with the boundary); null: head runs as perfgate's user. */
    readonly headUser: HeadUser | null = null,
  ) {}

  add(pgid: number): void {
    this.groups.add(pgid);
    this.sync();
  }

  delete(pgid: number): void {
    this.groups.delete(pgid);
    this.sync();
  }

  get size(): number {
    return this.groups.size;
  }

  /** Stops every tracked group (SIGTERM, then SIGKILL after graceMs). */
  async killAll(graceMs = 3000): Promise<void> {
    await Promise.all([...this.groups].map((g) => stopGroup(g, graceMs)));
    this.groups.clear();
    this.sync();
    if (this.marker) await stopMarked(this.marker, graceMs);
    await this.boundary?.kill();
  }

  private sync(): void {
    if (this.pidFile) writeFileSync(this.pidFile, [...this.groups].join('\n'));
  }
}

/**
 * Whether a process of group `pgid` still runs. kill(-pgid, 0) also finds members that exited
 * and wait to be reaped (zombies): a group leader such as `sh -c` dies first, its children are
 * orphaned, and the init that inherits them may reap only every second or so (in a container,
 * never): a stop would wait for that, or for its whole grace. So when the leader is gone or a
 * zombie, the group counts as alive only while /proc shows a member that is not a zombie.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const leader = processState(pgid);
  if (leader !== null && leader !== 'Z') return true;
  const states = groupStates(pgid);
  // Without procfs, or where it hides other users' processes, the signal's answer stands.
  return states === null || states.length === 0 || states.some((state) => state !== 'Z');
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * SIGTERM to the whole group, then SIGCONT (a stopped process acts on its SIGTERM only once it
 * runs again, as systemd does it), SIGKILL after graceMs if anything is still alive. A group of
 * head's code (`headUser`) is signalled as that user too: perfgate's own user may not signal its
 * processes.
 */
export async function stopGroup(pgid: number, graceMs = 3000, headUser: HeadUser | null = null): Promise<void> {
  if (!groupAlive(pgid)) return;
  const send = async (signal: NodeJS.Signals) => {
    signalGroup(pgid, signal);
    if (headUser) await headUser.signalGroup(pgid, signal);
  };
  await send('SIGTERM');
  signalGroup(pgid, 'SIGCONT');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return;
    await sleep(25);
  }
  await send('SIGKILL');
  const hardDeadline = Date.now() + 2000;
  while (groupAlive(pgid) && Date.now() < hardDeadline) await sleep(25);
}

/**
 * Kills the groups listed in a pid file (the post step). Returns how many were alive. With a
 * `marker`, a group is killed only when its leader carries it (the file may have been forged).
 */
export async function killGroupsFromFile(pidFile: string, graceMs = 3000, marker: string | null = null): Promise<number> {
  let text = '';
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return 0;
  }
  const groups = text.split('\n').map(Number).filter((n) => Number.isInteger(n) && n > 1);
  const marked = marker === null ? null : new Set(findMarked(marker));
  const alive = groups.filter((g) => groupAlive(g) && (marked === null || marked.has(g)));
  await Promise.all(alive.map((g) => stopGroup(g, graceMs)));
  return alive.length;
}

/** The variable every process perfgate starts carries, so one that left its process group is still found. */
export const RUN_MARKER_VAR = 'PERFGATE_RUN_ID';

/**
 * Processes of this user whose environment holds PERFGATE_RUN_ID=<marker> (proc(5): the
 * environment a process started with, inherited across fork, setsid and exec), this process
 * excluded. A process that execs itself with another environment is not found; a cgroup would
 * be the complete answer where perfgate could create one.
 */
export function findMarked(marker: string): number[] {
  const needle = Buffer.from(`\0${RUN_MARKER_VAR}=${marker}\0`);
  const found: number[] = [];
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const name of pids) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${pid}/environ`)]);
      if (environ.includes(needle)) found.push(pid);
    } catch {
      // gone, or another user's
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM to every marked process, SIGKILL after graceMs to the survivors. Returns how many were found. */
export async function stopMarked(marker: string, graceMs = 3000): Promise<number> {
  const pids = findMarked(marker);
  if (pids.length === 0) return 0;
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pids.some(alive)) await sleep(25);
  for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
  return pids.length;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface ShellOptions {
  cwd: string;
  env: Record<string, string>;
  /** stdout (and stderr, unless errorLogFile is given) are appended here. */
  logFile: string;
  /** stderr goes here instead, when its tail must be told apart from the program's output. */
  errorLogFile?: string;
  /** Where given, stdout and stderr go through it (a start's output kept within a cap) instead of straight into logFile. */
  boundedLog?: BoundedLog;
  tracker: ProcessTracker;
  /**
   * CPUs the process and all it starts may run on (a taskset list). taskset comes first, before
   * the boundary's shell and the change of user, so the tracked pid (sudo's, for head's code)
   * keeps the list too; each execs the next, and the pid stays the same.
   */
  cpus?: string;
}

/** Starts `command` through /bin/sh in a new process group, output to the log file. */
export function startShell(command: string, options: ShellOptions): ChildProcess {
  return startProcess('/bin/sh', ['-c', command], options);
}

/**
 * The user a process runs as when it is head's code, else null. PERFGATE_SIDE is what perfgate
 * tells every start of a side's code (install, build, setup, service, benchmark, the third
 * arm's reverted head), so the one statement of whose code runs also decides its user.
 */
export function headUserOf(tracker: ProcessTracker, env: Record<string, string>): HeadUser | null {
  return env.PERFGATE_SIDE === 'head' ? tracker.headUser : null;
}

/**
 * Whose user head's code runs as, for the messages that say who could have changed base's
 * processes or files: its own, or perfgate's (inside a boundary that could not make one, or with
 * no boundary at all).
 */
export type HeadIdentity = 'own-user' | 'shared-in-boundary' | 'shared';

export function headIdentityOf(tracker: ProcessTracker): HeadIdentity {
  if (tracker.headUser) return 'own-user';
  return tracker.boundary ? 'shared-in-boundary' : 'shared';
}

/** Why head's code runs as perfgate's own user, for a message: "The pull request's code runs as the same user as base's <this>". */
export function sharedUserWhy(identity: Exclude<HeadIdentity, 'own-user'>): string {
  return identity === 'shared-in-boundary'
    ? 'here (inside the boundary, but no user of its own could be made for it)'
    : "(perfgate gives it a user of its own only inside a boundary: the action's, or the CLI's with --boundary)";
}

/**
 * Starts a program (no shell: arguments are passed as they are) in a new, tracked process group.
 * Head's code enters the boundary as perfgate's user, then changes user (sudo stays its parent,
 * in the same process group, and relays the SIGTERM of a graceful stop to it).
 */
export function startProcess(file: string, args: readonly string[], options: ShellOptions): ChildProcess {
  const resolved = programPath(file);
  const head = headUserOf(options.tracker, options.env);
  const env = head ? head.env(options.env) : options.env;
  const [user, userArgs] = head ? head.command(resolved, args, env) : [resolved, [...args]];
  const [inside, insideArgs] = options.tracker.boundary ? options.tracker.boundary.wrap(user, userArgs) : [user, userArgs];
  const [program, argv] = options.cpus ? [programPath('taskset'), ['-c', options.cpus, inside, ...insideArgs]] : [inside, insideArgs];
  const spawnTracked = (out: number | 'pipe', err: number | 'pipe') => {
    const child = spawn(program, argv, { cwd: options.cwd, env, detached: true, stdio: ['ignore', out, err] });
    if (child.pid) options.tracker.add(child.pid);
    return child;
  };
  if (options.boundedLog) {
    const child = spawnTracked('pipe', 'pipe');
    for (const stream of [child.stdout, child.stderr]) if (stream) options.boundedLog.attach(stream);
    return child;
  }
  const out = openSync(options.logFile, 'a');
  const err = options.errorLogFile ? openSync(options.errorLogFile, 'a') : out;
  try {
    return spawnTracked(out, err);
  } finally {
    closeSync(out);
    if (err !== out) closeSync(err);
  }
}

export interface ShellResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Runs a setup command (install, build) to completion; kills its group on timeout. */
export function runShell(command: string, options: ShellOptions & { timeoutMs: number }): Promise<ShellResult> {
  return runProcess('/bin/sh', ['-c', command], options);
}

/**
 * Runs a program to completion; kills its whole group on timeout, and afterwards in any case,
 * so nothing it started in the background outlives it.
 */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: ShellOptions & { timeoutMs: number },
): Promise<ShellResult> {
  const child = startProcess(file, args, options);
  const pgid = child.pid;
  if (pgid === undefined) {
    // spawn failed (e.g. the program is not on PATH): 'error' says why
    const [code, signal] = await exitOf(child);
    return { code, signal, timedOut: false };
  }
  let timedOut = false;
  const head = headUserOf(options.tracker, options.env);
  const timer = setTimeout(() => {
    timedOut = true;
    void stopGroup(pgid, 2000, head);
  }, options.timeoutMs);
  try {
    const [code, signal] = await exitOf(child);
    return { code, signal, timedOut };
  } finally {
    clearTimeout(timer);
    await stopGroup(pgid, 1000, head);
    options.tracker.delete(pgid);
    // Its whole output in the file before anyone reads it.
    await options.boundedLog?.settled(1000);
  }
}

export function exitOf(child: ChildProcess): Promise<[number | null, NodeJS.Signals | null]> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve([child.exitCode, child.signalCode]);
  }
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => resolve([code, signal]));
    child.once('error', reject);
  });
}

/** The last `lines` lines of a log file, for error messages. */
export function tailFile(path: string, lines = 20): string {
  try {
    const text = readFileSync(path, 'utf8').replace(/\s+$/, '');
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
