/**
 * The action's own files, held in memory from the start of the main step and put back after the
 * pull request's code is stopped. The runner lays an action out under
 * `_work/_actions/<owner>/<repo>/<ref>/`, owned by the step's user, the user the PR's install and
 * services run as: without this, they could rewrite dist/post.js, which the runner runs after
 * the job with the job's tokens in its environment, or the preloads (engine/service/preloads.ts
 * serves a private copy of those to the run itself).
 *
 * What is held: action.yml and package.json at the action's root (the runner reads the first, and
 * Node takes dist/'s module type from the second) and every file in dist/. A file planted in
 * dist/ (a package.json that changes the module type, say) is removed.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunWarning } from '../results/types.js';

interface HeldFile {
  bytes: Buffer;
  sha256: string;
  mode: number;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A file's sha256 when it is a regular file (a symlink in its place is a change), else null. */
function digestOf(path: string): string | null {
  try {
    return lstatSync(path).isFile() ? sha256(readFileSync(path)) : null;
  } catch {
    return null;
  }
}

export class OwnFiles {
  private constructor(
    /** The action's root: the directory holding action.yml and dist/. */
    readonly root: string,
    private readonly held: ReadonlyMap<string, HeldFile>,
  ) {}

  /**
   * The action's files as they are now, or null when this code does not run from a bundled
   * action (from source, in the tests): there is nothing the runner will run again.
   * `bundleDir` is the directory of the running bundle (dist/).
   */
  static take(bundleDir = dirname(fileURLToPath(import.meta.url))): OwnFiles | null {
    if (!existsSync(join(bundleDir, 'post.js')) || !existsSync(join(bundleDir, 'index.js'))) return null;
    const root = dirname(bundleDir);
    const paths = [join(root, 'action.yml'), join(root, 'package.json'), ...readdirSync(bundleDir).map((name) => join(bundleDir, name))];
    const held = new Map<string, HeldFile>();
    for (const path of paths) {
      if (!existsSync(path) || !lstatSync(path).isFile()) continue;
      const bytes = readFileSync(path);
      held.set(relative(root, path), { bytes, sha256: sha256(bytes), mode: statSync(path).mode & 0o777 });
    }
    return new OwnFiles(root, held);
  }

  /**
   * Puts back every held file that changed or went, and removes what was planted in dist/.
   * Returns the paths (relative to the action's root) found changed, planted or gone.
   */
  restore(): string[] {
    const dist = join(this.root, 'dist');
    // A dist/ that is a symlink (to a directory of the PR's) is replaced whole.
    const distIsDir = lstatSync(dist, { throwIfNoEntry: false })?.isDirectory() === true;
    const planted = distIsDir ? readdirSync(dist).filter((name) => !this.held.has(join('dist', name))) : [];
    const changed = [...this.held].filter(([path, file]) => (!distIsDir && path.startsWith('dist')) || digestOf(join(this.root, path)) !== file.sha256);
    // Nothing is touched when nothing changed: the directory may not be this user's to chmod.
    if (planted.length === 0 && changed.length === 0) return [];
    if (distIsDir) {
      // The PR's user owns the directory and may have taken its write bit away.
      chmodSync(dist, 0o755);
    } else {
      rmSync(dist, { recursive: true, force: true });
      mkdirSync(dist);
    }
    for (const name of planted) rmSync(join(dist, name), { recursive: true, force: true });
    for (const [path, file] of changed) {
      const full = join(this.root, path);
      // Removed first: writing through a planted symlink would write its target.
      rmSync(full, { recursive: true, force: true });
      writeFileSync(full, file.bytes);
      chmodSync(full, file.mode);
    }
    return [...planted.map((name) => join('dist', name)), ...changed.map(([path]) => path)];
  }
}

/**
 * Restores `own` (when the action runs bundled) and says what it found, for the log and
 * results.json; null when nothing had changed. A restore that fails is said as loudly: the post
 * step would run what the pull request's code left.
 */
export function restoreOwnFiles(own: OwnFiles | null): RunWarning | null {
  if (own === null) return null;
  let found: string[];
  try {
    found = own.restore();
  } catch (e) {
    return {
      code: 'own-files-changed',
      message:
        `perfgate could not check or restore its own files in ${own.root} (${(e as Error).message}): the post step runs what is there now, ` +
        "which the pull request's code may have rewritten. Do not trust this job's later steps.",
    };
  }
  if (found.length === 0) return null;
  return {
    code: 'own-files-changed',
    message:
      `A process of this run changed perfgate's own files in ${own.root} (${found.join(', ')}); perfgate put back the bytes it read ` +
      "when the step started, before the post step could run them. The pull request's code (its install, build, setup or services) is the likely writer.",
  };
}
