/**
 * A start's output kept within its cap (src/engine/process/bounded-log.ts): the head and the
 * tail, the gap said where it is, and what a failure message reads from the log still there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { BoundedLog } from '../../src/engine/process/bounded-log.js';
import { explainLog } from '../../src/engine/process/log-excerpt.js';

const dir = mkdtempSync(join(tmpdir(), 'perfgate-bounded-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const cap = { headBytes: 4096, tailBytes: 8192 };

/** Writes `pieces` to a stream one by one, as a pipe delivers them, and waits for the log to settle. */
async function feed(log: BoundedLog, pieces: string[][]): Promise<void> {
  const streams = pieces.map(() => new PassThrough());
  for (const stream of streams) log.attach(stream);
  const longest = Math.max(...pieces.map((p) => p.length));
  for (let i = 0; i < longest; i++) {
    streams.forEach((stream, s) => {
      if (i < pieces[s]!.length) stream.write(pieces[s]![i]!);
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (const stream of streams) stream.end();
  await log.settled(1000);
}

test('a flood keeps its first and last bytes, and says how much was left out where it was', async () => {
  const path = join(dir, 'flood.log');
  const log = new BoundedLog(path, cap);
  const lines = Array.from({ length: 100_000 }, (_, i) => `request ${i} handled in 1 ms\n`);
  const chunks = Array.from({ length: 100 }, (_, c) => lines.slice(c * 1000, (c + 1) * 1000).join(''));
  await feed(log, [[...chunks, 'Error: the pool is closed\n    at query (/srv/app/db.js:4:9)\n']]);
  const printed = lines.join('').length + 'Error: the pool is closed\n    at query (/srv/app/db.js:4:9)\n'.length;
  assert.equal(log.printed, printed);
  const kept = readFileSync(path, 'utf8');
  assert.ok(statSync(path).size < cap.headBytes + cap.tailBytes + 200, `kept ${statSync(path).size} bytes of ${printed}`);
  assert.ok(kept.startsWith('request 0 handled in 1 ms\nrequest 1 handled'));
  assert.match(kept, /\n… 2\.\d\d MB left out here \(perfgate keeps the first 4 KiB and the last 8 KiB of each start's output\) …\nrequest \d+ handled in 1 ms\n/);
  assert.ok(kept.endsWith('request 99999 handled in 1 ms\nError: the pool is closed\n    at query (/srv/app/db.js:4:9)\n'));
  // the kept bytes and the left-out bytes add up to what was printed; 4 KiB ends inside a line,
  // so the gap's line starts with a newline of its own
  const marker = kept.match(/\n… .* …\n/)![0];
  assert.equal(Buffer.byteLength(kept) - Buffer.byteLength(marker) + log.dropped, printed);
});

test('output within the cap is kept whole, with no gap', async () => {
  const path = join(dir, 'quiet.log');
  const log = new BoundedLog(path, cap);
  const text = Array.from({ length: 300 }, (_, i) => `line ${i}\n`).join('');
  await feed(log, [[text.slice(0, 1000), text.slice(1000)]]);
  assert.equal(readFileSync(path, 'utf8'), text);
  assert.equal(log.dropped, 0);
});

test("stdout's and stderr's lines printed at once are not cut into each other", async () => {
  const path = join(dir, 'both.log');
  const log = new BoundedLog(path, { headBytes: 1 << 20, tailBytes: 1 << 20 });
  const out = Array.from({ length: 50 }, (_, i) => `out line ${i} with some text\n`).join('');
  const err = Array.from({ length: 50 }, (_, i) => `err line ${i} with other text\n`).join('');
  // pieces cut mid-line on both streams
  const pieces = (text: string) => Array.from({ length: Math.ceil(text.length / 37) }, (_, i) => text.slice(i * 37, (i + 1) * 37));
  await feed(log, [pieces(out), pieces(err)]);
  const kept = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  assert.equal(kept.length, 100);
  for (const line of kept) assert.match(line, /^(out line \d+ with some text|err line \d+ with other text)$/);
});

test("a start's failure is explained from its own output: an earlier start's error is not quoted, and the line counts the whole log", () => {
  const earlier = '$ node server.js   (head, port 4000)\nError: a handled error of start 0\n    at old (/srv/app/a.js:1:1)\n';
  const start = '$ node server.js   (head, port 4001)\nlistening\nError: Connection terminated unexpectedly\n    at connect (/srv/app/db.js:9:3)\n';
  const dump = Array.from({ length: 40 }, (_, i) => `  _connectionState${i}: { pending: ${i} }\n`).join('');
  const path = join(dir, 'starts.log');
  writeFileSync(path, earlier + start + dump);
  const explained = explainLog(path, 20, Buffer.byteLength(earlier));
  assert.match(explained, /--- the first error in the log, line 6 ---\nError: Connection terminated unexpectedly\n {4}at connect/);
  assert.doesNotMatch(explained, /start 0/);
});
