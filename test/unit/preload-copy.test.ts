/**
 * The preload copy (src/engine/service/preloads.ts): a service is handed the copy, never the
 * shipped file the pull request's user can write; a copy rewritten, replaced by a symlink or
 * removed stops the run with no verdict, naming the file.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PreloadChangedError } from '../../src/engine/errors.js';
import { PreloadCopy, preloadPath, sealPreloads, shippedPreloadDir } from '../../src/engine/service/preloads.js';

const parent = mkdtempSync(join(tmpdir(), 'perfgate-preload-test-'));
after(() => rmSync(parent, { recursive: true, force: true }));

describe('the preload copy', () => {
  test('holds the shipped bytes, in a directory and files only its owner can write', () => {
    const copy = PreloadCopy.make(shippedPreloadDir(), parent);
    const path = copy.path('preload.cjs');
    assert.equal(readFileSync(path, 'utf8'), readFileSync(join(shippedPreloadDir(), 'preload.cjs'), 'utf8'));
    assert.equal(statSync(copy.dir).mode & 0o777, 0o755);
    for (const file of ['preload.cjs', 'health.cjs', 'counters.cjs', 'routes.cjs', 'bench-preload.cjs']) assert.equal(statSync(join(copy.dir, file)).mode & 0o777, 0o444);
  });

  test('a service is handed the copy, not the shipped file', () => {
    assert.equal(preloadPath(), join(sealPreloads().dir, 'preload.cjs'));
    assert.notEqual(preloadPath(), join(shippedPreloadDir(), 'preload.cjs'));
  });

  test('a file rewritten after the copy was made stops the next start, naming it', () => {
    const copy = PreloadCopy.make(shippedPreloadDir(), parent);
    const health = join(copy.dir, 'health.cjs');
    chmodSync(health, 0o644);
    writeFileSync(health, `if (process.env.PERFGATE_SIDE === 'base') { const end = Date.now() + 5; while (Date.now() < end); }\n${readFileSync(health, 'utf8')}`);
    assert.throws(
      () => copy.path('preload.cjs'),
      (e: Error) => e instanceof PreloadChangedError && /\(health\.cjs\)/.test(e.message) && /no verdict/.test(e.message),
    );
  });

  test('a symlink or a missing file in its place is a change too', () => {
    const copy = PreloadCopy.make(shippedPreloadDir(), parent);
    const evil = join(parent, 'evil.cjs');
    writeFileSync(evil, readFileSync(join(copy.dir, 'bench-preload.cjs')));
    rmSync(join(copy.dir, 'bench-preload.cjs'));
    assert.throws(() => copy.verify(), /\(bench-preload\.cjs\)/);
    symlinkSync(evil, join(copy.dir, 'bench-preload.cjs'));
    assert.throws(() => copy.verify(), /\(bench-preload\.cjs\)/);
  });
});
