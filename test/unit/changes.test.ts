/**
 * Which lines a pull request changed, and whether the culprit is one of the functions it changed
 * (issue 28): real `git diff` output from a throwaway repository, read as perfgate reads it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { culpritAnnotations, MAX_ANNOTATIONS } from '../../src/action/annotations.js';
import { changedLines } from '../../src/engine/workspace/changes.js';
import { assessResults } from '../../src/assess/compare.js';
import { boundSummaries } from '../../src/profile/diff.js';
import { changedByPr, parseDiff, touches } from '../../src/profile/changes.js';
import { culpritAmong } from '../../src/profile/culprit.js';
import { diffProfiles } from '../../src/profile/diff.js';
import { describeCulprit } from '../../src/report/document/function-words.js';
import { renderTerminal } from '../../src/report/index.js';
import type { ChangeSet, FunctionStats, ProfileSummary, Results, SideProfile } from '../../src/results/types.js';
import { fixtureSummary } from '../helpers/profiles.js';
import { baseSha, headSha, makeRepo } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

const numbered = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

const SERVER_BASE = `'use strict';
function resolvePermissions(user) {
  const roles = ROLES;
  return roles.filter((r) => r.user === user);
}

function render(list) {
  const out = [];
  // trimmed in head
  // trimmed in head
  for (const x of list) out.push(x);
  return out.join(',');
}

function untouched(a) {
  return a + 1;
}
`;

const SERVER_HEAD = `'use strict';
function resolvePermissions(user) {
  const roles = JSON.parse(JSON.stringify(ROLES));
  return roles.filter((r) => r.user === user);
}

function render(list) {
  const out = [];
  for (const x of list) out.push(x);
  return out.join(',');
}

function untouched(a) {
  return a + 1;
}
`;

/** A repository whose head edits one function, deletes lines inside another, renames a file with an edit, adds a file, deletes one; plus an uncommitted edit and an untracked file. */
function repoWithChanges(): string {
  const dir = makeRepo(
    {
      'service/server.js': SERVER_BASE,
      'service/old-name.js': `${numbered(30, '// line').join('\n')}\n`,
      'service/gone.js': 'module.exports = 1;\n',
      'service/dirty.js': 'a\nb\nc\n',
    },
    { 'service/server.js': SERVER_HEAD, 'service/added file.js': 'x\ny\n' },
  );
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: dir });
  // a rename that also edits line 20 of 30
  renameSync(join(dir, 'service/old-name.js'), join(dir, 'service/new-name.js'));
  const lines = numbered(30, '// line');
  lines[19] = '// edited';
  writeFileSync(join(dir, 'service/new-name.js'), `${lines.join('\n')}\n`);
  git('rm', '--quiet', 'service/gone.js');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'rename');
  // uncommitted and untracked: the CLI compares the work tree as it is
  writeFileSync(join(dir, 'service/dirty.js'), 'a\nB\nc\n');
  writeFileSync(join(dir, 'service/untracked.js'), 'one\ntwo\nthree\n');
  return dir;
}

const tree = (side: 'base' | 'head', root: string, sha: string) => ({ side, root, sha, ref: side, dirty: false });

