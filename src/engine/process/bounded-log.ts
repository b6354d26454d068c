/**
 * A start's output kept within a cap: the first bytes and the last, with the bytes between them
 * counted and left out. A service that logs every request at debug level prints hundreds of
 * megabytes per start under load; kept whole, a run of a few dozen starts fills the disk its
 * results are on. What perfgate reads from a log sits at its two ends: a failed start's first
 * error is near its beginning, a crash's cause near its end.
 *
 * The process writes into pipes this process reads (one for stdout, one for stderr), not into the
 * file: the head goes to the file at once, the tail is held here and written when the output ends
 * (or when a reader needs it: settled). Each pipe's bytes are passed on in whole lines, so a line
 * of stdout and one of stderr printed at the same time are not cut into each other.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { formatBytes } from '../../stats/format.js';

export interface LogCap {
  /** Bytes kept from the start of the output. */
  headBytes: number;
  /** Bytes kept from its end. */
  tailBytes: number;
}

/**
 * Per start of a service and per service.setup: 64 KiB from the start hold a boot's output and
 * its failure (a stack, a framework's banner, a dependency's warning) many times over; 192 KiB
 * from the end hold a crash's error with a long stack and a driver's dump of state after it (the
 * first error is looked for there too: log-excerpt.ts). 256 KiB per start keep a run of a hundred
 * starts of a side under 26 MB of logs whatever the service prints.
 */
export const START_LOG_CAP: LogCap = { headBytes: 64 * 1024, tailBytes: 192 * 1024 };

/** A line longer than this is passed on unfinished: a pipe's bytes are never held without bound. */
const LONGEST_HELD_LINE = 16 * 1024;
const NEWLINE = 0x0a;

export class BoundedLog {
  /** Every byte the process printed. */
  printed = 0;
  /** The bytes left out of the file. */
  dropped = 0;
  private fd: number | null;
  private headWritten = 0;
  private lastWritten = NEWLINE;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private droppedUnsaid = 0;
  private open = 0;
  private ended: Promise<void> = Promise.resolve();
  private endAll: (() => void) | null = null;
  /** Set once a reader waited: output that ends later is written as it ends. */
  private settling = false;

  constructor(
    readonly path: string,
    readonly cap: LogCap,
  ) {
    this.fd = openSync(path, 'a');
  }

  /** Reads `stream` to its end into the log, line by line. */
  attach(stream: Readable): void {
    if (this.open++ === 0) this.ended = new Promise((resolve) => (this.endAll = resolve));
    let pending: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      const cut = data.lastIndexOf(NEWLINE) + 1;
      const upTo = cut === 0 && data.length >= LONGEST_HELD_LINE ? data.length : cut;
      pending = data.subarray(upTo);
      if (upTo > 0) this.take(data.subarray(0, upTo));
    });
    let ended = false;
    // 'error' and then 'end' can both come: the stream ends once.
    const end = () => {
      if (ended) return;
      ended = true;
      stream.removeAllListeners('data');
      if (pending.length > 0) this.take(pending);
      pending = Buffer.alloc(0);
      if (--this.open > 0) return;
      this.endAll?.();
      if (this.settling) this.finish();
    };
    stream.once('end', end);
    stream.once('error', end);
  }

  /**
   * Waits for the process's output to end (at most `timeoutMs`: a process it started may hold the
   * pipes open after it exits), then writes what is held, so the file can be read.
   */
  async settled(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    this.settling = true;
    if (this.open === 0) this.finish();
    else this.flush();
  }

  private finish(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private take(bytes: Buffer): void {
    this.printed += bytes.length;
    let rest = bytes;
    if (this.headWritten < this.cap.headBytes) {
      const head = rest.subarray(0, this.cap.headBytes - this.headWritten);
      this.write(head);
      this.headWritten += head.length;
      rest = rest.subarray(head.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailSize += rest.length;
    while (this.tail.length > 1 && this.tailSize - this.tail[0]!.length >= this.cap.tailBytes) this.leaveOut(this.tail.shift()!.length);
  }

  private leaveOut(bytes: number): void {
    this.tailSize -= bytes;
    this.dropped += bytes;
    this.droppedUnsaid += bytes;
  }

  /** Writes the held tail, after a line that says how much was left out before it, if any was. */
  private flush(): void {
    const over = this.tailSize - this.cap.tailBytes;
    if (over > 0) {
      this.tail[0] = this.tail[0]!.subarray(over);
      this.leaveOut(over);
    }
    if (this.droppedUnsaid > 0 && this.tail.length > 0) {
      // The tail starts on a whole line where one begins in its first piece.
      const first = this.tail[0]!;
      const lineStart = first.indexOf(NEWLINE) + 1;
      if (lineStart > 0 && lineStart < first.length) {
        this.tail[0] = first.subarray(lineStart);
        this.leaveOut(lineStart);
      }
    }
    if (this.droppedUnsaid > 0) {
      const cap = `the first ${this.cap.headBytes / 1024} KiB and the last ${this.cap.tailBytes / 1024} KiB`;
      this.write(Buffer.from(`${this.lastWritten === NEWLINE ? '' : '\n'}… ${formatBytes(this.droppedUnsaid)} left out here (perfgate keeps ${cap} of each start's output) …\n`));
      this.droppedUnsaid = 0;
    }
    for (const piece of this.tail) this.write(piece);
    this.tail = [];
    this.tailSize = 0;
  }

  private write(bytes: Buffer): void {
    if (this.fd === null || bytes.length === 0) return;
    try {
      writeSync(this.fd, bytes);
      this.lastWritten = bytes[bytes.length - 1]!;
    } catch {
      // A full disk: the run's own next write says so (results/io.ts); the service's output is only lost, as when it wrote the file itself.
      this.dropped += bytes.length;
    }
  }
}
