/**
 * Dependency attribution (issue 28): which packages the pull request upgraded, from real
 * lockfiles, which package each profiled file is in, and the time by package in the report.
 * test/fixtures/lockfiles holds find-my-way 8.1.0 and its upgrade to 8.2.2 (which brings
 * safe-regex2 2 → 3 and ret 0.2 → 0.4) as each package manager locked them, all from the npm
 * registry: find-my-way-<version>/ by `npm install --package-lock-only find-my-way@<version>`;
 * pnpm-9/ by pnpm 12.21.0 and pnpm-6/ by pnpm 8.15.9 (`pnpm add --lockfile-only
 * find-my-way@<version>`); yarn-1/ by yarn 1.22.22 (`yarn add --exact`); yarn-4/ by yarn 4.18.1
 * (@yarnpkg/cli-dist: `yarn add --exact --mode=update-lockfile`). Each head is its base's
 * directory with the add run again at 8.2.2.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { dependencyChanges, packageResolver, projectManifests } from '../../src/engine/workspace/lockfiles.js';
import { assessResults } from '../../src/assess/compare.js';
import type { CallNode, CallTree } from '../../src/profile/call-tree.js';
import { functionKey } from '../../src/profile/frames.js';
import type { FunctionChange } from '../../src/profile/diff.js';
import { LockfileError, type LockfileFormat, lockedPackages } from '../../src/profile/lockfile-formats.js';
import { diffLockfiles, packageFunctionGrowth, packageTimes } from '../../src/profile/packages.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import type { FunctionId, FunctionStats, PackageTime, ProfileSummary, Results } from '../../src/results/types.js';
import { resolveConfig } from '../../src/config/index.js';
import { FIXTURES } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

const lockfile = (version: string) => JSON.parse(readFileSync(join(FIXTURES, 'lockfiles', `find-my-way-${version}`, 'package-lock.json'), 'utf8'));
const npm = (doc: unknown) => lockedPackages({ label: 'package-lock.json', format: 'npm', text: JSON.stringify(doc) });

/** A fixture's lockfile, read; yarn's with the package.json beside it. */
function fixture(dir: string, version: string): ReturnType<typeof lockedPackages> {
  const format: LockfileFormat = dir.startsWith('pnpm') ? 'pnpm' : 'yarn';
  const at = join(FIXTURES, 'lockfiles', dir, `find-my-way-${version}`);
  const text = readFileSync(join(at, format === 'pnpm' ? 'pnpm-lock.yaml' : 'yarn.lock'), 'utf8');
  return lockedPackages({ label: `${dir}/${version}`, format, text, manifests: [JSON.parse(readFileSync(join(at, 'package.json'), 'utf8'))] });
}

const UPGRADE = [
  { name: 'find-my-way', base: ['8.1.0'], head: ['8.2.2'], direct: true },
  { name: 'ret', base: ['0.2.2'], head: ['0.4.3'], direct: false },
  { name: 'safe-regex2', base: ['2.0.0'], head: ['3.1.0'], direct: false },
];

