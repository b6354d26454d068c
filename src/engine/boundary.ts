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
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface Boundary {
  /** The cgroup's directory. */
  path: string;
  /** For the log: which kind, where. */
  description: string;
  /**
   * The program and arguments that run `file args` inside the boundary: a shell that writes its
   * own pid into the cgroup, then execs the program (same pid, same process group), so the
   * program and all it starts are inside from their first instruction.
   */
  wrap(file: string, args: readonly string[]): [string, string[]];
  /** Kills every process inside (SIGKILL); resolves once none is left. Returns how many there were. */
  kill(): Promise<number>;
  /** Kills what is left and removes the cgroup. */
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

function cgroupAt(dir: string, version: 1 | 2): Boundary {
  const procs = join(dir, 'cgroup.procs');
  const kill = async (): Promise<number> => {
    let found = 0;
    // A process forking as it is killed can leave a child; a few rounds end that race.
    for (let round = 0; round < 50; round++) {
      const pids = pidsIn(dir, version);
      if (round === 0) found = pids.length;
      if (pids.length === 0) return found;
      if (version === 2 && existsSync(join(dir, 'cgroup.kill'))) {
        writeFileSync(join(dir, 'cgroup.kill'), '1');
      } else if (version === 2) {
        writeFileSync(join(dir, 'cgroup.freeze'), '1');
        killEach(pidsIn(dir, version));
        writeFileSync(join(dir, 'cgroup.freeze'), '0');
      } else {
        // A frozen task cannot fork: kill all, then thaw so the kills are delivered.
        writeFileSync(join(dir, 'freezer.state'), 'FROZEN');
        for (let wait = 0; wait < 100 && read(join(dir, 'freezer.state')).trim() === 'FREEZING'; wait++) await sleep(5);
        killEach(pidsIn(dir, version));
        writeFileSync(join(dir, 'freezer.state'), 'THAWED');
      }
      await sleep(round < 10 ? 10 : 50);
    }
    return found;
  };
  return {
    path: dir,
    description: `cgroup v${version} ${dir}`,
    wrap: (file, args) => ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', procs, file, ...args]],
    kill,
    async close() {
      const killed = await kill();
      try {
        rmdirSync(dir);
      } catch {
        // still busy (a zombie not yet reaped) or gone: the runner's cleanup takes it
      }
      return killed;
    },
  };
}

/**
 * Creates the boundary `perfgate-<marker>` at the top of the cgroup hierarchy. Needs write
 * access there: root (a container, a self-hosted runner as root). Returns why not otherwise.
 */
export function openBoundary(marker: string): Boundary | { unavailable: string } {
  if (process.platform !== 'linux') return { unavailable: `${process.platform} has no cgroups` };
  const mount = findCgroupMount();
  if (!mount) return { unavailable: 'no cgroup v2 or v1 freezer hierarchy is mounted' };
  const dir = join(mount.dir, `perfgate-${marker}`);
  try {
    mkdirSync(dir);
  } catch (e) {
    return { unavailable: `cannot create a cgroup in ${mount.dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; that needs root)` };
  }
  const boundary = cgroupAt(dir, mount.version);
  // A process started through it proves that moving into it works before anything depends on it.
  const [file, args] = boundary.wrap('/bin/sh', ['-c', 'exit 0']);
  const probe = spawnSync(file, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) {
    try {
      rmdirSync(dir);
    } catch {
      // left for the runner's cleanup
    }
    return { unavailable: `cannot move a process into ${dir}: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}` };
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
