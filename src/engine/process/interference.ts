/**
 * What the pull request's code can do to base's processes without writing a file where they run
 * as the same user (no boundary, or no user of head's own could be made): head's code can stop
 * them (SIGSTOP, SIGTSTP), lower their priority (renice), pin them to fewer CPUs (taskset), or
 * move them into a cgroup of their own and freeze it. Base is
 * then slow and head's regression passes, or head looks faster than it is. Head can do the
 * reverse to itself too: widen its own CPUs to the load generator's. As its own user
 * (perfgate-head) head can do that to its own starts only; base's can then be changed only by a
 * process of perfgate's user or root, and the checks stay to say so.
 *
 * perfgate knows what every start of a block should look like, because it started it: running
 * (not stopped), at perfgate's own nice value and scheduling policy, on the CPUs perfgate gave
 * it, in the cgroup perfgate put it in. Around every slice and at the end of every block it reads
 * each thread of each start's processes from /proc (proc(5): /proc/<pid>/task/<tid>/stat for the
 * state, nice and policy, .../status for Cpus_allowed_list, /proc/<pid>/cgroup) and stops the run
 * on any difference. The policy matters as much as nice: chrt --idle (SCHED_IDLE) runs base only
 * when no other thread wants the CPU, and --batch (SCHED_BATCH) lowers its wake-up preference,
 * both without a privilege and without touching nice.
 *
 * A point check sees a stop or a changed affinity only while it lasts: head's code that stops
 * base for part of each slice is seen at a slice's edge with the probability of being stopped
 * then, so over a run's dozens of edges almost surely; a change put back between two edges is not
 * seen. A raised nice cannot be put back by an unprivileged process (setpriority(2) needs
 * CAP_SYS_NICE to lower it), so that one is always seen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import type { Side } from '../../results/types.js';
import { InterferenceError } from '../errors.js';
import { HEAD_USER } from './head-user.js';
import { parseCpuList } from './placement.js';
import { type HeadIdentity, sharedUserWhy } from './processes.js';
import { startsProcesses } from './proc-cpu.js';

/** A start as the check needs it. */
export interface WatchedStart {
  side: Side;
  /** Its number over the run (0-based), for the message. */
  start: number;
  pgid: number;
  /** The CPUs perfgate gave it (a taskset list), or undefined: then those of this process. */
  cpus: string | undefined;
}

