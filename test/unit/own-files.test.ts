/**
 * The action's own files (src/action/own-files.ts), laid out as the runner lays an action out and
 * rewritten as a pull request's install can: the post step's bundle dumping the environment, a
 * preload slowing base, a symlink, a planted package.json, a directory made read-only. Each is
 * found, named and put back; an untouched action reports nothing.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { OwnFiles, restoreOwnFiles } from '../../src/action/own-files.js';

const scratch = mkdtempSync(join(tmpdir(), 'perfgate-own-files-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  'action.yml': "runs:\n  using: node20\n  main: dist/index.js\n  post: dist/post.js\n",
  'package.json': '{"type":"module"}\n',
  'dist/index.js': 'export const main = 1;\n',
  'dist/post.js': 'export const post = 1;\n',
  'dist/preload.cjs': 'module.exports = {};\n',
};

/** `_work/_actions/<owner>/<repo>/<ref>/`, as the runner lays it out. */
function laidOut(name: string): string {
  const root = join(scratch, name, '_work/_actions/owner/perfgate/v1');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const [path, text] of Object.entries(FILES)) writeFileSync(join(root, path), text);
  chmodSync(join(root, 'dist/index.js'), 0o755);
  return root;
}

describe("the action's own files", () => {
  test('every way a PR rewrites them is found, named and put back', () => {
    const root = laidOut('hostile');
    const own = OwnFiles.take(join(root, 'dist'));
    assert.ok(own);
    writeFileSync(join(root, 'dist/post.js'), `require('fs').writeFileSync('/tmp/env', JSON.stringify(process.env));\n${FILES['dist/post.js']}`);
    rmSync(join(root, 'dist/preload.cjs'));
    writeFileSync(join(scratch, 'slow.cjs'), "if (process.env.PERFGATE_SIDE === 'base') for (let i = 0; i < 1e9; i++);\n");
    symlinkSync(join(scratch, 'slow.cjs'), join(root, 'dist/preload.cjs'));
    writeFileSync(join(root, 'dist/package.json'), '{"type":"commonjs"}\n');
    rmSync(join(root, 'action.yml'));
    chmodSync(join(root, 'dist'), 0o555);

    const warning = restoreOwnFiles(own);
    assert.equal(warning?.code, 'own-files-changed');
    for (const path of ['dist/post.js', 'dist/preload.cjs', 'dist/package.json', 'action.yml']) assert.match(warning.message, new RegExp(path.replace('.', '\\.')));
    for (const [path, text] of Object.entries(FILES)) assert.equal(readFileSync(join(root, path), 'utf8'), text, path);
    assert.ok(!statSync(join(root, 'dist/preload.cjs'), { throwIfNoEntry: false })?.isSymbolicLink());
    assert.equal(readFileSync(join(scratch, 'slow.cjs'), 'utf8').includes('PERFGATE_SIDE'), true, 'the symlink target is not written through');
    assert.ok(!existsSync(join(root, 'dist/package.json')));
    assert.equal(statSync(join(root, 'dist/index.js')).mode & 0o777, 0o755);
    assert.equal(restoreOwnFiles(own), null, 'once put back, nothing is found again');
  });

  test('a dist/ replaced by a symlink to a copy of the PR\'s is put back as a directory of its own', () => {
    const root = laidOut('swapped');
    const own = OwnFiles.take(join(root, 'dist'));
    const theirs = join(scratch, 'theirs');
    mkdirSync(theirs);
    for (const file of ['index.js', 'post.js', 'preload.cjs']) writeFileSync(join(theirs, file), FILES[`dist/${file}`]!);
    rmSync(join(root, 'dist'), { recursive: true });
    symlinkSync(theirs, join(root, 'dist'));
    const warning = restoreOwnFiles(own);
    assert.match(warning?.message ?? '', /dist\/post\.js/);
    assert.ok(lstatSync(join(root, 'dist')).isDirectory());
    for (const [path, text] of Object.entries(FILES)) assert.equal(readFileSync(join(root, path), 'utf8'), text, path);
  });

  test('an untouched action reports nothing; code run from source holds nothing', () => {
    const root = laidOut('honest');
    assert.equal(restoreOwnFiles(OwnFiles.take(join(root, 'dist'))), null);
    rmSync(join(root, 'dist/post.js'));
    assert.equal(OwnFiles.take(join(root, 'dist')), null);
  });
});
