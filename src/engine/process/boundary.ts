/**
 * A boundary around every process the pull request's code runs in: a control group (cgroup)
 * that perfgate creates and that processes cannot leave without root. A process group, a
 * session or an environment variable can each be changed by the process itself (setsid,
 * `env -i`, a double fork); the cgroup a process is in is inherited by everything it starts,
 * and stopping the cgroup stops all of it. Linux's cgroup v2 (`cgroup.kill`, kernel 5.14 on)
 * or, without it, v1's freezer: freeze, kill every task, thaw, until none is left.
 * Docs: kernel.org, "Control Group v2" (cgroup.kill, cgroup.freeze) and "Freezer Subsystem".
 */
import { spawnSync } from 'node:child_process';
import { type Dirent, existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownEnv } from './programs.js';

export interface Boundary {
  /** The boundary's top directory (what the post step is told). */
  path: string;
  /** For the log: which kind, where. */
  description: string;
  /**
   * The program and arguments that run `file args` inside the boundary: a shell that writes its
   * own pid into the cgroup, then execs the program (same pid, same process group), so the
   * program and all it starts are inside from their first instruction.
   */
  wrap(file: string, args: readonly string[]): [string, string[]];
  /** The cgroup every process of the pull request's code starts in, as /proc/<pid>/cgroup names it in the hierarchy of `version`. */
  cgroup: { version: 1 | 2; path: string };
  /**
   * CPU seconds used so far by everything inside (`pr` and whatever moved up into the top
   * directory), from cgroup v2's cpu.stat, which the kernel keeps whether or not the cpu
   * controller is enabled; null on v1.
   */
  cpuSeconds(): number | null;
  /** Kills every process inside (SIGKILL); resolves once none is left. Returns how many there were. */
  kill(): Promise<number>;
  /** Kills what is left and removes the cgroups that are empty. */
  close(): Promise<number>;
}

/** What a boundary's directory is named: `perfgate-<run marker>`. */
const NAME = /^perfgate-[0-9a-f-]{8,64}$/;

interface Mount {
  version: 1 | 2;
  dir: string;
}

/** The cgroup v2 mount, else v1's freezer hierarchy, from /proc/self/mountinfo (proc(5)). */
export function findCgroupMount(mountinfo?: string): Mount | null {
  let text = mountinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return null;
    }
  }
  let freezer: Mount | null = null;
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const dir = before.split(' ')[4];
    const [fstype, , options] = after.split(' ');
    if (!dir) continue;
    if (fstype === 'cgroup2') return { version: 2, dir: unescapeMount(dir) };
    if (fstype === 'cgroup' && options?.split(',').includes('freezer')) freezer = { version: 1, dir: unescapeMount(dir) };
  }
  return freezer;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function pidsIn(dir: string, version: 1 | 2): number[] {
  return read(join(dir, version === 2 ? 'cgroup.procs' : 'tasks'))
    .split('\n')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}

/**
 * The cgroups below `dir`, deepest first. The user owns the boundary, so the pull request's code
 * can create cgroups inside `pr` (or the top directory) and move itself into them: every kill and
 * count covers them too.
 */
function cgroupsBelow(dir: string, skip: string | null = null): string[] {
  const found: string[] = [];
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    const sub = join(dir, entry.name);
    if (!entry.isDirectory() || sub === skip) continue;
    found.push(...cgroupsBelow(sub), sub);
  }
  return found;
}

/** Every process in `dir` and in the cgroups below it. */
function pidsUnder(dir: string, version: 1 | 2): number[] {
  return [dir, ...cgroupsBelow(dir)].flatMap((d) => pidsIn(d, version));
}

