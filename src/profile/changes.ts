/**
 * What the pull request changed, line by line, and whether a function is part of it. Pure: the
 * diff comes in as git's text (src/engine/workspace/changes.ts runs git), functions as their FunctionId.
 *
 * A culprit the PR edited is where to look; a culprit it did not edit got slower because
 * something that changed calls it more often or with larger inputs, and the place to look is
 * elsewhere. The mark says which.
 */
import type { ChangedFile, ChangeSet, FunctionId } from '../results/types.js';

/** Undoes git's C-style quoting of a path ("a\tb", "\303\251"): bytes in octal, then UTF-8. */
function unquote(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"')) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  const escapes: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path of a `+++ b/…` line; null for /dev/null (the file was deleted). */
function headPath(line: string): string | null {
  // git ends a name that holds a space with a tab, for patch(1)
  const raw = line.slice(4).replace(/\t$/, '');
  if (raw === '/dev/null') return null;
  const path = unquote(raw);
  return path.startsWith('b/') ? path.slice(2) : path;
}

/**
 * The files of head a unified diff (`git diff -M --unified=0 --src-prefix=a/ --dst-prefix=b/`)
 * adds or changes, each with its hunks as head's lines: [start, count], count 0 meaning lines
 * were removed after line `start`. A renamed file is named by its head path; a rename or mode
 * change without edits, or a binary file, has no hunks; deleted files are left out.
 */
export function parseDiff(text: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  let current: ChangedFile | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = null;
    } else if (line.startsWith('rename to ')) {
      // a pure rename has no +++ line: its head path is here
      current = { file: unquote(line.slice('rename to '.length)), hunks: [] };
      files.push(current);
    } else if (line.startsWith('+++ ') && current === null) {
      // only before a file's first hunk: an added line "++ x" reads "+++ x" inside one
      const path = headPath(line);
      if (path === null) continue;
      current = { file: path, hunks: [] };
      files.push(current);
    } else if (line.startsWith('Binary files ') && current === null) {
      const match = / and (.+) differ$/.exec(line);
      const path = match && match[1] !== '/dev/null' ? unquote(match[1]!) : null;
      if (path !== null) files.push({ file: path.startsWith('b/') ? path.slice(2) : path, hunks: [] });
    } else if (line.startsWith('@@ ') && current !== null) {
      const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (match) current.hunks.push([Number(match[1]), match[2] === undefined ? 1 : Number(match[2])]);
    }
  }
  return files;
}

/**
 * Whether lines start…end (inclusive) hold a change: an added or edited line among them, or
 * lines removed between two of them.
 */
export function touches(hunks: readonly (readonly [number, number])[], start: number, end: number): boolean {
  return hunks.some(([at, count]) => (count > 0 ? at <= end && at + count - 1 >= start : start <= at && at < end));
}

/** The changed file a function is in, or null when the PR left that file alone. */
export function changedFileOf(fn: Pick<FunctionId, 'file'>, changes: ChangeSet): ChangedFile | null {
  return changes.files.find((f) => f.file === fn.file) ?? null;
}

/**
 * Whether the PR changed an own function: its lines (its start to its end, as V8's coverage gave
 * them; its first line alone when coverage left it out) hold a change. Null when the run
 * recorded no diff (results from before it, or git could not give one).
 */
export function changedByPr(fn: Pick<FunctionId, 'file' | 'line' | 'endLine'>, changes: ChangeSet | undefined): boolean | null {
  if (changes === undefined) return null;
  const file = changedFileOf(fn, changes);
  if (file === null) return false;
  return touches(file.hunks, fn.line, Math.max(fn.line, fn.endLine ?? fn.line));
}
