import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * A write the machine refused: a place the user chose (or TMPDIR) that cannot take the file.
 * The user fixes these by choosing another place or freeing space, so they are reported as
 * errors of use, naming the path and what perfgate was writing, never as perfgate's crash.
 */
export class WriteError extends Error {
  constructor(
    readonly path: string,
    /** What perfgate was writing there, in the user's words: "the run directory", "the --json copy of results.json". */
    readonly purpose: string,
    readonly code: string,
    /** How the user picks another place: "with --out". Empty when the writer does not know the flag. */
    readonly choose = '',
  ) {
    super(`Cannot write ${purpose} at ${path}: ${reasonOf(code, path)}. ${fixOf(code, path, choose)}`);
    this.name = 'WriteError';
  }

  /** The same error with the way to choose another place that only the shell knows. */
  withChoice(choose: string): WriteError {
    return this.choose ? this : new WriteError(this.path, this.purpose, this.code, choose);
  }
}

/** The codes that mean the place is at fault, not perfgate. */
const PLACE_CODES = ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EISDIR', 'ENOTDIR', 'ENOENT'] as const;

function reasonOf(code: string, path: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied for this user';
    case 'EROFS':
      return 'the filesystem is read-only';
    case 'ENOSPC':
      return `no space left on the filesystem mounted at ${mountOf(path)}`;
    case 'EDQUOT':
      return `the disk quota on the filesystem mounted at ${mountOf(path)} is used up`;
    case 'EISDIR':
      return 'a directory is in the way where a file is expected';
    case 'ENOENT':
      return 'the directory takes no new files (a virtual filesystem, or it was removed while perfgate wrote)';
    default:
      return 'a part of the path is a file where a directory is expected';
  }
}

function fixOf(code: string, path: string, choose: string): string {
  const elsewhere = choose ? ` ${choose}` : '';
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return `Free space on ${mountOf(path)}, or choose a place on another filesystem${elsewhere}.`;
  }
  return `Choose a place you can write${elsewhere}.`;
}

/** The mount point of the filesystem that holds `path` (or would, once made): the place to free space on. */
export function mountOf(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    const { dev } = statSync(dir);
    while (dirname(dir) !== dir && statSync(dirname(dir)).dev === dev) dir = dirname(dir);
  } catch {
    // An ancestor this user cannot stat: the nearest directory known to be on that filesystem is named.
  }
  return dir;
}

/** The error as a WriteError when its `code` says the place refused the write; null for any other error. */
export function writeErrorOf(e: unknown, path: string, purpose: string, choose = ''): WriteError | null {
  if (e instanceof WriteError) return e;
  const code = placeCode(e as NodeJS.ErrnoException | null);
  return code && code !== 'ENOENT' ? new WriteError(path, purpose, code, choose) : null;
}

function placeCode(error: NodeJS.ErrnoException | null): string | null {
  // mkdir -p over a file says EEXIST: a file stands where a directory of the path should be.
  const code = error?.code === 'EEXIST' && error.syscall === 'mkdir' ? 'ENOTDIR' : error?.code;
  return typeof code === 'string' && (PLACE_CODES as readonly string[]).includes(code) ? code : null;
}

/** Runs a write of `purpose` at `path`; a refusal of the place is thrown as a WriteError naming both. */
export function writing<T>(path: string, purpose: string, write: () => T, choose = ''): T {
  try {
    return write();
  } catch (e) {
    if (e instanceof WriteError) throw e;
    // A missing directory right after mkdir -p is the place's doing too; only a known write can say so.
    const code = placeCode(e as NodeJS.ErrnoException);
    throw code ? new WriteError(path, purpose, code, choose) : e;
  }
}
