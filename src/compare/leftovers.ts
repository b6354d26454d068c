/**
 * What a run leaves when it is killed before its `finally` (SIGKILL, the OOM killer, a cancelled
 * CI job's hard kill): its services in their own process groups, its worktrees registered in the
 * repository, its cgroup. Each run in a repository keeps a record of them in the repository's git
 * directory while it runs; the next run there, whatever its --out, finds a record whose process
 * is gone and cleans up after it. The git directory, not the run directory or TMPDIR: it is the
 * one place every run of the repository shares, and it holds the worktrees' own records already.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { boundaryAt } from '../engine/process/boundary.js';
import { killGroupsFromFile, stopMarked } from '../engine/process/processes.js';
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
  /** When it started, ISO 8601, for the line that names it. */
  at: string;
}

/** What was cleaned up after one killed run. */
export interface Cleaned {
  record: RunRecord;
  processes: number;
  worktrees: number;
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
export function writeRecord(dir: string, record: Omit<RunRecord, 'pid' | 'startTicks' | 'at'>): { record: string; pids: string } {
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
    if (record) cleaned.push(await cleanAfter(root, record, recordFiles(dir, record.marker).pids));
    rmSync(claimed, { force: true });
  }
  return cleaned;
}

async function cleanAfter(root: string, record: RunRecord, pidFile: string): Promise<Cleaned> {
  let processes = 0;
  const boundary = record.boundary ? boundaryAt(record.boundary) : null;
  if (boundary) processes += await boundary.close();
  processes += await killGroupsFromFile(pidFile, 1000, record.marker);
  processes += await stopMarked(record.marker, 1000);
  rmSync(pidFile, { force: true });
  return { record, processes, worktrees: await removeWorktreesUnder(root, record.outDir) };
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

/** The line that says what was cleaned up after a killed run. */
export function cleanedLine(cleaned: Cleaned): string {
  const { record } = cleaned;
  const what = [
    `stopped ${cleaned.processes} process${cleaned.processes === 1 ? '' : 'es'}`,
    `removed ${cleaned.worktrees} worktree${cleaned.worktrees === 1 ? '' : 's'}`,
    ...(record.boundary ? [`and its cgroup ${record.boundary}`] : []),
  ];
  return `a run started ${record.at} (pid ${record.pid}, run directory ${record.outDir}) was killed before it could clean up; ${what.join(', ')}`;
}
