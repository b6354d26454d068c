/**
 * The culprit's revert: head's tree with this PR's hunks inside one function taken back, as
 * `git apply -R` does, from a real throwaway repository; the other function's change stays.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Tree } from '../../src/engine/workspace/trees.js';
import { revertFunction, revertPackage } from '../../src/engine/workspace/revert.js';
import { baseSha, headSha, makeRepo } from '../helpers/repo.js';

const BASE = `'use strict';
function resolvePermissions(user) {
  return ROLES.filter((r) => r.user === user);
}

function render(list) {
  return list.join(',');
}
module.exports = { resolvePermissions, render };
`;

const HEAD = `'use strict';
function resolvePermissions(user) {
  const roles = JSON.parse(JSON.stringify(ROLES));
  return roles.filter((r) => r.user === user);
}

function render(list) {
  return list.map(String).join(',');
}
module.exports = { resolvePermissions, render };
`;

function headTree(dir: string): Tree {
  return { side: 'head', ref: 'head', sha: headSha(dir), dirty: false, root: dir };
}

test("the revert takes back this PR's lines inside the culprit only, in a tree of its own with head's node_modules", async () => {
  const dir = makeRepo({ 'server.js': BASE }, { 'server.js': HEAD });
  writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
  const scratch = join(dir, '..', `${dir.split('/').at(-1)}-scratch`);
  try {
    mkdirSync(join(dir, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    const revert = await revertFunction({
      head: headTree(dir),
      since: baseSha(dir),
      fn: { name: 'resolvePermissions', file: 'server.js', line: 2, endLine: 5 },
      cwd: '.',
      scratchDir: scratch,
    });
    assert.ok(revert.ok, revert.ok ? '' : revert.reason);
    const text = readFileSync(join(revert.tree.root, 'server.js'), 'utf8');
    assert.match(text, /return ROLES\.filter/, 'the culprit is as base had it');
    assert.doesNotMatch(text, /JSON\.parse/);
    assert.match(text, /list\.map\(String\)/, "the other function keeps head's change");
    assert.equal(revert.hunks, 1);
    assert.equal(readFileSync(join(revert.tree.root, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.equal(readFileSync(join(dir, 'server.js'), 'utf8'), HEAD, "head's own tree is untouched");
    await revert.dispose();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a function the PR did not change is not reverted, and the reason says so', async () => {
  const dir = makeRepo({ 'server.js': BASE }, { 'server.js': HEAD });
  const scratch = join(dir, '..', `${dir.split('/').at(-1)}-scratch`);
  try {
    const untouched = await revertFunction({ head: headTree(dir), since: baseSha(dir), fn: { name: 'exports', file: 'server.js', line: 10, endLine: 10 }, cwd: '.', scratchDir: scratch });
    assert.ok(!untouched.ok);
    assert.match(untouched.reason, /changed no line of exports/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a dependency's revert is head's tree and node_modules with base's installed folder of that package", async () => {
  const dir = makeRepo({ 'server.js': BASE, '.gitignore': 'node_modules\n' }, { 'server.js': HEAD });
  const baseDir = join(dir, '..', `${dir.split('/').at(-1)}-base`);
  const scratch = join(dir, '..', `${dir.split('/').at(-1)}-scratch`);
  try {
    for (const [root, version] of [[dir, '2.0.0'], [baseDir, '1.0.0']] as const) {
      mkdirSync(join(root, 'node_modules', '@scope', 'router'), { recursive: true });
      writeFileSync(join(root, 'node_modules', '@scope', 'router', 'package.json'), JSON.stringify({ version }));
    }
    mkdirSync(join(dir, 'node_modules', 'other'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'other', 'index.js'), 'head');
    const revert = await revertPackage({ head: headTree(dir), baseDir, cwd: '.', name: '@scope/router', scratchDir: scratch });
    assert.ok(revert.ok, revert.ok ? '' : revert.reason);
    const read = (path: string) => readFileSync(join(revert.tree.root, path), 'utf8');
    assert.equal(JSON.parse(read('node_modules/@scope/router/package.json')).version, '1.0.0');
    assert.equal(read('node_modules/other/index.js'), 'head', "head's other packages stay");
    assert.equal(read('server.js'), HEAD, "head's own code stays");
    await revert.dispose();
    const missing = await revertPackage({ head: headTree(dir), baseDir, cwd: '.', name: 'absent', scratchDir: scratch });
    assert.ok(!missing.ok);
    assert.match(missing.reason, /base has no node_modules\/absent/);
  } finally {
    for (const d of [scratch, baseDir, dir]) rmSync(d, { recursive: true, force: true });
  }
});
