import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import { discoverBenchmarks } from '../../src/engine/phases/bench/discover.js';
import { SetupError } from '../../src/engine/errors.js';
import { buildBenchPlan } from '../../src/engine/plan.js';
import type { Tree } from '../../src/engine/workspace/trees.js';
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

/** The files discovery finds for `globs` in `root` (same tree on both sides), as a user sees them. */
function discover(root: string, globs: string[]): string[] {
  const c = resolveConfig({ document: { benchmarks: globs } });
  const found = discoverBenchmarks(c.benchmarks!, c.service, { base: tree('base', root), head: tree('head', root) });
  assert.deepEqual(found.files.base, found.files.head);
  return found.files.head.map((f) => f.path);
}

describe('globs', () => {
  test('*, **, ?, [..], {a,b}: relative posix paths, sorted, no repeats', () => {
    const root = tempTree([
      'bench/a.js',
      'bench/sub/a.js',
      'bench/x/y/deep.js',
      'a.bench.mjs',
      'deep/er/a.bench.js',
      'a.bench.ts',
      'bench/b.js',
      'bench/z.js',
      'a.b/(c)+.js',
      'aXb/(c)+.js',
    ]);
    assert.deepEqual(discover(root, ['bench/*.js']), ['bench/a.js', 'bench/b.js', 'bench/z.js']);
    assert.deepEqual(discover(root, ['bench/**/*.js']), ['bench/a.js', 'bench/b.js', 'bench/sub/a.js', 'bench/x/y/deep.js', 'bench/z.js']);
    assert.deepEqual(discover(root, ['bench/**']), discover(root, ['bench/**/*.js']));
    assert.deepEqual(discover(root, ['**/*.bench.{js,mjs}']), ['a.bench.mjs', 'deep/er/a.bench.js']);
    assert.deepEqual(discover(root, ['b?nch/[ab].js']), ['bench/a.js', 'bench/b.js']);
    assert.deepEqual(discover(root, ['b?nch/[!ab].js']), ['bench/z.js']);
    assert.deepEqual(discover(root, ['bench/{x/**/*,{y,z}}.js']), ['bench/x/y/deep.js', 'bench/z.js']);
    assert.deepEqual(discover(root, ['a.b/(c)+.js']), ['a.b/(c)+.js'], 'a literal name with ( ) + . matches itself only');
    assert.deepEqual(discover(root, ['bench/*.js', 'bench/a.js', './bench/a.js']), ['bench/a.js', 'bench/b.js', 'bench/z.js'], 'no repeats');
  });

  test('!glob excludes what the other globs match', () => {
    const root = tempTree(['bench/a.bench.js', 'bench/slow/b.bench.js', 'bench/slow/c.bench.js', 'bench/d.bench.js']);
    assert.deepEqual(discover(root, ['bench/**/*.bench.js', '!bench/slow/**']), ['bench/a.bench.js', 'bench/d.bench.js']);
    assert.deepEqual(discover(root, ['!bench/slow/c.bench.js', 'bench/**/*.bench.js']), ['bench/a.bench.js', 'bench/d.bench.js', 'bench/slow/b.bench.js'], 'order does not matter');
  });

  test('a backslash escapes a special character', () => {
    const root = tempTree(['bench/[x].js', 'bench/x.js', 'bench/*.js', 'bench/a.js', 'bench/{a,b}.js']);
    // picomatch: an unescaped [x] is a character class, and also its own literal name.
    assert.deepEqual(discover(root, ['bench/[x].js']), ['bench/[x].js', 'bench/x.js']);
    assert.deepEqual(discover(root, ['bench/*.js']).length, 5);
    assert.deepEqual(discover(root, ['bench/\\[x\\].js']), ['bench/[x].js']);
    assert.deepEqual(discover(root, ['bench/\\*.js']), ['bench/*.js']);
    assert.deepEqual(discover(root, ['bench/\\{a,b\\}.js']), ['bench/{a,b}.js']);
  });

  test('node_modules, dot-directories and dot-files are never searched', () => {
    const root = tempTree([
      'bench/a.bench.js',
      'bench/deep/b.bench.mjs',
      'bench/c.txt',
      'bench/node_modules/lib/x.bench.js',
      'bench/.cache/y.bench.js',
      'bench/.hidden.bench.js',
      'node_modules/z/z.bench.js',
      'src/s.bench.js',
    ]);
    assert.deepEqual(discover(root, ['bench/**/*.bench.{js,mjs}']), ['bench/a.bench.js', 'bench/deep/b.bench.mjs']);
    assert.deepEqual(discover(root, ['**/*.bench.js']), ['bench/a.bench.js', 'src/s.bench.js']);
    assert.deepEqual(discover(root, ['**/*.bench.js', 'bench/.cache/*.js', 'node_modules/**/*.js']), ['bench/a.bench.js', 'src/s.bench.js'], 'not even when named');
  });

  test('a linked file counts, a linked directory is not followed', () => {
    const root = tempTree(['real/a.bench.js']);
    mkdirSync(join(root, 'bench'));
    symlinkSync(join(root, 'real/a.bench.js'), join(root, 'bench/link.bench.js'));
    symlinkSync(join(root, 'real'), join(root, 'bench/loop'));
    symlinkSync(root, join(root, 'bench/up'));
    assert.deepEqual(discover(root, ['bench/**/*.js']), ['bench/link.bench.js']);
  });

  test('the config rejects a list that only excludes, and an excluded path outside the tree', () => {
    assert.throws(() => resolveConfig({ document: { benchmarks: ['!bench/slow/**'] } }), /benchmarks.*only excludes \(every glob starts with !\); add one that includes files/s);
    assert.throws(() => resolveConfig({ document: { benchmarks: '!bench/**' } }), /only excludes/);
    assert.throws(() => resolveConfig({ document: { benchmarks: ['bench/*.js', '!../x/*.js'] } }), /is outside the repository/);
    assert.throws(() => resolveConfig({ document: { benchmarks: ['bench/*.js', '!/x/*.js'] } }), /is absolute/);
    assert.deepEqual(resolveConfig({ document: { benchmarks: ['./bench/*.js', '!./bench/x.js', '\\!odd.js'] } }).benchmarks!.files, ['bench/*.js', '!bench/x.js', '\\!odd.js']);
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
    const empty = tempTree(['bench/.cache/a.bench.js', 'bench/a.js']);
    const c = config(['bench/*.bench.js']);
    assert.throws(
      () => discoverBenchmarks(c.benchmarks!, c.service, { base: tree('base', empty), head: tree('head', empty) }),
      (e: unknown) =>
        e instanceof SetupError &&
        e.message.startsWith('No benchmark file matches "bench/*.bench.js" in base or head (searched the repository root, without node_modules and dot-directories).') &&
        /globs are relative to service.cwd, e.g. bench\/\*\*\/\*\.bench\.js/.test(e.message),
    );
    const hidden = config(['bench/.cache/*.js', '!bench/a.js']);
    assert.throws(
      () => discoverBenchmarks(hidden.benchmarks!, hidden.service, { base: tree('base', empty), head: tree('head', empty) }),
      (e: unknown) => e instanceof SetupError && e.message.includes('"bench/.cache/*.js": dot-directories and dot-files are never searched.'),
    );
  });

  test('of several globs, one that matches nothing on either side is reported (a typo), the others still run', () => {
    const base = tempTree(['bench/a.bench.js']);
    const head = tempTree(['bench/a.bench.js', 'bench/new.bench.js']);
    const c = config(['bench/*.bench.js', 'bench/new.bench.js', 'bnech/*.bench.js', '!bench/none.js']);
    const found = discoverBenchmarks(c.benchmarks!, c.service, { base: tree('base', base), head: tree('head', head) });
    assert.deepEqual(found.files.head.map((f) => f.path), ['bench/a.bench.js', 'bench/new.bench.js']);
    assert.deepEqual(found.unmatched, ['bnech/*.bench.js'], 'a glob matching on one side only is fine');
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
