/**
 * The preloads perfgate `--require`s into the user's processes (the service's port preload with
 * the health.cjs and routes.cjs it loads, and the micro-benchmark capture), served from a private
 * copy taken before any of the pull request's code runs.
 *
 * The shipped files lie in the action's directory, which the runner gives to the step's user:
 * the PR's install could rewrite them there and slow base's starts only (PERFGATE_SIDE=base).
 * The copy lives in a directory of its own (0755, files 0444: another user can read, not write),
 * and every start checks it against the sha256 taken when it was made; a copy that changed stops
 * the run with no verdict. Code running as perfgate's own user could still chmod and rewrite the
 * copy between two checks: the check before each start and the one after the last block
 * (verifyPreloads) catch any change that lasts.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PreloadChangedError } from '../errors.js';

export type PreloadFile = 'preload.cjs' | 'bench-preload.cjs';

/** Every file of the preloads: preload.cjs requires health.cjs (which requires counters.cjs) and routes.cjs from its own directory. */
const FILES = ['preload.cjs', 'health.cjs', 'counters.cjs', 'routes.cjs', 'bench-preload.cjs'] as const;

/** Where the shipped preloads are: next to this module in dist/, in src/preload/ when run from source. */
export function shippedPreloadDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [here, join(here, '..', '..', 'preload')];
  const found = candidates.find((dir) => existsSync(join(dir, 'preload.cjs')));
  if (!found) throw new Error(`perfgate is incomplete: preload.cjs not found (looked in ${candidates.join(', ')})`);
  return found;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The private copy: its directory and each file's digest, taken from the shipped bytes. */
export class PreloadCopy {
  private constructor(
    readonly dir: string,
    private readonly digests: ReadonlyMap<string, string>,
  ) {}

  /** Reads the shipped preloads once and writes them into a new directory of their own. */
  static make(from = shippedPreloadDir(), parent = tmpdir()): PreloadCopy {
    const dir = mkdtempSync(join(parent, 'perfgate-preload-'));
    const digests = new Map<string, string>();
    for (const file of FILES) {
      const bytes = readFileSync(join(from, file));
      digests.set(file, sha256(bytes));
      writeFileSync(join(dir, file), bytes, { mode: 0o444 });
    }
    // Readable by a service running as another user; writable by none but perfgate's.
    chmodSync(dir, 0o755);
    return new PreloadCopy(dir, digests);
  }

  /** The path of `file` in the copy, once every file of the copy is checked. */
  path(file: PreloadFile): string {
    this.verify();
    return join(this.dir, file);
  }

  /** Throws PreloadChangedError when a file of the copy is not the regular file with the bytes taken at the start. */
  verify(): void {
    const changed = FILES.filter((file) => !this.intact(file));
    if (changed.length === 0) return;
    throw new PreloadChangedError(
      `perfgate's preload copy in ${this.dir} changed after it was made (${changed.join(', ')}): a process of this run rewrote the code ` +
        'perfgate loads into every service, so no measurement of this run can be trusted, and there is no verdict. ' +
        "The pull request's code (its install, build, setup or service) is the likely writer; the service logs show what ran.",
    );
  }

  private intact(file: string): boolean {
    const path = join(this.dir, file);
    try {
      // A symlink planted in its place would be followed by readFileSync.
      if (!lstatSync(path).isFile()) return false;
      return sha256(readFileSync(path)) === this.digests.get(file);
    } catch {
      return false;
    }
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let copy: PreloadCopy | null = null;

/**
 * The process's copy, made on the first call. A run calls it before any of the pull request's
 * code runs (engine/run.ts), so the bytes copied are the shipped ones; the copy goes when the
 * process exits.
 */
export function sealPreloads(): PreloadCopy {
  if (copy === null) {
    const made = PreloadCopy.make();
    copy = made;
    process.once('exit', () => made.remove());
  }
  return copy;
}

/** The checked path of a preload perfgate injects into the user's processes. */
export function preloadPath(file: PreloadFile = 'preload.cjs'): string {
  return sealPreloads().path(file);
}
