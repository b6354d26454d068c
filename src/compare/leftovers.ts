/**
 * What a run leaves when it is killed before its `finally` (SIGKILL, the OOM killer, a cancelled
 * CI job's hard kill): its services in their own process groups, its worktrees registered in the
 * repository, its cgroup, its home for head's user. Each run in a repository keeps a record of them in the repository's git
 * directory while it runs; the next run there, whatever its --out, finds a record whose process
 * is gone and cleans up after it. The git directory, not the run directory or TMPDIR: it is the
 * one place every run of the repository shares, and it holds the worktrees' own records already.
 * The action's post step cleans up after its own main step the same way (removeLeftovers), from
 * what the main step saved in the runner's state.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { boundaryAt } from '../engine/process/boundary.js';
import { removeHeadHome } from '../engine/process/head-user.js';
import { killGroupsFromFile, stopMarked } from '../engine/process/processes.js';
import { programPathOrNull } from '../engine/process/programs.js';
import { git } from '../engine/workspace/trees.js';

/** One running run, as its record file says. */
export interface RunRecord {
  pid: number;
  /** The process's start time in clock ticks since boot (proc(5), stat field 22): a reused pid has another. */
  startTicks: string | null;
  /** PERFGATE_RUN_ID of every process the run started. */
  marker: string;
  /** The run directory: its worktrees (trees/, confirm/…/tree/) lie under it. */
  outDir: string;
  /** The cgroup the run made, or null. */
  boundary: string | null;
  /**
   * The home the run made for head's user (its own: each run makes one), or null. Absent in the
   * record of a release that made none.
   */
  headHome?: string | null;
  /** When it started, ISO 8601, for the line that names it. */
  at: string;
}

/** What a run leaves to clean up, as its record or the action's saved state names it; null: not known. */
export interface Leftovers {
  marker: string | null;
  outDir: string | null;
  boundary: string | null;
  headHome?: string | null;
}

/** What was removed of a run's leftovers. */
export interface Removed {
  processes: number;
  worktrees: number;
  /** Head's home, what became of it; null where the run had none. */
  home: { path: string; outcome: 'removed' | 'absent' | 'kept' } | null;
  /** The run's cgroup, or null. */
  boundary: string | null;
}

/** What was cleaned up after one killed run. */
export interface Cleaned extends Removed {
  record: RunRecord;
}

/** The folder of run records in a repository's git directory (shared by its worktrees). */
export async function recordsDir(root: string): Promise<string> {
  const common = await git(['rev-parse', '--git-common-dir'], root);
  return join(isAbsolute(common) ? common : resolve(root, common), 'perfgate-runs');
}

/** The process's start time (proc(5) stat field 22), null where /proc cannot tell. */
export function startTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: fields are counted after its last ")"
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function running(record: RunRecord): boolean {
  const now = startTicks(record.pid);
  return now !== null && (record.startTicks === null || now === record.startTicks);
}

/** Where a run's record and the process groups its tracker mirrors are written. */
export function recordFiles(dir: string, marker: string): { record: string; pids: string } {
  return { record: join(dir, `${marker}.json`), pids: join(dir, `${marker}.pids`) };
}

/** Writes this run's record; returns the files to remove when it ends. */
export function writeRecord(dir: string, record: Omit<RunRecord, 'pid' | 'startTicks' | 'at'> & { headHome: string | null }): { record: string; pids: string } {
  mkdirSync(dir, { recursive: true });
  const files = recordFiles(dir, record.marker);
  const full: RunRecord = { pid: process.pid, startTicks: startTicks(process.pid), at: new Date().toISOString(), ...record };
  writeFileSync(files.record, `${JSON.stringify(full, null, 2)}\n`);
  return files;
}

function readRecord(path: string): RunRecord | null {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as RunRecord;
    return Number.isInteger(record.pid) && typeof record.marker === 'string' && /^[0-9a-f-]{8,64}$/.test(record.marker) && typeof record.outDir === 'string' ? record : null;
  } catch {
    return null;
  }
}

/**
 * Cleans up after every run of this repository whose process is gone: its cgroup, its process
 * groups (only those whose leader carries its marker: the pid file could be stale), any process
 * still carrying its marker, and the worktrees under its run directory. A run still going (its
 * pid alive with the same start time) is left alone. Two runs starting at once cannot both take
 * one record: a record is claimed by renaming it.
 */
