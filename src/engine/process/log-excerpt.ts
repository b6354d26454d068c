/**
 * What a log shows of why a program died: its last lines, and, when the first error it printed
 * is further up, that error with its stack. A dying service's last lines are often not the cause:
 * a database driver dumps the state of a failed connection after the error that named it, a
 * framework logs its shutdown after the exception that started it. The first error is what a
 * person reading the whole log would look for, so it is found the way they would: the first line
 * that reads as an error in the usual runtimes' formats.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

/** How much of a log is read at each end: logs can be far larger than a message needs. */
const HEAD_BYTES = 1024 * 1024;
const TAIL_BYTES = 256 * 1024;
/** Stack lines kept after the first error line. */
const STACK_LINES = 12;

/**
 * Lines that start an error report: Node's and V8's (`TypeError: …`, `Error [ERR_…]: …`,
 * `Uncaught …`, an error whose name is `error`), an unhandled rejection, Python's traceback, Go's panic, Java's exception, and a
 * process manager's or server's fatal line.
 */
const ERROR_START = [
  /^\s*(?:Uncaught\s+)?(?:[A-Z][\w.]*)?(?:Error|Exception)(?: \[[A-Z_\d]+\])?: \S/,
  // node-postgres names its server errors `error` (DatabaseError's name): a connection the server ended
  /^error: \S/,
  /^\s*\[?UnhandledPromiseRejection/,
  /^Traceback \(most recent call last\):/,
  /^panic: /,
  /^Exception in thread /,
  /^\s*(?:FATAL|Fatal error|fatal error)\b/,
];

/** A stack frame: V8's and Java's `at …`, Python's `File …`, Java's `... 3 more` and `Caused by:`. */
const FRAME = /^(?:\s+(?:at\s|File "|\.\.\. \d+ more)|Caused by: )/;
/** Python shows each frame's source line indented below it. */
const PYTHON_FRAME = /^\s+File "/;

/** Node prints the throwing source line and a caret above an uncaught error: `file.js:12`, the code, `^`. */
const SOURCE_PLACE = /^\S.*:\d+$/;

/** Up to `length` bytes of a file from `position`, as text; '' when it cannot be read. */
export function readFileRange(path: string, position: number, length: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const buffer = Buffer.alloc(Math.max(0, length));
    const read = readSync(fd, buffer, 0, buffer.length, position);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The first error's lines (with Node's source place above it when there is one), and its line number, or null. */
export function firstError(lines: readonly string[]): { line: number; text: string } | null {
  const at = lines.findIndex((line) => ERROR_START.some((pattern) => pattern.test(line)));
  if (at < 0) return null;
  let start = at;
  for (let i = at - 1; i >= Math.max(0, at - 5); i--) {
    if (SOURCE_PLACE.test(lines[i]!)) {
      start = i;
      break;
    }
  }
  let end = at + 1;
  const continues = (i: number) => FRAME.test(lines[i]!) || (PYTHON_FRAME.test(lines[i - 1]!) && /^\s+\S/.test(lines[i]!));
  while (end < lines.length && end - at <= STACK_LINES && continues(end)) end++;
  // A traceback ends with the exception it reports (Python's `KeyError: 1`).
  if (end < lines.length && end - at <= STACK_LINES && end > at + 1 && ERROR_START.some((pattern) => pattern.test(lines[end]!))) end++;
  return { line: start + 1, text: lines.slice(start, end).join('\n').replace(/\s+$/, '') };
}

/**
 * A log's last `lines` lines, followed by its first error when that is above them. `from`: where
 * the part to explain begins (one start's output in a log every start of a side appends to), so
 * that an earlier start's errors are not taken for this one's. Empty when the log cannot be read.
 */
export function explainLog(path: string, lines = 20, from = 0): string {
  const size = fileSize(path);
  const start = Math.min(from, size);
  const whole = size - start <= HEAD_BYTES;
  const headLines = readFileRange(path, start, Math.min(size - start, HEAD_BYTES)).replace(/\s+$/, '').split('\n');
  // Read from the middle, the tail's first line is cut: it is left out.
  const tailLines = whole ? headLines : readFileRange(path, size - TAIL_BYTES, TAIL_BYTES).replace(/\s+$/, '').split('\n').slice(1);
  const tail = tailLines.slice(-lines);
  const error = firstError(headLines);
  const tailStart = whole ? headLines.length - tail.length : Number.POSITIVE_INFINITY;
  // Shown already when it starts among the last lines.
  if (!error || error.line - 1 >= tailStart) return tail.join('\n');
  return `${tail.join('\n')}\n--- the first error in the log, line ${error.line + linesBefore(path, start)} ---\n${error.text}`;
}

/** Size of a file, 0 when it does not exist or cannot be read. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** How many lines a file has before byte `offset`. */
function linesBefore(path: string, offset: number): number {
  let lines = 0;
  for (let at = 0; at < offset; at += HEAD_BYTES) {
    const text = readFileRange(path, at, Math.min(HEAD_BYTES, offset - at));
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  }
  return lines;
}

/** The first error in a log file (its first HEAD_BYTES), or null when there is none or it cannot be read. */
export function firstErrorInFile(path: string): { line: number; text: string } | null {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  return firstError(readFileRange(path, 0, Math.min(size, HEAD_BYTES)).replace(/\s+$/, '').split('\n'));
}

/** A stack frame's or Node's source line's place: `(/srv/app/server.js:12:11)`, `at /srv/app/server.js:12:11`, `/srv/app/server.js:12`. */
const PLACE = /(?:\(|at |^)((?:file:\/\/)?\/[^\s():]+):(\d+)(?::\d+)?\)?\s*$/;

/**
 * Where in the project's own code an error was thrown: the first place in its lines inside
 * `root` and outside node_modules, as `server.js:12` (relative to root), or null. A framework's
 * frames come first in many stacks; the reader wants the line of theirs that threw.
 */
export function ownPlace(text: string, root: string): string | null {
  for (const line of text.split('\n')) {
    const match = PLACE.exec(line.trim());
    if (!match) continue;
    const file = relative(root, match[1]!.replace(/^file:\/\//, ''));
    if (file.startsWith('..') || isAbsolute(file) || file.split('/').includes('node_modules')) continue;
    return `${file}:${match[2]}`;
  }
  return null;
}
