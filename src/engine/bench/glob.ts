/**
 * The benchmark file globs: a small matcher, because node:fs globSync is not in Node 20 and
 * perfgate adds no dependency for this. Supported: `*` and `?` within a path segment, `**` as a
 * whole segment (any number of directories), `[abc]` / `[!abc]`, and `{a,b}` (nestable).
 * Paths are relative and use `/`; directories named node_modules or starting with a dot are
 * never searched (a glob reaching into them would measure dependencies, not the project).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const GLOB_CHARS = /[*?[{]/;
const SKIPPED_DIRS = /^(?:node_modules|\..*)$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** True when every `{` has its `}` (otherwise braces are taken literally, as shells do). */
function bracesBalanced(glob: string): boolean {
  let depth = 0;
  for (const c of glob) {
    if (c === '{') depth++;
    else if (c === '}' && --depth < 0) return false;
  }
  return depth === 0;
}

/** A glob as an anchored regular expression over relative posix paths. */
export function globToRegExp(glob: string): RegExp {
  const braces = bracesBalanced(glob);
  let depth = 0;
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const segmentStart = i === 0 || glob[i - 1] === '/';
      if (segmentStart && glob[i + 2] === '/') {
        out += '(?:[^/]+/)*';
        i += 3;
      } else if (segmentStart && i + 2 === glob.length) {
        out += '.*';
        i += 2;
      } else {
        out += '[^/]*';
        i += 2;
      }
      continue;
    }
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[' && glob.indexOf(']', i + 2) > 0) {
      const close = glob.indexOf(']', i + 2);
      const body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
      out += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
      i = close + 1;
      continue;
    } else if (c === '{' && braces) {
      depth++;
      out += '(?:';
    } else if (c === ',' && depth > 0) out += '|';
    else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
    } else out += escapeRegExp(c);
    i++;
  }
  return new RegExp(`^${out}$`);
}

/** The leading directories of a glob that hold no wildcard: where the search can start. */
function staticPrefix(glob: string): string {
  const segments = glob.split('/');
  const fixed: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (GLOB_CHARS.test(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/');
}

/** Every file below `dir` (relative to `root`), skipping node_modules and dot-entries. */
function walk(root: string, dir: string, out: string[]): void {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (SKIPPED_DIRS.test(entry.name)) continue;
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      // A linked file counts; a linked directory is not followed (it could loop).
      try {
        isFile = statSync(join(root, relative)).isFile();
      } catch {
        isFile = false;
      }
      isDirectory = false;
    }
    if (isDirectory) walk(root, relative, out);
    else if (isFile) out.push(relative);
  }
}

/** The files under `root` that any of the globs match: relative posix paths, sorted, no repeats. */
export function matchFiles(root: string, globs: readonly string[]): string[] {
  const found = new Set<string>();
  for (const glob of globs) {
    const pattern = globToRegExp(glob);
    const files: string[] = [];
    walk(root, staticPrefix(glob), files);
    for (const file of files) if (pattern.test(file)) found.add(file);
  }
  return [...found].sort();
}
