/**
 * A minimal snapshot assertion for node:test (Node 20's runner has no snapshot API).
 * Snapshots are plain text files in test/snapshots/<name>.snap, reviewed like code.
 * A missing snapshot is written (except under CI, where it fails); UPDATE_SNAPSHOTS=1 rewrites.
 */
import { AssertionError } from 'node:assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const SNAPSHOT_DIR = new URL('../snapshots/', import.meta.url);
const CONTEXT_LINES = 2;

type Edit = { kind: ' ' | '-' | '+'; line: string };

/** Line diff from the longest common subsequence (snapshots are small; O(n·m) is fine). */
function diffLines(expected: string[], actual: string[]): Edit[] {
  const n = expected.length;
  const m = actual.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = expected[i] === actual[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && expected[i] === actual[j]) {
      edits.push({ kind: ' ', line: expected[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      edits.push({ kind: '-', line: expected[i++]! });
    } else {
      edits.push({ kind: '+', line: actual[j++]! });
    }
  }
  return edits;
}

/** Control characters (ANSI escapes) and trailing spaces made visible. */
function visible(line: string): string {
  return line
    .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/ +$/, (spaces) => '·'.repeat(spaces.length));
}

/** Changed lines with a little context; "…" where unchanged lines were left out. */
export function formatDiff(expected: string, actual: string): string {
  const edits = diffLines(expected.split('\n'), actual.split('\n'));
  const near = (index: number) =>
    edits.slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1).some((e) => e.kind !== ' ');
  const out: string[] = [];
  edits.forEach((edit, index) => {
    if (near(index)) out.push(`${edit.kind} ${visible(edit.line)}`);
    else if (out[out.length - 1] !== '…') out.push('…');
  });
  return out.join('\n');
}

/** Asserts that `actual` equals the stored snapshot `name` (letters, digits, `.`, `_`, `-`). */
export function matchSnapshot(name: string, actual: string): void {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`snapshot name "${name}" must be letters, digits, ".", "_" or "-"`);
  const file = new URL(`${name}.snap`, SNAPSHOT_DIR);
  const update = process.env['UPDATE_SNAPSHOTS'] === '1';
  if (update || !existsSync(file)) {
    if (!update && process.env['CI']) {
      throw new AssertionError({ message: `snapshot ${name} is missing: run the test with UPDATE_SNAPSHOTS=1 and commit it` });
    }
    mkdirSync(SNAPSHOT_DIR, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  const expected = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
  if (expected === actual) return;
  throw new AssertionError({
    message: `snapshot ${name} differs (- snapshot, + actual):\n${formatDiff(expected, actual)}\n\nIf the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review the diff of test/snapshots/${name}.snap.`,
  });
}