describe('the lines a pull request changed', () => {
  test('git diff from the merge-base: edits, removed lines, a rename with an edit, a new file, uncommitted and untracked files, no deleted file', async () => {
    const dir = repoWithChanges();
    const changes = (await changedLines(tree('base', dir, baseSha(dir)), tree('head', dir, headSha(dir))))!;
    assert.equal(changes.since, baseSha(dir));
    const hunks = Object.fromEntries(changes.files.map((f) => [f.file, f.hunks]));
    assert.deepEqual(Object.keys(hunks).sort(), ['service/added file.js', 'service/dirty.js', 'service/new-name.js', 'service/server.js', 'service/untracked.js']);
    // line 3 edited; two comment lines removed after line 8
    assert.deepEqual(hunks['service/server.js'], [[3, 1], [8, 0]]);
    assert.deepEqual(hunks['service/new-name.js'], [[20, 1]], 'named by its head path, only the edited line');
    assert.deepEqual(hunks['service/added file.js'], [[1, 2]]);
    assert.deepEqual(hunks['service/dirty.js'], [[2, 1]]);
    assert.deepEqual(hunks['service/untracked.js'], [[1, 3]]);
  });

  test('the merge-base, not base: commits base gained after the branch was made are not the PR\'s', async () => {
    const dir = makeRepo({ 'a.js': 'one\n', 'b.js': 'two\n' }, { 'a.js': 'ONE\n' });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: dir, encoding: 'utf8' }).trim();
    const fork = baseSha(dir);
    git('checkout', '--quiet', 'main');
    writeFileSync(join(dir, 'b.js'), 'TWO\n');
    git('commit', '--quiet', '-am', 'base moves on');
    const movedBase = git('rev-parse', 'HEAD');
    git('checkout', '--quiet', 'head');
    const changes = (await changedLines(tree('base', dir, movedBase), tree('head', dir, headSha(dir))))!;
    assert.equal(changes.since, fork);
    assert.deepEqual(changes.files.map((f) => f.file), ['a.js']);
  });

  test('a function is changed when its lines hold an edit or removed lines, not when the edit is outside it', () => {
    const changes: ChangeSet = { since: '0'.repeat(40), files: parseDiff(gitDiff(SERVER_BASE, SERVER_HEAD)) };
    const fn = (line: number, endLine?: number) => ({ file: 'server.js', line, ...(endLine !== undefined && { endLine }) });
    assert.equal(changedByPr(fn(2, 5), changes), true, 'resolvePermissions: line 3 edited');
    assert.equal(changedByPr(fn(4), changes), false, 'the filter arrow on line 4 (no span): its line is not edited');
    assert.equal(changedByPr(fn(7, 11), changes), true, 'render: lines removed inside it');
    assert.equal(changedByPr(fn(13, 15), changes), false, 'untouched');
    assert.equal(changedByPr({ file: 'other.js', line: 3, endLine: 9 }, changes), false, 'a file the PR left alone');
    assert.equal(changedByPr(fn(2, 5), undefined), null, 'no diff recorded: unknown');
    // lines removed right after a function's last line are not inside it
    assert.equal(touches([[5, 0]], 2, 5), false);
    assert.equal(touches([[4, 0]], 2, 5), true);
  });

  test('quoted paths, tabbed names, and an added line that reads like a header', () => {
    const text = [
      'diff --git "a/caf\\303\\251.js" "b/caf\\303\\251.js"',
      'index 1..2 100644',
      '--- "a/caf\\303\\251.js"',
      '+++ "b/caf\\303\\251.js"',
      '@@ -1 +1 @@',
      '-x',
      '+y',
      'diff --git a/with space.js b/with space.js',
      '--- a/with space.js\t',
      '+++ b/with space.js\t',
      '@@ -3,0 +4,2 @@',
      '+++ not a header',
      '+z',
      'diff --git a/gone.js b/gone.js',
      'deleted file mode 100644',
      '--- a/gone.js',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-gone',
    ].join('\n');
    assert.deepEqual(parseDiff(text), [
      { file: 'café.js', hunks: [[1, 1]] },
      { file: 'with space.js', hunks: [[4, 2]] },
    ]);
  });
});

/** git's own diff of two versions of server.js. */
function gitDiff(before: string, after: string): string {
  const dir = makeRepo({ 'server.js': before }, { 'server.js': after });
  return execFileSync('git', ['diff', '--unified=0', '-M', '--src-prefix=a/', '--dst-prefix=b/', 'main', 'head'], { cwd: dir, encoding: 'utf8' });
}

