// lane: beside — its runs are A/A at alpha 0.001 or a tenfold regression; it tests when setup runs.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { IDENTICAL_CODE_ALPHA, makeRepo, passingConfig, quickConfig } from '../helpers/repo.js';

const service = { 'server.js': { copy: 'services/env-server.js' } };

test('service.setup runs before every start, and every command knows its side and start', async () => {
  const record = mkdtempSync(join(tmpdir(), 'perfgate-setup-'));
  const config = passingConfig(
    `scenarios: [GET /]\n${IDENTICAL_CODE_ALPHA}` +
      // passingConfig has no install or setup: these are appended to its service block below.
      '',
  ).replace(
    'service:\n  start: node server.js\n',
    `service:\n  start: node server.js\n  install: echo "$PERFGATE_SIDE" > "${record}/install-$PERFGATE_SIDE"\n  setup: echo "$PERFGATE_SIDE $PERFGATE_START $DB" >> "${record}/setup"\n  env: { DB: shop }\n`,
  );
  const repo = makeRepo({ ...service, 'perfgate.yml': config }, { 'README.md': 'docs only' });
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out'), '--seed', '3'], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.deepEqual(readdirSync(record).sort(), ['install-base', 'install-head', 'setup']);
  const setups = readFileSync(join(record, 'setup'), 'utf8').trim().split('\n').sort();
  // 6 start pairs (passingConfig: two blocks of 3): one setup per start of each side, with the start's number and service.env.
  const expected = ['base', 'head'].flatMap((side) => Array.from({ length: 6 }, (_, i) => `${side} ${i} shop`)).sort();
  assert.deepEqual(setups, expected);
  // The service itself was told its side and start too (env-server.js records its environment).
  const envs = readdirSync(repo)
    .filter((f) => f.startsWith('env-'))
    .map((f) => JSON.parse(readFileSync(join(repo, f), 'utf8')) as Record<string, string>);
  assert.ok(envs.length >= 12);
  assert.deepEqual(new Set(envs.map((e) => e.PERFGATE_SIDE)), new Set(['base', 'head']));
  assert.ok(envs.every((e) => /^\d+$/.test(e.PERFGATE_START!)));
});

test('a setup that fails stops the run with exit 2, names the start, and keeps what was measured', async () => {
  // Base's setup fails from its 4th start on (block 2 of passingConfig's two blocks of 3): block 1 is measured first.
  const config = passingConfig(`scenarios: [GET /]\n${IDENTICAL_CODE_ALPHA}`).replace(
    'service:\n  start: node server.js\n',
    'service:\n  start: node server.js\n  setup: |\n    test "$PERFGATE_START" -lt 3 || { echo "could not connect to server: Connection refused" >&2; exit 3; }\n',
  );
  const repo = makeRepo({ ...service, 'perfgate.yml': config }, { 'README.md': 'docs only' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '3'], repo);
  assert.equal(run.code, 2, run.stderr + run.stdout);
  assert.match(run.stderr, /service\.setup failed before start 3 \(PERFGATE_START=3\) of (base|head): `.*` exited with code 3/);
  assert.match(run.stderr, /Connection refused/, 'the end of the setup log is shown');
  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'failed');
  assert.equal(results.scenarios[0]!.pairs.length, 3, 'the first block, measured before the failure, is kept');
});

test("base is installed, set up and started as base's perfgate.yml says: a pull request's install cannot slow base down", async () => {
  const work = (iterations: number) => ({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': JSON.stringify({ iterations }) });
  // Head does ten times the work (an honest regression) and adds an install command that, run in
  // base's tree, would make base a hundred times slower, so that head would pass as an improvement.
  const sabotage = `test "$PERFGATE_SIDE" = base && echo '{"iterations": 2000000}' > work.json || true`;
  const base = quickConfig('scenarios: [GET /work]\n');
  const head = base.replace('service:\n  start: node server.js\n', `service:\n  start: node server.js\n  install: ${JSON.stringify(sabotage)}\n`);
  const repo = makeRepo({ ...work(20_000), 'perfgate.yml': base }, { ...work(200_000), 'perfgate.yml': head });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '9'], repo);
  assert.equal(run.code, 1, `the honest regression fails the build\n${run.stderr}${run.stdout}`);
  const results = readResults(join(out, 'results.json'));
  const changed = results.warnings.find((w) => w.code === 'config-changed');
  assert.ok(changed, 'the report says the pull request changed the configuration');
  assert.match(changed.message, /service\.install none → ".*PERFGATE_SIDE.*" \(each side ran its own\)/);
});
