/**
 * The benchmark file globs, matched by tinyglobby (picomatch syntax: `*`, `**`, `?`, `[abc]`,
 * `{a,b}`, extglobs, `\` to escape, `!pattern` to exclude). What perfgate adds: directories named
 * node_modules or starting with a dot are never searched (a glob reaching into them would measure
 * dependencies or tooling, not the project), a linked file counts but a linked directory is not
 * followed (it could loop or list a file twice), and the result is relative, posix and sorted.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { globSync } from 'tinyglobby';

/** Never searched, whatever the globs say. */
const SKIPPED = ['**/node_modules/**', '**/.*/**', '**/.*'];

/** True when `path` (relative to `root`) goes through a linked directory. */
function throughLinkedDirectory(root: string, path: string, linked: Map<string, boolean>): boolean {
  const segments = path.split('/').slice(0, -1);
  let dir = '';
  for (const segment of segments) {
    dir = dir ? `${dir}/${segment}` : segment;
    let isLink = linked.get(dir);
    if (isLink === undefined) {
      isLink = lstatSync(join(root, dir), { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
      linked.set(dir, isLink);
    }
    if (isLink) return true;
  }
  return false;
}

/** The files under `root` that the globs match (a `!glob` excludes): relative posix paths, sorted, no repeats. */
export function matchFiles(root: string, globs: readonly string[]): string[] {
  const found = globSync([...globs], {
    cwd: root,
    ignore: SKIPPED,
    onlyFiles: true,
    // `bench` stays a directory name, not "everything in bench": a glob names files.
    expandDirectories: false,
    followSymbolicLinks: true,
  });
  const linked = new Map<string, boolean>();
  return [...new Set(found)].filter((path) => !throughLinkedDirectory(root, path, linked)).sort();
}

/** Why a glob cannot match: it names a directory perfgate never searches (null when it can). */
export function unsearchedReason(glob: string): string | null {
  if (glob.startsWith('!')) return null;
  const segments = glob.split('/');
  if (segments.includes('node_modules')) return 'node_modules is never searched';
  if (segments.some((s) => s.startsWith('.') && s !== '.' && s !== '..')) return 'dot-directories and dot-files are never searched';
  return null;
}