describe('the culprit, marked', () => {
  const stats = (name: string, line: number, endLine: number, attributed: number): FunctionStats => ({
    name,
    file: 'server.js',
    line,
    endLine,
    column: 10,
    category: 'own',
    package: null,
    self: attributed,
    total: attributed,
    attributed,
  });
  const side = (n: number): ProfileSummary & { requests: number } => {
    const functions = [stats('resolvePermissions', 2, 5, n), stats('handler', 20, 30, 100)];
    const samples = functions.reduce((s, f) => s + f.self, 0);
    return { samples, idleSamples: 0, categories: { own: samples, dependency: 0, node: 0, native: 0 }, functions, functionCount: 2, requests: 1000 };
  };
  const diff = (hunks: [number, number][]): ChangeSet => ({ since: '0'.repeat(40), files: [{ file: 'server.js', hunks }] });

  test('in the headline and the hot-functions line: changed by this PR, or not and where to look instead', () => {
    const changes = diffProfiles(side(100), side(400), 1000);
    assert.equal(culpritAmong(changes, diff([[3, 1]]))!.text, 'most new time in resolvePermissions (server.js:2, changed by this PR)');
    const unchanged = culpritAmong(changes, diff([[25, 1]]))!;
    assert.equal(unchanged.changed, false);
    assert.equal(unchanged.text, 'most new time in resolvePermissions (server.js:2, not changed by this PR: called more, or with larger inputs, by something that changed)');
    assert.match(describeCulprit(unchanged), /^resolvePermissions \(server\.js:2, not changed by this PR: .*\) \+[\d.]+ (µs|ms) per request$/);
    assert.equal(culpritAmong(changes)!.text, 'most new time in resolvePermissions (server.js:2)', 'no diff recorded: as before');
  });

  test('an untouched culprit is named with the function the PR did change that grew the most, in the headline, the hot-functions line and verdicts.json', () => {
    // resolvePermissions (lines 2–5) grows by 300 samples per 1,000 requests, handler (lines 20–30) by `grew`
    const sides = (grew: number) => {
      const at = (n: number, h: number): ProfileSummary & { requests: number } => {
        const functions = [stats('resolvePermissions', 2, 5, n), stats('handler', 20, 30, h)];
        const samples = functions.reduce((s, f) => s + f.self, 0);
        return { samples, idleSamples: 0, categories: { own: samples, dependency: 0, node: 0, native: 0 }, functions, functionCount: 2, requests: 1000 };
      };
      return diffProfiles(at(100, 100), at(400, 100 + grew), 1000);
    };
    const culprit = culpritAmong(sides(50), diff([[25, 1]]))!;
    assert.equal(culprit.edited?.name, 'handler');
    assert.equal(culprit.text, 'most new time in resolvePermissions (server.js:2, not changed by this PR); most in code this PR changed: handler (server.js:20)');
    assert.equal(describeCulprit(culprit), 'resolvePermissions (server.js:2, not changed by this PR) +300 µs per request; most in code this PR changed: handler (server.js:20) +50 µs per request');
    // an edited function that did not grow beyond noise is not named: the advice on where to look stays
    const flat = culpritAmong(sides(0), diff([[25, 1]]))!;
    assert.equal(flat.edited, null);
    assert.match(flat.text, /not changed by this PR: called more, or with larger inputs, by something that changed\)$/);
    assert.equal(culpritAmong(sides(50), diff([[3, 1]]))!.edited, null, 'the culprit itself changed: nothing more to name');
  });
});