/** What every thread of every start must show. */
export interface Expected {
  /** This process's nice value when the block started: the services inherit it. */
  nice: number;
  /** This process's scheduling policy (sched(7)) when the block started: the services inherit it too; null where /proc does not show it. */
  policy: number | null;
  /** The CPUs of a start without its own list: this process's, when the block started. */
  cpus: string;
  /** The cgroup every start's processes are in (its path in the v2 or v1 freezer hierarchy), or null when perfgate made none. */
  cgroup: { version: 1 | 2; path: string } | null;
  /** Whose user head's code runs as: what a message says could have made the change. */
  head: HeadIdentity;
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** "0-2,5" and "0,1,2,5" alike → "0,1,2,5". */
function normalCpus(list: string): string {
  return [...new Set(parseCpuList(list))].sort((a, b) => a - b).join(',');
}

/** The Cpus_allowed_list line of a /proc status file. */
function allowedList(status: string): string | null {
  const line = status.split('\n').find((l) => l.startsWith('Cpus_allowed_list:'));
  return line ? normalCpus(line.slice(line.indexOf(':') + 1).trim()) : null;
}

/** The fields of a /proc stat line after the command: [0] is field 3 of proc(5), the state. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Field 41 of proc(5), the scheduling policy, in statFields' numbering. */
const POLICY = 38;

/** sched(7)'s names of the policies /proc shows as numbers. */
const POLICY_NAMES: Record<number, string> = { 0: 'SCHED_OTHER', 1: 'SCHED_FIFO', 2: 'SCHED_RR', 3: 'SCHED_BATCH', 5: 'SCHED_IDLE', 6: 'SCHED_DEADLINE' };

function policyName(policy: number): string {
  return POLICY_NAMES[policy] ?? `policy ${policy}`;
}

/** The expected values, read from this process when a block starts (before its starts are spawned). */
export function expectedNow(cgroup: Expected['cgroup'], head: HeadIdentity): Expected {
  const own = read('/proc/self/stat');
  const policy = own === null ? Number.NaN : Number(statFields(own)[POLICY]);
  return { nice: getPriority(), policy: Number.isInteger(policy) ? policy : null, cpus: allowedList(read('/proc/self/status') ?? '') ?? '', cgroup, head };
}

/** A process's cgroup in the unified (v2) or the freezer (v1) hierarchy, from /proc/<pid>/cgroup (a hybrid system lists both). */
function cgroupOf(pid: number, version: 1 | 2): string | null {
  const text = read(`/proc/${pid}/cgroup`);
  if (text === null) return null;
  for (const line of text.split('\n')) {
    const [id, controllers, path] = line.split(':');
    if (path !== undefined && (version === 2 ? id === '0' && controllers === '' : controllers!.split(',').includes('freezer'))) return path;
  }
  return null;
}

/**
 * What differs, in words, for every start's processes and threads; empty when nothing does (or
 * without procfs: not Linux). A process that exits while it is read is skipped.
 */
export function findInterference(starts: readonly WatchedStart[], expected: Expected): string[] {
  const processes = startsProcesses(starts.map((s) => s.pgid));
  if (processes === null) return [];
  const found: string[] = [];
  starts.forEach((start, i) => {
    const who = `${start.side}'s start ${start.start + 1}`;
    const cpus = start.cpus === undefined ? expected.cpus : normalCpus(start.cpus);
    for (const [pid, fields] of processes[i]!) {
      const name = `${who}, pid ${pid}`;
      if (expected.cgroup !== null) {
        const cgroup = cgroupOf(pid, expected.cgroup.version);
        // The boundary's top directory is as far as a process can move on its own; it is still
        // inside (killed with it, its CPU counted), and nothing there can be frozen apart from
        // perfgate's own process. Any other cgroup, below pr/ or beside it, can be frozen alone.
        const top = expected.cgroup.path.slice(0, expected.cgroup.path.lastIndexOf('/'));
        if (cgroup !== null && cgroup !== expected.cgroup.path && cgroup !== top) found.push(`${name} was moved to the cgroup ${cgroup} (perfgate put it in ${expected.cgroup.path})`);
      }
      let tids: string[];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      const seen = new Set<string>();
      for (const tid of tids) {
        const stat = tid === String(pid) ? null : read(`/proc/${pid}/task/${tid}/stat`);
        // f[0] state, f[16] nice, f[38] policy (fields 3, 19 and 41 of proc(5)); the process's own line for its main thread.
        const f = stat === null ? fields : statFields(stat);
        const thread = tid === String(pid) ? name : `${name} (thread ${tid})`;
        const facts: string[] = [];
        if (f[0] === 'T' || f[0] === 't') facts.push('was stopped (SIGSTOP, SIGTSTP or a debugger)');
        const nice = Number(f[16]);
        if (Number.isFinite(nice) && nice !== expected.nice) facts.push(`ran at nice ${nice} (perfgate started it at ${expected.nice})`);
        const policy = Number(f[POLICY]);
        if (expected.policy !== null && Number.isInteger(policy) && policy !== expected.policy) {
          facts.push(`ran under the scheduling policy ${policyName(policy)} (perfgate started it under ${policyName(expected.policy)})`);
        }
        const status = read(`/proc/${pid}/task/${tid}/status`);
        const allowed = status === null ? null : allowedList(status);
        if (allowed !== null && cpus !== '' && allowed !== cpus) facts.push(`was allowed CPUs ${allowed} (perfgate gave it ${cpus})`);
        // One line per kind of change and process: a renice of every thread is one finding.
        for (const fact of facts) {
          if (seen.has(fact)) continue;
          seen.add(fact);
          found.push(`${thread} ${fact}`);
        }
      }
    }
  });
  return found;
}

/** Most findings a message names; the count says how many more. */
const NAMED = 6;

/** Throws InterferenceError when any start's processes differ from what perfgate started. */
export function assertUntouched(starts: readonly WatchedStart[], expected: Expected, when: string): void {
  const found = findInterference(starts, expected);
  if (found.length === 0) return;
  const more = found.length > NAMED ? ` and ${found.length - NAMED} more` : '';
  throw new InterferenceError(
    `A service's processes were changed by another process ${when}: ${found.slice(0, NAMED).join('; ')}${more}. ${whoCouldChange(expected.head)}; ` +
      'the services were then not measured as perfgate started them, so this run gives no verdict. ' +
      'If your own service changes its priority, scheduling policy or CPU affinity, or stops itself, it cannot be measured fairly this way (docs/security.md, "A fair comparison").',
  );
}

/** Who could have made such a change, as it is on this run. */
function whoCouldChange(head: HeadIdentity): string {
  if (head === 'own-user') {
    return (
      `Head's code runs as its own user (${HEAD_USER}): it can change its own starts, not base's, which are perfgate's user's ` +
      "and can be changed only by a process of that user or root (base's own code, or a process an earlier step left running)"
    );
  }
  return (
    `The pull request's code runs as the same user as base's service ${sharedUserWhy(head)} and can stop it, lower its priority ` +
    'or scheduling policy (chrt --idle, --batch) or narrow its CPUs, which makes base slow and head look fast'
  );
}

/**
 * The CPU that processes inside the boundary which belong to no start used over a stretch of a
 * block: the boundary's CPU minus every start's. A process that left its start's process group and
 * was orphaned (setsid and a double fork) is counted by the cgroup and by no start.
 */
export const STRAY_CPU_LIMIT = 0.1;

/** Throws InterferenceError when the stray processes used more than STRAY_CPU_LIMIT of a core over `seconds`. */
export function assertNoStrayCpu(boundarySeconds: number, startsSeconds: number, seconds: number, when: string): void {
  const stray = boundarySeconds - startsSeconds;
  if (!(seconds > 0) || !Number.isFinite(stray) || stray / seconds <= STRAY_CPU_LIMIT) return;
  throw new InterferenceError(
    `Processes of the pull request's code that belong to no service start used ${((stray / seconds) * 100).toFixed(0)}% of a core ${when} ` +
      `(${stray.toFixed(2)} CPU s over ${seconds.toFixed(1)} s; limit ${STRAY_CPU_LIMIT * 100}%): something left its process group (setsid, a double fork) and kept working ` +
      'beside the services being measured, so this run gives no verdict. A service, install or build must not leave busy processes behind; a database or cache that ' +
      'service.setup or service.install starts in the background counts as one too: start it in an earlier workflow step or as a service container (docs/security.md, "A fair comparison").',
  );
}