function killEach(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/**
 * Kills every process in the cgroup `dir` (SIGKILL); resolves once none is left. Needs write
 * access to its cgroup.kill (v2), cgroup.freeze (v2 before 5.14) or freezer.state (v1).
 */
async function killCgroup(dir: string, version: 1 | 2): Promise<number> {
  let found = 0;
  // A process forking as it is killed can leave a child; a few rounds end that race.
  for (let round = 0; round < 50; round++) {
    const pids = pidsUnder(dir, version);
    if (round === 0) found = pids.length;
    if (pids.length === 0) return found;
    // cgroup.kill and a freeze act on the whole subtree (kernel docs); a cgroup below that its
    // processes froze themselves is killed all the same (a kill wakes a frozen task).
    if (version === 2 && existsSync(join(dir, 'cgroup.kill'))) {
      writeFileSync(join(dir, 'cgroup.kill'), '1');
    } else if (version === 2) {
      writeFileSync(join(dir, 'cgroup.freeze'), '1');
      killEach(pidsUnder(dir, version));
      writeFileSync(join(dir, 'cgroup.freeze'), '0');
    } else {
      // A frozen task cannot fork: kill all, then thaw so the kills are delivered.
      writeFileSync(join(dir, 'freezer.state'), 'FROZEN');
      for (let wait = 0; wait < 100 && read(join(dir, 'freezer.state')).trim() === 'FREEZING'; wait++) await sleep(5);
      killEach(pidsUnder(dir, version));
      writeFileSync(join(dir, 'freezer.state'), 'THAWED');
    }
    await sleep(round < 10 ? 10 : 50);
  }
  return found;
}

/** Kills `pr` and whatever moved from it into the top directory, until neither holds a process. */
async function killInside(top: string, inside: string, version: 1 | 2): Promise<number> {
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    // The top directory's own processes, and those of any cgroup made beside pr and perfgate.
    const atTop = [top, ...cgroupsBelow(top, inside).filter((dir) => !dir.startsWith(join(top, 'perfgate')))].flatMap((dir) => pidsIn(dir, version));
    killEach(atTop);
    const inPr = await killCgroup(inside, version);
    killed += atTop.length + inPr;
    if (atTop.length === 0 && inPr === 0) break;
    await sleep(10);
  }
  return killed;
}

function removeDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // still busy (a zombie not yet reaped), gone, or not ours to remove: the runner's cleanup takes it
  }
}

/**
 * The layout: `<mount>/perfgate-<marker>/` with two leaves, `perfgate` (this process, the load
 * generator) and `pr` (every process of the pull request's code), the whole subtree owned by
 * this process's user. Moving a process between two cgroups needs write access to the
 * cgroup.procs of their common ancestor (kernel docs, "Delegation Containment"): that is the
 * top directory, which is ours, so a process started by perfgate (in `perfgate`) can move itself
 * into `pr` without privilege, and nothing in `pr` can move out of the top directory. It can
 * move into the top directory itself (whose cgroup.procs is ours, for that rule), so a kill
 * covers it too; the `perfgate` leaf's cgroup.procs stays root's, so nothing moves in there.
 */
function cgroupAt(top: string, version: 1 | 2, origin: string | null = null, sudo: string | null = null): Boundary {
  const inside = join(top, 'pr');
  return {
    path: top,
    description: `cgroup v${version} ${inside}`,
    cgroup: { version, path: `/${basename(top)}/pr` },
    cpuSeconds: () => (version === 2 ? insideCpuSeconds(top) : null),
    wrap: (file, args) => ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', join(inside, 'cgroup.procs'), file, ...args]],
    kill: () => killInside(top, inside, version),
    async close() {
      const killed = await killInside(top, inside, version);
      for (const dir of cgroupsBelow(top, join(top, 'perfgate'))) removeDir(dir);
      removeDir(inside);
      // Back where this process came from, so the boundary can go. Both need root (the origin's
      // cgroup.procs and the hierarchy's top are root's): as root directly, otherwise with a
      // second sudo -n call; without either the empty cgroups stay until the runner removes them.
      if (origin && sudo) {
        spawnSync(sudo, ['-n', '/bin/sh', '-c', RELEASE, 'sh', origin, top], { stdio: 'ignore', env: ownEnv(), timeout: 10_000 });
      } else if (origin) {
        try {
          writeFileSync(join(origin, 'cgroup.procs'), String(process.pid));
        } catch {
          // not root
        }
      }
      if (existsSync(top) && pidsIn(join(top, 'perfgate'), version).length === 0) {
        removeDir(join(top, 'perfgate'));
        removeDir(top);
      }
      return killed;
    },
  };
}

/** usage_usec of a v2 cgroup's cpu.stat, in seconds; NaN when it cannot be read. */
function usageSeconds(dir: string): number {
  const line = read(join(dir, 'cpu.stat'))
    .split('\n')
    .find((l) => l.startsWith('usage_usec '));
  return line ? Number(line.split(' ')[1]) / 1e6 : Number.NaN;
}

