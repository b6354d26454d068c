import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults, writeResults } from '../../src/results/io.js';
import { resultsFromPairs } from '../helpers/results.js';
import { mountOf, WriteError, writeErrorOf, writing } from '../../src/results/write-error.js';

const refused = (code: string, syscall = 'open') => Object.assign(new Error(`${code}: refused`), { code, syscall });

test('a refused write names the path, what was written, the cause and the fix', () => {
  const cases: [string, RegExp][] = [
    ['EACCES', /^Cannot write the run directory at \/srv\/run: permission denied for this user\. Choose a place you can write with --out\.$/],
    ['EPERM', /permission denied for this user\. Choose a place you can write with --out\.$/],
    ['EROFS', /the filesystem is read-only\. Choose a place you can write with --out\.$/],
    ['ENOSPC', /no space left on the filesystem mounted at \/\S*\. Free space on \/\S*, or choose a place on another filesystem with --out\.$/],
    ['EISDIR', /a directory is in the way where a file is expected/],
    ['ENOTDIR', /a part of the path is a file where a directory is expected/],
  ];
  for (const [code, message] of cases) {
    const error = writeErrorOf(refused(code), '/srv/run', 'the run directory', 'with --out');
    assert.ok(error instanceof WriteError, code);
    assert.match(error.message, message);
    assert.equal(error.code, code);
  }
  assert.match(writeErrorOf(refused('EEXIST', 'mkdir'), '/srv/run', 'the run directory')!.message, /a file where a directory is expected/, 'mkdir -p over a file');
});

test('errors that are not the place\'s stay as they are', () => {
  assert.equal(writeErrorOf(new TypeError('x is undefined'), '/srv/run', 'results.json'), null);
  assert.equal(writeErrorOf(refused('EEXIST', 'open'), '/srv/run', 'results.json'), null);
  assert.equal(writeErrorOf(refused('ENOENT'), '/srv/run', 'results.json'), null, 'a missing file is not a write refused, unless a write said so');
  assert.throws(() => writing('/srv/x', 'results.json', () => { throw new TypeError('bug'); }), TypeError);
});

test('writing: a real write over a file where a directory is expected, and the shell adding its flag', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'perfgate-write-')), 'file');
  writeFileSync(file, '');
  const path = join(file, 'results.json');
  const error = (() => {
    try {
      writing(path, 'results.json', () => writeFileSync(path, '{}'));
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof WriteError);
  assert.match(error.message, /^Cannot write results\.json at .*\/file\/results\.json: a part of the path is a file where a directory is expected\. Choose a place you can write\.$/);
  assert.match(error.withChoice('with --out').message, /Choose a place you can write with --out\.$/);
  assert.equal(error.withChoice('with --out').withChoice('with --json').choose, 'with --out', 'the first place chosen stays');
});

test('a full disk names the mount point to free space on', () => {
  assert.equal(mountOf('/proc/self/not-yet/results.json'), '/proc', 'a path not made yet is on its nearest existing directory\'s filesystem');
  assert.equal(mountOf('/'), '/');
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-mount-'));
  assert.ok(dir.startsWith(mountOf(dir)), 'the mount point is an ancestor');
  assert.match(writeErrorOf(refused('ENOSPC'), '/proc/self/run/results.json', 'results.json')!.message, /no space left on the filesystem mounted at \/proc\. Free space on \/proc, or/);
});

/** A 64 KiB tmpfs, or null where this user may not mount one. */
function smallFilesystem(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    return null;
  }
}

const small = process.getuid?.() === 0 ? smallFilesystem() : null;

test('results.json on a filesystem that fills: the mount named, the last whole write kept, no half copy left', { skip: small === null && 'needs root to mount a tmpfs' }, (t) => {
  const dir = small!;
  t.after(() => execFileSync('umount', [dir]));
  const path = join(dir, 'results.json');
  writeResults(path, resultsFromPairs([[1000, 1001]]));
  const big = resultsFromPairs(Array.from({ length: 3000 }, (): [number, number] => [1000, 1001]));
  assert.throws(
    () => writeResults(path, big),
    (e: unknown) => e instanceof WriteError && e.message === `Cannot write results.json at ${path}: no space left on the filesystem mounted at ${dir}. Free space on ${dir}, or choose a place on another filesystem.`,
  );
  assert.deepEqual(readdirSync(dir), ['results.json'], 'the temporary copy is removed');
  assert.equal(readResults(path).scenarios[0]!.pairs.length, 1, 'the last whole write is kept');
});
