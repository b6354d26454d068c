/**
 * The culprit's revert: head's tree with this PR's hunks inside one function taken back, as
 * `git apply -R` does, from a real throwaway repository; the other function's change stays.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import type { Tree } from '../../src/engine/workspace/trees.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import type { Confirmation } from '../../src/results/types.js';
import { fixtureScenarioProfile } from '../helpers/profiles.js';
import { resultsFromPairs } from '../helpers/results.js';
import { type Revert, revertFunction, revertPackage } from '../../src/engine/workspace/revert.js';
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
      builds: false,
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
    const untouched = await revertFunction({ head: headTree(dir), since: baseSha(dir), fn: { name: 'exports', file: 'server.js', line: 10, endLine: 10 }, cwd: '.', builds: false, scratchDir: scratch });
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

/** Reverts `fn` in the repository at `dir` (branch head over main), then removes the scratch tree. */
async function revertIn(dir: string, fn: { name: string; file: string; line: number; endLine: number }, check: (revert: Revert) => void): Promise<void> {
  const scratch = join(dir, '..', `${dir.split('/').at(-1)}-scratch`);
  try {
    const revert = await revertFunction({ head: headTree(dir), since: baseSha(dir), fn, cwd: '.', builds: false, scratchDir: scratch });
    check(revert);
    if (revert.ok) await revert.dispose();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

const crlf = (text: string) => text.replace(/\n/g, '\r\n');

test("a file committed with CRLF line endings, the culprit's hunk the last of its diff: its lines come back with their CRLF", async () => {
  const dir = makeRepo({ 'server.js': crlf(BASE) }, { 'server.js': crlf(HEAD) });
  await revertIn(dir, { name: 'render', file: 'server.js', line: 7, endLine: 9 }, (revert) => {
    assert.ok(revert.ok, revert.ok ? '' : revert.reason);
    assert.equal(readFileSync(join(revert.tree.root, 'server.js'), 'utf8'), crlf(HEAD.replace('list.map(String).join', 'list.join')));
  });
});

test("a file this PR moved and edited: the culprit's lines are reverted where head has the file; the move stays", async () => {
  // Enough unchanged lines that git pairs the two paths as a rename (half the file or more alike).
  const rest = Array.from({ length: 12 }, (_, i) => `const ROUTE_${i} = '/v1/items/${i}';\n`).join('');
  const dir = makeRepo({ 'server.js': BASE + rest }, { 'lib/server.js': HEAD + rest });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'rm', '--quiet', 'server.js'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '--quiet', '-m', 'move'], { cwd: dir });
  await revertIn(dir, { name: 'resolvePermissions', file: 'lib/server.js', line: 2, endLine: 5 }, (revert) => {
    assert.ok(revert.ok, revert.ok ? '' : revert.reason);
    assert.equal(readFileSync(join(revert.tree.root, 'lib/server.js'), 'utf8'), HEAD.replace(/ {2}const roles = .*\n {2}return roles/, '  return ROLES') + rest);
    assert.ok(!existsSync(join(revert.tree.root, 'server.js')), "base's path is not brought back");
  });
});

test("code this PR added whole is not reverted: 'could not revert', said in the headline, the comment and verdicts.json; the verdicts stand", async () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `const LIMIT_${i} = ${i};\n`).join('');
  const etag = "function slowEtag(body) {\n  let hash = 0;\n  for (let i = 0; i < body.length; i++) {\n    hash = (hash * 31 + body.charCodeAt(i)) | 0;\n  }\n  return String(hash);\n}\n";
  // The PR adds slowEtag and has the existing etag call it: the new function is lines git adds whole.
  const dir = makeRepo(
    { 'src/payload.js': `${lines(9)}function etag(body) {\n  return String(body.length);\n}\nmodule.exports = { etag };\n` },
    { 'src/payload.js': `${lines(9)}${etag}function etag(body) {\n  return slowEtag(body);\n}\nmodule.exports = { etag };\n` },
  );
  const culprit = { name: 'slowEtag', file: 'src/payload.js', line: 10, endLine: 16 };
  const since = baseSha(dir);
  let reason = '';
  await revertIn(dir, culprit, (revert) => {
    assert.ok(!revert.ok);
    reason = revert.reason;
  });
  assert.equal(reason, 'could not revert slowEtag (src/payload.js:10–16): all of it is new in this PR, so base has no slowEtag to put back');
  const run = resultsFromPairs(Array.from({ length: 12 }, (_, i) => [1000 + (i % 3) * 5, 650 + (i % 4) * 3]));
  run.profiles = [fixtureScenarioProfile()];
  run.changes = { since, files: [{ file: 'src/payload.js', hunks: [[10, 7], [18, 1]] }] };
  const record: Confirmation = { scenario: 'GET /hello', culprit: { ...culprit, package: null }, status: 'skipped', reason, reverted: null, pairs: [], wallMs: 900 };
  const confirmed = { ...run, confirmations: [record] };
  const assessment = assessResults(confirmed);
  const said = `not tested by a revert: ${reason}`;
  assert.ok(renderTerminal(confirmed, assessment).split('\n').slice(0, 3).join('\n').includes(said), renderTerminal(confirmed, assessment));
  assert.ok(renderMarkdown(confirmed, assessment).replace(/\\(.)/g, '$1').includes(said));
  const document = buildVerdicts(confirmed, assessment);
  assert.deepEqual([document.worst?.culprit?.confirmation?.status, document.worst?.culprit?.confirmation?.reason], ['skipped', reason]);
  const without = buildVerdicts(run, assessResults(run));
  assert.deepEqual([document.decision, document.regressions, document.worst?.verdict], [without.decision, without.regressions, without.worst?.verdict], 'the verdicts are those of the run without the arm');
  assert.equal(document.decision, 'fail');
});
