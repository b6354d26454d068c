import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { discoverBenchmarks } from '../../src/engine/bench/discover.js';
import { globToRegExp, matchFiles } from '../../src/engine/bench/glob.js';
import { SetupError } from '../../src/engine/errors.js';
import { buildBenchPlan } from '../../src/engine/plan.js';
import type { Tree } from '../../src/engine/workspace.js';
import { ROOT } from '../helpers/repo.js';

function tempTree(files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'perfgate-glob-'));
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return root;
}

function tree(side: 'base' | 'head', root: string): Tree {
  return { side, root, ref: side === 'base' ? 'main' : 'pr', sha: 'a'.repeat(40), dirty: false };
}

describe('globs', () => {
  test('*, **, ?, [..] and {a,b}', () => {
    const cases: [string, string, boolean][] = [
      ['bench/*.js', 'bench/a.js', true],
      ['bench/*.js', 'bench/sub/a.js', false],
      ['bench/**/*.js', 'bench/a.js', true],
      ['bench/**/*.js', 'bench/x/y/a.js', true],
      ['bench/**', 'bench/x/y/a.js', true],
      ['**/*.bench.{js,mjs}', 'a.bench.mjs', true],
      ['**/*.bench.{js,mjs}', 'deep/er/a.bench.js', true],
      ['**/*.bench.{js,mjs}', 'a.bench.ts', false],
      ['b?nch/[ab].js', 'bench/a.js', true],
      ['b?nch/[!ab].js', 'bench/a.js', false],
      ['bench/{x,{y,z}}.js', 'bench/z.js', true],
      ['a.b/(c)+.js', 'a.b/(c)+.js', true],
      ['a.b/(c)+.js', 'aXb/(c)+.js', false],
      ['odd{brace.js', 'odd{brace.js', true],
    ];
    for (const [glob, path, expected] of cases) {
      assert.equal(globToRegExp(glob).test(path), expected, `${glob} vs ${path}`);
    }
  });

  test('files are searched below the fixed prefix, without node_modules and dot-directories', () => {
    const root = tempTree([
      'bench/a.bench.js',
      'bench/deep/b.bench.mjs',
      'bench/c.txt',
      'bench/node_modules/lib/x.bench.js',
      'bench/.cache/y.bench.js',
      'node_modules/z/z.bench.js',
      'src/s.bench.js',
    ]);
    assert.deepEqual(matchFiles(root, ['bench/**/*.bench.{js,mjs}']), ['bench/a.bench.js', 'bench/deep/b.bench.mjs']);
    assert.deepEqual(matchFiles(root, ['**/*.bench.js']), ['bench/a.bench.js', 'src/s.bench.js']);
    assert.deepEqual(matchFiles(root, ['bench/*.js', 'bench/a.bench.js']), ['bench/a.bench.js'], 'no repeats');
    assert.deepEqual(matchFiles(root, ['missing/*.js']), []);
  });

  test('a linked file counts, a linked directory is not followed', () => {
    const root = tempTree(['real/a.bench.js']);
    mkdirSync(join(root, 'bench'));
    symlinkSync(join(root, 'real/a.bench.js'), join(root, 'bench/link.bench.js'));
    symlinkSync(join(root, 'real'), join(root, 'bench/loop'));
    assert.deepEqual(matchFiles(root, ['bench/**/*.js']), ['bench/link.bench.js']);
  });
});

describe('discovery', () => {
  const config = (files: string[]) => resolveConfig({ document: { benchmarks: files } });

  test('files per side, relative to service.cwd', () => {
    const base = tempTree(['pkg/bench/a.bench.js']);
    const head = tempTree(['pkg/bench/a.bench.js', 'pkg/bench/b.bench.js']);
    const resolved = resolveConfig({ document: { benchmarks: 'bench/*.js', service: { cwd: 'pkg' } } });
    const found = discoverBenchmarks(resolved.benchmarks!, resolved.service, { base: tree('base', base), head: tree('head', head) });
    assert.deepEqual(found.files.base.map((f) => f.path), ['bench/a.bench.js']);
    assert.deepEqual(found.files.head.map((f) => f.path), ['bench/a.bench.js', 'bench/b.bench.js']);
    assert.equal(found.dirs.head, join(head, 'pkg'));
    assert.deepEqual(found.files.head[0]!.nodeArgs, []);
  });

  test('no file on either side is a setup error that names the globs', () => {
    const empty = tempTree([]);
    const c = config(['bench/*.bench.js']);
    assert.throws(
      () => discoverBenchmarks(c.benchmarks!, c.service, { base: tree('base', empty), head: tree('head', empty) }),
      (e: unknown) => e instanceof SetupError && /No benchmark file matches "bench\/\*\.bench\.js" in base or head/.test(e.message),
    );
  });

  test("TypeScript runs through the project's tsx; without it the error says what to add", () => {
    const without = tempTree(['bench/a.bench.ts']);
    const c = config(['bench/*.ts']);
    assert.throws(
      () => discoverBenchmarks(c.benchmarks!, c.service, { base: tree('base', without), head: tree('head', without) }),
      (e: unknown) =>
        e instanceof SetupError &&
        /bench\/a\.bench\.ts \(base, main@aaaaaaa\) is TypeScript/.test(e.message) &&
        /npm install --save-dev tsx/.test(e.message),
    );
    const withTsx = tempTree(['bench/a.bench.ts']);
    mkdirSync(join(withTsx, 'node_modules'));
    symlinkSync(join(ROOT, 'node_modules', 'tsx'), join(withTsx, 'node_modules', 'tsx'));
    const found = discoverBenchmarks(c.benchmarks!, c.service, { base: tree('base', withTsx), head: tree('head', withTsx) });
    const [flag, loader] = found.files.head[0]!.nodeArgs;
    assert.equal(flag, '--import');
    assert.match(loader!, /^file:\/\/.*\/tsx\/dist\/loader\.mjs$/);
  });
});

describe('the micro-benchmark plan', () => {
  const files = { base: ['a.js', 'b.js', 'gone.js'], head: ['a.js', 'b.js', 'new.js'] };

  test('every round runs every shared file on both sides, adjacent, in a seeded random order', () => {
    const plan = buildBenchPlan(files, 10, 42);
    assert.deepEqual(plan, buildBenchPlan(files, 10, 42), 'the seed replays the order');
    assert.notDeepEqual(plan, buildBenchPlan(files, 10, 43));
    assert.equal(plan.length, 10);
    for (const round of plan) {
      const shared = round.files.filter((f) => f.order.length === 2);
      assert.deepEqual(shared.map((f) => f.file).sort(), ['a.js', 'b.js']);
      for (const f of shared) assert.deepEqual([...f.order].sort(), ['base', 'head']);
    }
    const firsts = plan.flatMap((r) => r.files.filter((f) => f.order.length === 2).map((f) => f.order[0]));
    assert.ok(firsts.includes('base') && firsts.includes('head'), 'both sides go first sometimes');
    const fileOrders = new Set(plan.map((r) => r.files.map((f) => f.file).join()));
    assert.ok(fileOrders.size > 1, 'the file order changes between rounds');
  });

  test('a file only one side has runs once, in the first round', () => {
    const plan = buildBenchPlan(files, 6, 1);
    const once = (file: string) => plan.flatMap((r) => r.files.filter((f) => f.file === file).map((f) => [r.index, f.order]));
    assert.deepEqual(once('gone.js'), [[0, ['base']]]);
    assert.deepEqual(once('new.js'), [[0, ['head']]]);
  });
});