describe('the packages a pull request upgraded', () => {
  test('real npm lockfiles: the direct upgrade and the transitive ones it brought, nothing else', () => {
    assert.deepEqual(diffLockfiles(npm(lockfile('8.1.0')), npm(lockfile('8.2.2'))), UPGRADE);
    assert.deepEqual(diffLockfiles(npm(lockfile('8.1.0')), npm(lockfile('8.1.0'))), []);
  });

  for (const dir of ['pnpm-9', 'pnpm-6', 'yarn-1', 'yarn-4']) {
    test(`real ${dir} lockfiles: the same upgrade as npm's, and the same packages locked`, () => {
      assert.deepEqual(diffLockfiles(fixture(dir, '8.1.0'), fixture(dir, '8.2.2')), UPGRADE);
      assert.deepEqual(diffLockfiles(fixture(dir, '8.2.2'), fixture(dir, '8.2.2')), []);
      const sorted = (list: ReturnType<typeof lockedPackages>) => list.map((p) => `${p.name}@${p.version}${p.direct ? ' direct' : ''}`).sort();
      assert.deepEqual(sorted(fixture(dir, '8.2.2')), sorted(npm(lockfile('8.2.2'))));
    });
  }

  test('pnpm: a workspace importer\'s dependencies are direct, a link: to a workspace is not a package, peer variants are one version; yarn 1: direct only from package.json', () => {
    const pnpm = lockedPackages({
      label: 'pnpm-lock.yaml',
      format: 'pnpm',
      text: [
        "lockfileVersion: '6.0'",
        'importers:',
        '  .: {}',
        '  packages/api:',
        '    dependencies:',
        '      lib: {specifier: workspace:*, version: link:../lib}',
        '      fastify: {specifier: ^4.0.0, version: 4.28.1(pino@9.0.0)}',
        'packages:',
        '  /fastify@4.28.1(pino@9.0.0): {resolution: {integrity: sha512-x}}',
        '  /fastify@4.28.1(pino@9.1.0): {resolution: {integrity: sha512-x}}',
        '  /@fastify/ajv-compiler@3.6.0: {resolution: {integrity: sha512-x}}',
        '  github.com/a/b/0123abc: {resolution: {tarball: x}, name: b, version: 1.0.0}',
      ].join('\n'),
    });
    assert.deepEqual(pnpm, [
      { name: 'fastify', version: '4.28.1', direct: true },
      { name: 'fastify', version: '4.28.1', direct: true },
      { name: '@fastify/ajv-compiler', version: '3.6.0', direct: false },
      { name: 'b', version: '1.0.0', direct: false },
    ]);
    const text = readFileSync(join(FIXTURES, 'lockfiles', 'yarn-1', 'find-my-way-8.2.2', 'yarn.lock'), 'utf8');
    assert.ok(lockedPackages({ label: 'yarn.lock', format: 'yarn', text }).every((p) => !p.direct), 'yarn.lock alone does not say what is direct');
  });

  test('nested copies count by name; a package added or removed has no version on that side; lockfileVersion 1 and pnpm 7\'s 5.4 are refused by name', () => {
    const head = structuredClone(lockfile('8.2.2'));
    head.packages['node_modules/find-my-way/node_modules/ret'] = { version: '0.2.2' };
    head.packages['node_modules/left-pad'] = { version: '1.3.0' };
    delete head.packages['node_modules/fast-deep-equal'];
    const changed = diffLockfiles(npm(lockfile('8.2.2')), npm(head));
    assert.deepEqual(changed, [
      { name: 'fast-deep-equal', base: ['3.1.3'], head: [], direct: false },
      { name: 'left-pad', base: [], head: ['1.3.0'], direct: false },
      { name: 'ret', base: ['0.4.3'], head: ['0.2.2', '0.4.3'], direct: false },
    ]);
    assert.throws(() => npm({ lockfileVersion: 1, dependencies: {} }), (e) => e instanceof LockfileError && /lockfileVersion 1/.test(e.message));
    assert.throws(
      () => lockedPackages({ label: 'pnpm-lock.yaml', format: 'pnpm', text: "lockfileVersion: '5.4'\npackages: {}\n" }),
      (e) => e instanceof LockfileError && /lockfileVersion 5\.4 \(pnpm 7 or older\)/.test(e.message),
    );
  });

  const service = (cwd: string) => resolveConfig({ document: { service: { start: 'node server.js', cwd }, scenarios: ['GET /'] } }).service;
  const trees = (dir: string) => ({ base: { side: 'base' as const, root: join(dir, 'b'), ref: 'b', sha: 'b', dirty: false }, head: { side: 'head' as const, root: join(dir, 'h'), ref: 'h', sha: 'h', dirty: false } });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };

  test('a service in a subdirectory: the lockfile beside it, named from the repository root; unchanged, none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-lock-'));
    const lock = (version: string) => readFileSync(join(FIXTURES, 'lockfiles', `find-my-way-${version}`, 'package-lock.json'), 'utf8');
    write(join(dir, 'b', 'api', 'package-lock.json'), lock('8.1.0'));
    write(join(dir, 'h', 'api', 'package-lock.json'), lock('8.2.2'));
    const services = { base: service('api'), head: service('api') };
    const { dependencies, warning } = dependencyChanges(trees(dir), services);
    assert.equal(warning, null);
    assert.equal(dependencies!.lockfile, 'api/package-lock.json');
    assert.deepEqual(dependencies!.changed.map((c) => c.name), ['find-my-way', 'ret', 'safe-regex2']);
    write(join(dir, 'h', 'api', 'package-lock.json'), lock('8.1.0'));
    assert.deepEqual(dependencyChanges(trees(dir), services), { dependencies: null, warning: null });
  });

  test('a workspace: the lockfile at the repository root is found from the service below it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-lock-'));
    write(join(dir, 'b', 'package-lock.json'), readFileSync(join(FIXTURES, 'lockfiles', 'find-my-way-8.1.0', 'package-lock.json'), 'utf8'));
    write(join(dir, 'h', 'package-lock.json'), readFileSync(join(FIXTURES, 'lockfiles', 'find-my-way-8.2.2', 'package-lock.json'), 'utf8'));
    mkdirSync(join(dir, 'b', 'packages', 'api'), { recursive: true });
    mkdirSync(join(dir, 'h', 'packages', 'api'), { recursive: true });
    const { dependencies } = dependencyChanges(trees(dir), { base: service('packages/api'), head: service('packages/api') });
    assert.equal(dependencies!.lockfile, 'package-lock.json');
  });

  test('a changed lockfile perfgate cannot read is a warning, not a failure: npm, pnpm and yarn; unchanged, nothing to say', () => {
    const services = { base: service('.'), head: service('.') };
    const cases: [string, string, string, RegExp][] = [
      ['package-lock.json', '{}', '{ "lockfileVersion": 3, "packages": {', /head's package-lock\.json is not valid JSON/],
      ['pnpm-lock.yaml', "lockfileVersion: '9.0'\n", "lockfileVersion: '9.0'\npackages:\n  a@1.0.0: {resolution: [\n", /head's pnpm-lock\.yaml is not valid YAML/],
      ['pnpm-lock.yaml', "lockfileVersion: '9.0'\n", "lockfileVersion: '5.4'\npackages: {}\n", /lockfileVersion 5\.4 \(pnpm 7 or older\)/],
      ['pnpm-lock.yaml', "lockfileVersion: '9.0'\n", '<<<<<<< HEAD\n', /head's pnpm-lock\.yaml is not a pnpm lockfile/],
      ['yarn.lock', '# yarn lockfile v1\n', '# yarn lockfile v1\n\na@^1.0.0:\n  version "1.0.0\n  resolved {\n', /head's yarn\.lock could not be parsed/],
      ['yarn.lock', '# yarn lockfile v1\n', '__metadata: [1, 2\n', /head's yarn\.lock could not be parsed/],
      ['yarn.lock', '# yarn lockfile v1\n', 'a: b\n', /head's yarn\.lock is not a yarn lockfile/],
    ];
    for (const [name, base, head, why] of cases) {
      const dir = mkdtempSync(join(tmpdir(), 'perfgate-lock-'));
      write(join(dir, 'b', name), base);
      write(join(dir, 'h', name), head);
      const broken = dependencyChanges(trees(dir), services);
      assert.equal(broken.dependencies, null, head);
      assert.equal(broken.warning!.code, 'lockfile-not-read');
      assert.match(broken.warning!.message, new RegExp(`^The pull request changes ${name.replace('.', '\\.')}, but .*so CPU time is not attributed`));
      assert.match(broken.warning!.message, why);
      write(join(dir, 'h', name), base);
      assert.deepEqual(dependencyChanges(trees(dir), services), { dependencies: null, warning: null }, `${name} unchanged: nothing to say`);
    }
  });

  test('real pnpm and yarn lockfiles in a tree: the upgrade; yarn\'s direct dependencies from package.json; a move from npm to pnpm is still a diff', () => {
    const services = { base: service('.'), head: service('.') };
    const copy = (from: string, to: string) => {
      for (const file of ['package.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock']) {
        const path = join(FIXTURES, 'lockfiles', from, file);
        if (existsSync(path)) write(join(to, file), readFileSync(path, 'utf8'));
      }
    };
    for (const [base, head, lockfile] of [
      ['pnpm-9/find-my-way-8.1.0', 'pnpm-9/find-my-way-8.2.2', 'pnpm-lock.yaml'],
      ['yarn-1/find-my-way-8.1.0', 'yarn-1/find-my-way-8.2.2', 'yarn.lock'],
      ['yarn-4/find-my-way-8.1.0', 'yarn-4/find-my-way-8.2.2', 'yarn.lock'],
      ['find-my-way-8.1.0', 'pnpm-9/find-my-way-8.2.2', 'pnpm-lock.yaml'],
    ]) {
      const dir = mkdtempSync(join(tmpdir(), 'perfgate-lock-'));
      copy(base!, join(dir, 'b'));
      copy(head!, join(dir, 'h'));
      const { dependencies, warning } = dependencyChanges(trees(dir), services);
      assert.equal(warning, null);
      assert.deepEqual(dependencies, { lockfile, changed: UPGRADE }, `${base} → ${head}`);
    }
  });

  test("a yarn workspace's package.json files: the root's and each workspace's, not node_modules'", () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-lock-'));
    write(join(dir, 'package.json'), JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }));
    write(join(dir, 'packages', 'api', 'package.json'), JSON.stringify({ name: 'api', dependencies: { fastify: '^4.0.0' } }));
    write(join(dir, 'packages', 'web', 'package.json'), JSON.stringify({ name: 'web', devDependencies: { vite: '^5.0.0' } }));
    write(join(dir, 'packages', 'api', 'node_modules', 'x', 'package.json'), JSON.stringify({ name: 'x' }));
    assert.deepEqual((projectManifests(dir) as { name: string }[]).map((m) => m.name), ['root', 'api', 'web']);
    write(join(dir, 'package.json'), JSON.stringify({ name: 'root', workspaces: { packages: ['packages/web'] } }));
    assert.deepEqual((projectManifests(dir) as { name: string }[]).map((m) => m.name), ['root', 'web']);
  });
});

describe('the package a profiled file is in', () => {
  test('the nearest package.json with a name: hoisted, nested, scoped, in pnpm\'s store; a "type" marker in lib/ is passed over; yarn PnP\'s zips by name only', () => {
    const root = mkdtempSync(join(tmpdir(), 'perfgate-pkgs-'));
    const pkg = (path: string, json: object) => {
      mkdirSync(join(root, path), { recursive: true });
      writeFileSync(join(root, path, 'package.json'), JSON.stringify(json));
    };
    pkg('node_modules/find-my-way', { name: 'find-my-way', version: '8.2.2' });
    pkg('node_modules/find-my-way/lib', { type: 'commonjs' });
    pkg('node_modules/find-my-way/node_modules/ret', { name: 'ret', version: '0.2.2' });
    pkg('node_modules/@fastify/ajv-compiler', { name: '@fastify/ajv-compiler', version: '3.6.0' });
    pkg('node_modules/.pnpm/safe-regex2@3.1.0/node_modules/safe-regex2', { name: 'safe-regex2', version: '3.1.0' });
    const resolve = packageResolver(root);
    const frame = (file: string, pkgName: string | null, category: FunctionId['category'] = 'dependency'): FunctionId => ({ name: 'f', file, line: 1, column: 1, category, package: pkgName });
    assert.deepEqual(resolve(frame('node_modules/find-my-way/lib/strategies/http-method.js', 'find-my-way')), { name: 'find-my-way', version: '8.2.2' });
    assert.deepEqual(resolve(frame('node_modules/find-my-way/node_modules/ret/lib/index.js', 'ret')), { name: 'ret', version: '0.2.2' });
    assert.deepEqual(resolve(frame('node_modules/@fastify/ajv-compiler/index.js', '@fastify/ajv-compiler')), { name: '@fastify/ajv-compiler', version: '3.6.0' });
    assert.deepEqual(resolve(frame('node_modules/.pnpm/safe-regex2@3.1.0/node_modules/safe-regex2/index.js', 'safe-regex2')), { name: 'safe-regex2', version: '3.1.0' });
    assert.deepEqual(resolve(frame(join(root, 'node_modules/find-my-way/index.js'), 'find-my-way')), { name: 'find-my-way', version: '8.2.2' }, 'an absolute path');
    assert.equal(resolve(frame('server.js', null, 'own')), null);
    // Yarn Plug'n'Play runs packages from zip archives: the name from the path, no version
    const pnp = '.yarn/cache/find-my-way-npm-8.2.2-0123abcd.zip/node_modules/find-my-way/index.js';
    assert.deepEqual(resolve(frame(pnp, 'find-my-way')), { name: 'find-my-way', version: null });
  });

  test('time by package: the innermost package frame takes the Node core and V8 code below it, and an own callback takes its own back', () => {
    let id = 0;
    const node = (fn: Partial<FunctionId> & { name: string }, self: number, children: CallNode[] = []): CallNode => {
      const full: FunctionId = { file: '', line: ++id, column: 1, category: 'native', package: null, ...fn };
      return { fn: full, key: functionKey(full), self, total: self + children.reduce((s, c) => s + c.total, 0), children, deoptReasons: [] };
    };
    const router = { file: 'node_modules/find-my-way/index.js', category: 'dependency' as const, package: 'find-my-way' };
    // http (node) → router.lookup (10) → regex exec (30, native) and → handler (own, 50) → serializer (dependency, 20)
    const root = node({ name: '(root)' }, 0, [
      node({ name: 'emit', file: 'node:events', category: 'node' }, 5, [
        node({ name: 'lookup', ...router }, 10, [
          node({ name: 'RegExp: ^/users' }, 30),
          node({ name: 'handler', file: 'server.js', category: 'own' }, 50, [
            node({ name: 'stringify', file: 'node_modules/fast-json-stringify/index.js', category: 'dependency', package: 'fast-json-stringify' }, 20),
          ]),
        ]),
      ]),
    ]);
    const tree: CallTree = { root, samples: root.total, idleSamples: 0, inlinedSamples: 0, perProfile: [root.total] };
    const versions: Record<string, string> = { 'find-my-way': '8.2.2', 'fast-json-stringify': '5.16.1' };
    const times = packageTimes(tree, (fn) => (fn.package ? { name: fn.package, version: versions[fn.package]! } : null));
    assert.deepEqual(times, [
      { name: 'find-my-way', version: '8.2.2', samples: 40 },
      { name: 'fast-json-stringify', version: '5.16.1', samples: 20 },
    ]);
  });
});

describe('the report, by package', () => {
  const own = (name: string, line: number, attributed: number): FunctionStats => ({ name, file: 'server.js', line, endLine: line + 5, column: 1, category: 'own', package: null, self: attributed, total: attributed, attributed });
  const dep = (name: string, file: string, pkg: string, self: number): FunctionStats => ({ name, file: `node_modules/${pkg}/${file}`, line: 40, column: 3, category: 'dependency', package: pkg, self, total: self });
  const side = (functions: FunctionStats[], packages: PackageTime[] | undefined) => {
    const samples = functions.reduce((s, f) => s + f.self, 0);
    const summary: ProfileSummary = { samples, idleSamples: 0, categories: { own: 0, dependency: 0, node: 0, native: 0 }, functions, functionCount: functions.length };
    return { ...summary, profiler: 'cpu-prof' as const, nodeVersion: 'v24.21.0', requests: 1000, windowMs: 1000, wallMs: 2000, processes: [], merged: 'm', inlinedSamples: 0, ...(packages && { packages }) };
  };
  /** A regressed run whose head spends 300 µs more per request in find-my-way's matchLayer; its handler grew 20 µs. */
  function run(options: { packages?: boolean; upgraded?: boolean }): Results {
    const results = resultsFromPairs(Array.from({ length: 12 }, (_, i): [number, number] => [1000 + (i % 3) * 7, 420 + (i % 4) * 5]));
    const packages = options.packages ?? true;
    results.profiles = [
      {
        scenario: 'GET /hello',
        durationMs: 1000,
        intervalUs: 1000,
        sides: {
          base: side([own('handler', 3, 100), dep('matchLayer', 'lib/layer.js', 'find-my-way', 100)], packages ? [{ name: 'find-my-way', version: '8.1.0', samples: 100 }] : undefined),
          head: side([own('handler', 3, 120), dep('matchLayer', 'lib/layer.js', 'find-my-way', 400)], packages ? [{ name: 'find-my-way', version: '8.2.2', samples: 400 }] : undefined),
        },
        files: { head: null, base: null, diff: null },
        renderMs: null,
      },
    ];
    if (options.upgraded ?? true) {
      results.dependencies = { lockfile: 'package-lock.json', changed: [{ name: 'find-my-way', base: ['8.1.0'], head: ['8.2.2'], direct: true }] };
    }
    return results;
  }

  test('most new time in an upgraded package: the headline names it with both versions and its function; a by-package table; verdicts.json says so', () => {
    const results = run({});
    const analysis = assessResults(results);
    const terminal = renderTerminal(results, analysis);
    assert.match(terminal.split('\n')[0]!, /most new time in find-my-way 8\.1\.0 → 8\.2\.2 \(changed by this PR\): matchLayer in lib\/layer\.js/);
    assert.match(terminal, /by package .*\n *package +version +base +head +change\n *find-my-way +8\.1\.0 → 8\.2\.2 +100 µs +400 µs +\+300 µs/);
    const markdown = renderMarkdown(results, analysis);
    assert.match(markdown, /\| find-my-way \| 8\.1\.0 → 8\.2\.2 \| 100 µs \| 400 µs \| \+300 µs \|/);
    const culprit = buildVerdicts(results, analysis).worst!.culprit!;
    assert.deepEqual(culprit.package, { name: 'find-my-way', base: ['8.1.0'], head: ['8.2.2'] });
    assert.equal(culprit.function, 'matchLayer');
    assert.equal(culprit.addedUs, 300);
  });

  test('with the lockfile unchanged (or results without package times) the report is exactly as without dependency attribution', () => {
    const plain = run({ packages: false, upgraded: false });
    const expected = renderTerminal(plain, assessResults(plain));
    assert.match(expected.split('\n')[0]!, /most new time in handler \(server\.js:3\)/);
    for (const results of [run({ upgraded: false }), run({ packages: false })]) {
      const analysis = assessResults(results);
      assert.equal(renderTerminal(results, analysis), expected);
      assert.equal(renderMarkdown(results, analysis), renderMarkdown(plain, assessResults(plain)));
    }
  });

  test('an upgraded package is named when it added more than any own function the PR changed, and a quarter of the added time; one an own function calls is; a package with no frames never is', () => {
    const results = run({});
    // find-my-way's time grew by 300 µs, but the handler's by far more
    results.profiles![0]!.sides.head.functions[0]!.attributed = 2000;
    results.profiles![0]!.sides.head.functions[0]!.self = 2000;
    results.profiles![0]!.sides.head.samples += 1880;
    assert.match(renderTerminal(results, assessResults(results)).split('\n')[0]!, /most new time in handler \(server\.js:3\)/);
    // the PR changed the handler: it is the handler's own change that took the time
    results.changes = { since: '0'.repeat(40), files: [{ file: 'server.js', hunks: [[4, 1]] }] };
    assert.match(renderTerminal(results, assessResults(results)).split('\n')[0]!, /most new time in handler \(server\.js:3, changed by this PR\)/);
    // the PR did not change it: it grew because of something that changed, and of that the
    // upgrade added the most; still named only from a quarter of head's added time (300 µs of 2,180 is not)
    results.changes = { since: '0'.repeat(40), files: [{ file: 'server.js', hunks: [[40, 1]] }] };
    assert.match(renderTerminal(results, assessResults(results)).split('\n')[0]!, /most new time in handler \(server\.js:3, not changed by this PR/);
    results.profiles![0]!.sides.head.functions[0]!.attributed = 500;
    results.profiles![0]!.sides.head.functions[0]!.self = 500;
    results.profiles![0]!.sides.head.samples -= 1500;
    assert.match(renderTerminal(results, assessResults(results)).split('\n')[0]!, /most new time in find-my-way 8\.1\.0 → 8\.2\.2 \(changed by this PR\)/);
    // a handler that calls the upgraded router grows by the router's time: the router is named
    const calling = run({});
    const [baseHandler, headHandler] = (['base', 'head'] as const).map((side) => calling.profiles![0]!.sides[side].functions[0]!);
    baseHandler!.attributed = 200;
    baseHandler!.into = [{ name: 'matchLayer', file: 'node_modules/find-my-way/lib/layer.js', line: 40, column: 3, category: 'dependency', package: 'find-my-way', samples: 100 }];
    headHandler!.attributed = 520;
    headHandler!.into = [{ name: 'matchLayer', file: 'node_modules/find-my-way/lib/layer.js', line: 40, column: 3, category: 'dependency', package: 'find-my-way', samples: 400 }];
    assert.match(renderTerminal(calling, assessResults(calling)).split('\n')[0]!, /most new time in find-my-way 8\.1\.0 → 8\.2\.2 \(changed by this PR\): matchLayer in lib\/layer\.js/);
    const noFrames = run({});
    for (const s of ['base', 'head'] as const) noFrames.profiles![0]!.sides[s].functions.pop();
    assert.doesNotMatch(renderTerminal(noFrames, assessResults(noFrames)).split('\n')[0]!, /find-my-way/);
  });
});

describe('packageFunctionGrowth', () => {
  const change = (base: { self: number; total: number; withNatives?: number }, head: { self: number; total: number; withNatives?: number }): FunctionChange => ({
    name: 'asString',
    file: 'node_modules/fast-json-stringify/lib/serializer.js',
    line: 101,
    column: 12,
    category: 'dependency',
    package: 'fast-json-stringify',
    baseLine: null,
    status: 'both',
    base,
    head,
    change: head.self - base.self,
    deoptReasons: [],
    attributed: null,
    attributedChange: head.self - base.self,
    into: [],
    scale: { base: 1000, head: 1000 },
    added: 1000 * (head.self - base.self),
    optimization: null,
  });

  test('self time that moved in from a regex frame below it is not new time: the growth is capped by its total', () => {
    // base: the regex frame below it held the time; head: a built-in booked to its own frame
    assert.equal(Math.round(packageFunctionGrowth(change({ self: 0.0004, total: 0.039 }, { self: 0.084, total: 0.085 }))), 46);
  });

  test('a function whose own code grew keeps its self growth, not the growth of what it calls', () => {
    assert.equal(Math.round(packageFunctionGrowth(change({ self: 0.01, total: 0.05 }, { self: 0.03, total: 0.2 }))), 20);
  });

  test('with the native frames it calls recorded: a regex below it that grew is its growth, whatever its self time did', () => {
    // asString's new regex (a V8 frame below it) costs 74 µs more per request, its own code 2.6 µs more; asNumber's own code 5.9 µs more
    const asString = packageFunctionGrowth(change({ self: 0.0012, total: 0.0015, withNatives: 0.0015 }, { self: 0.0038, total: 0.0762, withNatives: 0.0762 }));
    const asNumber = packageFunctionGrowth({ ...change({ self: 0.004, total: 0.004, withNatives: 0.004 }, { self: 0.0099, total: 0.0099, withNatives: 0.0099 }), name: 'asNumber' });
    assert.equal(Math.round(asString), 75);
    assert.equal(Math.round(asNumber), 6);
    // without withNatives (results from before it was recorded) the self growth ranks them the other way
    assert.ok(packageFunctionGrowth(change({ self: 0.0012, total: 0.0015 }, { self: 0.0038, total: 0.0762 })) < asNumber);
  });
});