/** The top directory's usage (its whole subtree) less the `perfgate` leaf's (the action's own process). */
function insideCpuSeconds(top: string): number | null {
  const seconds = usageSeconds(top) - usageSeconds(join(top, 'perfgate'));
  return Number.isFinite(seconds) ? seconds : null;
}

/** This process's cgroup in the mount's hierarchy (/proc/self/cgroup, cgroups(7)). */
function ownCgroup(mount: Mount): string | null {
  for (const line of read('/proc/self/cgroup').split('\n')) {
    const [id, controllers, path] = line.split(':');
    if (path === undefined) continue;
    if (mount.version === 2 ? id === '0' && controllers === '' : controllers!.split(',').includes('freezer')) return join(mount.dir, path);
  }
  return null;
}

/** The shell script that creates the layout and moves this process into it ($1 dir, $2 uid:gid, $3 pid). */
const CREATE =
  'mkdir "$1" && mkdir "$1/perfgate" "$1/pr" && chown -R "$2" "$1" && ' +
  'chown 0:0 "$1/perfgate/cgroup.procs" && { [ ! -e "$1/perfgate/tasks" ] || chown 0:0 "$1/perfgate/tasks"; } && ' +
  '{ [ ! -e "$1/perfgate/cgroup.threads" ] || chown 0:0 "$1/perfgate/cgroup.threads"; } && echo "$3" > "$1/perfgate/cgroup.procs"';

/**
 * Moves every process of the boundary $2's `perfgate` leaf (this process, and sudo and this shell,
 * which started there) back into the cgroup $1, then removes the boundary's empty cgroups.
 */
const RELEASE = 'for pid in $(cat "$2/perfgate/cgroup.procs"); do echo "$pid" > "$1/cgroup.procs"; done; rmdir "$2/perfgate" "$2"';

/**
 * Creates the boundary `perfgate-<marker>` at the top of the cgroup hierarchy and moves this
 * process into it. That needs root once: as root it is done directly; otherwise through
 * `sudo -n` (GitHub's hosted runners give the runner user passwordless sudo), one call. Returns
 * why not where neither works.
 */
export function openBoundary(marker: string, sudo: string | null): Boundary | { unavailable: string } {
  if (process.platform !== 'linux') return { unavailable: `${process.platform} has no cgroups` };
  const mount = findCgroupMount();
  if (!mount) return { unavailable: 'no cgroup v2 or v1 freezer hierarchy is mounted' };
  const top = join(mount.dir, `perfgate-${marker}`);
  const root = process.getuid?.() === 0;
  if (!root && !sudo) return { unavailable: `creating a cgroup in ${mount.dir} needs root, and sudo was not found` };
  const owner = `${process.getuid?.()}:${process.getgid?.()}`;
  const origin = ownCgroup(mount);
  const [file, args] = root ? ['/bin/sh', ['-c', CREATE]] : [sudo!, ['-n', '/bin/sh', '-c', CREATE]];
  const created = spawnSync(file, [...args, 'sh', top, owner, String(process.pid)], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: ownEnv(), timeout: 10_000 });
  if (created.status !== 0) {
    return { unavailable: `cannot create a cgroup in ${mount.dir}${root ? '' : ' with sudo -n'}: ${(created.stderr || created.error?.message || `exit ${created.status}`).trim()}` };
  }
  const boundary = cgroupAt(top, mount.version, origin, root ? null : sudo);
  // A process started through it proves that entering works before anything depends on it.
  const [probeFile, probeArgs] = boundary.wrap('/bin/sh', ['-c', 'exit 0']);
  const probe = spawnSync(probeFile, probeArgs, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: ownEnv(), timeout: 10_000 });
  if (probe.status !== 0) {
    return { unavailable: `cannot move a process into ${top}/pr: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}` };
  }
  return boundary;
}

/**
 * The boundary a main step opened, for the post step. The path comes from the step's state,
 * which the PR's code could have rewritten if the main step was killed before restoring it: only
 * a directory named like perfgate's, directly in a cgroup mount, is accepted.
 */
export function boundaryAt(path: string): Boundary | null {
  const mount = findCgroupMount();
  if (!mount || !NAME.test(basename(path)) || dirname(path) !== mount.dir) return null;
  return cgroupAt(path, mount.version);
}