export async function cleanLeftovers(root: string): Promise<Cleaned[]> {
  const dir = await recordsDir(root);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const cleaned: Cleaned[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const record = readRecord(path);
    if (record && running(record)) continue;
    const claimed = `${path}.cleaning-${process.pid}`;
    try {
      renameSync(path, claimed);
    } catch {
      continue;
    }
    if (record) {
      const pidFile = recordFiles(dir, record.marker).pids;
      cleaned.push({ record, ...(await removeLeftovers(root, record, pidFile, 1000)) });
      rmSync(pidFile, { force: true });
    }
    rmSync(claimed, { force: true });
  }
  return cleaned;
}

/**
 * Stops a run's processes (its cgroup's first: that stops everything in it at once, whatever
 * left its group; then the groups in `pidFile` whose leader carries its marker, then any process
 * still carrying the marker), then removes its worktrees under its run directory and its home for
 * head's user.
 */
export async function removeLeftovers(root: string | null, run: Leftovers, pidFile: string | null, graceMs: number): Promise<Removed> {
  let processes = 0;
  const boundary = run.boundary ? boundaryAt(run.boundary) : null;
  if (boundary) processes += await boundary.close();
  if (pidFile) processes += await killGroupsFromFile(pidFile, graceMs, run.marker);
  if (run.marker) processes += await stopMarked(run.marker, graceMs);
  // After its processes: a process of head's user could still be writing there.
  const worktrees = root && run.outDir ? await removeWorktreesUnder(root, run.outDir) : 0;
  const home = run.headHome ? { path: run.headHome, outcome: removeHeadHome(run.headHome, programPathOrNull('sudo')) } : null;
  return { processes, worktrees, home, boundary: boundary ? run.boundary : null };
}

/**
 * Where a run puts its worktrees under its run directory: trees/base, trees/head, and a third
 * arm's confirm/<scenario>/tree/reverted. Only those are removed: a record is a file in the git
 * directory, which code the run measured could have written, and a worktree of the user's own
 * under a directory it names must never be touched.
 */
export function isRunWorktree(outDir: string, path: string): boolean {
  const inside = relative(outDir, path);
  if (inside.startsWith('..') || isAbsolute(inside)) return false;
  return /^trees\/(base|head)$/.test(inside) || /^confirm\/[\w.-]+\/tree\/reverted$/.test(inside);
}

/** Removes the run's worktrees under `dir` (isRunWorktree); returns how many. */
async function removeWorktreesUnder(root: string, dir: string): Promise<number> {
  const listed = await git(['worktree', 'list', '--porcelain'], root).catch(() => '');
  const paths = listed
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((path) => isRunWorktree(dir, path));
  let removed = 0;
  for (const path of paths) {
    // twice --force: a worktree git locked mid-add is removed too
    if (await git(['worktree', 'remove', '--force', '--force', path], root).then(() => true, () => false)) removed++;
  }
  await git(['worktree', 'prune'], root).catch(() => undefined);
  return removed;
}

/** What was removed, in words: "stopped 6 processes, removed 2 worktrees, head's home /tmp/… and its cgroup …". */
export function removedText(removed: Removed): string {
  const { home } = removed;
  return [
    `stopped ${removed.processes} process${removed.processes === 1 ? '' : 'es'}`,
    `removed ${removed.worktrees} worktree${removed.worktrees === 1 ? '' : 's'}`,
    ...(home?.outcome === 'removed' ? [`head's home ${home.path}`] : []),
    ...(removed.boundary ? [`and its cgroup ${removed.boundary}`] : []),
    // Named with the fix: its files are head's user's.
    ...(home?.outcome === 'kept' ? [`but could not remove head's home ${home.path} (remove it as root: sudo rm -rf ${home.path})`] : []),
  ].join(', ');
}

/** The line that says what was cleaned up after a killed run. */
export function cleanedLine(cleaned: Cleaned): string {
  const { record } = cleaned;
  return `a run started ${record.at} (pid ${record.pid}, run directory ${record.outDir}) was killed before it could clean up; ${removedText(cleaned)}`;
}
