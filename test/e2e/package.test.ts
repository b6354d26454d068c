// lane: beside — its verdicts come from tenfold changes or A/A at alpha 0.001; it tests what the action does with them.
// The package as a user gets it: `npm pack`, installed into a fresh project of their own, and
// `npx perfgate` run there. Nothing of this repository's node_modules or sources is used.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeRepo, quickConfig, ROOT } from '../helpers/repo.js';

interface Packed {
  filename: string;
  files: { path: string }[];
}

test('the packed tarball installs into a fresh project; npx perfgate plan and compare run there end to end', async (t) => {
  const packDir = mkdtempSync(join(tmpdir(), 'perfgate-pack-'));
  t.after(() => rmSync(packDir, { recursive: true, force: true }));
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: ROOT, encoding: 'utf8' })) as Packed[];
  const files = packed!.files.map((f) => f.path);
  for (const file of ['dist/cli.js', 'dist/index.js', 'dist/post.js', 'dist/preload.cjs', 'dist/health.cjs', 'dist/counters.cjs', 'dist/routes.cjs', 'action.yml', 'perfgate.schema.json', 'docs/verdicts.schema.json', 'README.md']) {
    assert.ok(files.includes(file), `${file} is in the package`);
  }
  assert.deepEqual(
    files.filter((f) => /^(src|test|bench|scripts)\//.test(f)),
    [],
    'no sources, tests or benchmarks in the package',
  );

  // A user's service: head does ten times the work per request. perfgate is installed from
  // the tarball without touching package.json (as `npm install -D` would, minus the commit);
  // the service needs no install of its own.
  const iterations = (n: number) => JSON.stringify({ iterations: n });
  const repo = makeRepo(
    {
      'package.json': JSON.stringify({ name: 'shop', private: true, scripts: { start: 'node server.js' } }, null, 2),
      '.gitignore': 'node_modules/\n.perfgate/\n',
      'server.js': { copy: 'services/work-server.js' },
      'work.json': iterations(20_000),
      'perfgate.yml': `# yaml-language-server: $schema=./node_modules/perfgate/perfgate.schema.json\n${quickConfig('scenarios: [GET /work]').replace('service:\n', 'service:\n  install: false\n')}`,
    },
    { 'work.json': iterations(200_000) },
  );
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  const install = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', join(packDir, packed!.filename)], {
    cwd: repo,
    encoding: 'utf8',
  });
  assert.equal(install.status, 0, install.stderr);
  // A light install: everything perfgate runs is bundled into dist/, so the package brings (almost)
  // nothing else along, and no dependency asks for a newer Node than perfgate's engines allow.
  const installed = installedPackages(join(repo, 'node_modules'));
  const megabytes = installed.bytes / 1e6;
  t.diagnostic(`npm install of the tarball (Node ${process.version}): ${installed.names.length} packages, ${megabytes.toFixed(1)} MB`);
  assert.ok(installed.names.length <= 30, `at most 30 packages installed, got ${installed.names.length}: ${installed.names.join(', ')}`);
  assert.ok(megabytes <= 20, `at most 20 MB installed, got ${megabytes.toFixed(1)} MB`);
  assert.doesNotMatch(install.stderr, /EBADENGINE/, 'no dependency needs a newer Node than perfgate');
  // the schema path the README gives for editor completion exists in the install
  assert.ok(existsSync(join(repo, 'node_modules', 'perfgate', 'perfgate.schema.json')), 'node_modules/perfgate/perfgate.schema.json');

  const npx = (...args: string[]) => spawnSync('npx', ['--no-install', 'perfgate', ...args], { cwd: repo, encoding: 'utf8', timeout: 300_000 });
  const help = npx('--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /perfgate compare/);

  const plan = npx('plan', '--base', 'main');
  assert.equal(plan.status, 0, plan.stderr + plan.stdout);
  assert.match(plan.stdout + plan.stderr, /GET \/work/);

  const out = join(repo, '.perfgate');
  const compare = npx('compare', '--base', 'main', '--out', out, '--verdicts', join(out, 'verdicts.json'));
  assert.equal(compare.status, 1, `a 3× slower head fails the gate:\n${compare.stderr}\n${compare.stdout}`);
  assert.match(compare.stdout, /GET \/work +throughput \* .*−\d+\.\d% .*✗ regression/);
  const verdicts = JSON.parse(readFileSync(join(out, 'verdicts.json'), 'utf8'));
  assert.equal(verdicts.decision, 'fail');
});

/** The packages under a node_modules folder (nested ones included) and the bytes of all its files. */
function installedPackages(nodeModules: string): { names: string[]; bytes: number } {
  const names: string[] = [];
  let bytes = 0;
  const walk = (dir: string, packageDir: boolean) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        const isPackage = packageDir && !entry.name.startsWith('@') && !entry.name.startsWith('.');
        if (isPackage) names.push(path.slice(nodeModules.length + 1));
        walk(path, entry.name === 'node_modules' || (packageDir && entry.name.startsWith('@')));
      } else if (entry.isFile()) {
        bytes += lstatSync(path).size;
      }
    }
  };
  walk(nodeModules, true);
  return { names, bytes };
}