describe('annotations on the pull request', () => {
  /** A regressed run (throughput 1,000 → 420 req/s) of the recorded profiles, whose culprit is slowEtag (src/payload.js:10–16). */
  function regressed(changes?: ChangeSet): Results {
    const results = resultsFromPairs(Array.from({ length: 12 }, (_, i): [number, number] => [1000 + (i % 3) * 7, 420 + (i % 4) * 5]));
    const bounded = boundSummaries(fixtureSummary('base'), fixtureSummary('head'), 25);
    const side = (summary: ProfileSummary, requests: number) => ({
      ...summary,
      profiler: 'cpu-prof' as const,
      nodeVersion: 'v24.21.0',
      requests,
      windowMs: 2000,
      wallMs: 4100,
      processes: [],
      merged: 'merged.cpuprofile',
      inlinedSamples: 0,
    });
    results.profiles = [
      {
        scenario: 'GET /hello',
        durationMs: 2000,
        intervalUs: 1000,
        sides: { base: side(bounded.base, 20_000), head: side(bounded.head, 18_200) },
        files: { head: null, base: null, diff: null },
        renderMs: null,
      },
    ];
    if (changes) results.changes = changes;
    return results;
  }
  const since = '0'.repeat(40);

  test('a culprit in a file the PR changed: one warning at its line, with the time it added and the regression', () => {
    const results = regressed({ since, files: [{ file: 'src/payload.js', hunks: [[12, 1]] }] });
    const annotations = culpritAnnotations(results, assessResults(results));
    assert.equal(annotations.length, 1);
    const [a] = annotations;
    assert.equal(a!.file, 'src/payload.js');
    assert.equal(a!.line, 10);
    assert.match(a!.message, /^slowEtag: \+[\d.]+ (µs|ms) CPU per request in head \(GET \/hello throughput −[\d.]+%\)$/);
    // the terminal names the same place, as a path from the repository root
    assert.match(renderTerminal(results, assessResults(results)), /most new time in slowEtag \(src\/payload\.js:10, changed by this PR\)/);
  });

  test('a culprit the PR did not edit, in a file it changed: annotated, and said where to look', () => {
    const results = regressed({ since, files: [{ file: 'src/payload.js', hunks: [[30, 2]] }] });
    const [a] = culpritAnnotations(results, assessResults(results));
    assert.match(a!.message, /; this function is not changed by this PR: something that changed calls it more, or with larger inputs$/);
  });

  test('a culprit the PR did not edit, beside a function it did edit that grew: both annotated, the edited one first', () => {
    // the PR edited buildPayload (src/payload.js:5–8), which grew too, and not slowEtag
    const results = regressed({ since, files: [{ file: 'src/payload.js', hunks: [[6, 1]] }] });
    const annotations = culpritAnnotations(results, assessResults(results));
    assert.deepEqual(
      annotations.map((a) => `${a.file}:${a.line}`),
      ['src/payload.js:5', 'src/payload.js:10'],
    );
    assert.match(annotations[0]!.message, /^buildPayload: \+[\d.]+ (µs|ms) CPU per request in head \(GET \/hello throughput −[\d.]+%\); slowEtag \(src\/payload\.js:10\), which this PR did not change, added \+[\d.]+ (µs|ms) CPU per request$/);
    assert.match(renderTerminal(results, assessResults(results)), /most new time in slowEtag \(src\/payload\.js:10, not changed by this PR\); most in code this PR changed: buildPayload \(src\/payload\.js:5\)/);
  });

  test('at most three annotations, one per function: five regressed scenarios with five culprits get three', () => {
    const results = regressed({ since, files: [{ file: 'src/payload.js', hunks: [[1, 200]] }] });
    const template = results.scenarios[0]!;
    const profile = results.profiles![0]!;
    // Scenario i's culprit is slowEtag moved to line 10 + 20 i: five different functions to the annotations.
    const moved = (i: number) => {
      const shift = (summary: SideProfile): SideProfile => ({
        ...summary,
        functions: summary.functions.map((f) => (f.name === 'slowEtag' ? { ...f, line: f.line + 20 * i } : f)),
      });
      return { ...profile, scenario: `GET /s/${i}`, sides: { base: shift(profile.sides.base), head: shift(profile.sides.head) } };
    };
    results.scenarios = Array.from({ length: 5 }, (_, i) => ({ ...template, name: `GET /s/${i}` }));
    results.profiles = Array.from({ length: 5 }, (_, i) => moved(i));
    const annotations = culpritAnnotations(results, assessResults(results));
    assert.equal(MAX_ANNOTATIONS, 3);
    assert.deepEqual(
      annotations.map((a) => `${a.file}:${a.line}`),
      ['src/payload.js:10', 'src/payload.js:30', 'src/payload.js:50'],
    );
  });

  test('no annotation for a culprit in a file the PR left alone, nor without a recorded diff', () => {
    const results = regressed({ since, files: [{ file: 'server.js', hunks: [[3, 1]] }] });
    assert.deepEqual(culpritAnnotations(results, assessResults(results)), []);
    const old = regressed();
    assert.deepEqual(culpritAnnotations(old, assessResults(old)), []);
  });
});
