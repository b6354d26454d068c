// lane: beside — it tests messages, kept pairs and clean-up when a service fails, with no verdict drawn from the load.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { ServiceError } from '../../src/engine/errors.js';
import { runCompare } from '../../src/engine/run.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { engineRequest } from '../helpers/engine.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';
import { alive } from '../helpers/processes.js';

const ports = (env: Record<string, string | undefined> = process.env, secrets: string[] = []) => ({
  logger: { info() {}, warn() {}, debug() {} },
  progress() {},
  env,
  secrets,
});

test('a service that never becomes ready: clear error with the log tail, within the timeout, nothing left running', async () => {
  const config = quickConfig('scenarios: [GET /]').replace('timeout: 10s', 'timeout: 2s');
  const repo = makeRepo({ 'server.js': { copy: 'services/never-ready.js' }, 'perfgate.yml': config }, {});
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out')], repo);
  const seconds = (Date.now() - started) / 1000;
  assert.equal(run.code, 2);
  assert.match(run.stderr, /not ready within 2 s/);
  assert.match(run.stderr, /booting… waiting for a database that never comes/, 'log tail shown');
  assert.match(run.stderr, /If it takes longer than 2 s to start, raise service\.ready\.timeout in perfgate\.yml/, 'says what to raise');
  assert.match(run.stderr, /a program in another language must listen on \$PORT itself/, 'and where the port comes from');
  assert.ok(seconds < 20, `gave up in ${seconds} s`);
  // every service process that started is gone (each wrote its pid into the repository folder)
  const pids = readdirSync(repo)
    .filter((f) => f.startsWith('pid-'))
    .map((f) => Number(readFileSync(join(repo, f), 'utf8')));
  assert.ok(pids.length >= 1, 'the fixture started');
  for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} was left running`);
});

test("a service that dies at start with its cause above a long dump: the message shows the log's end and the first error with its stack", async () => {
  // As a database driver does: the error that names the cause, then pages of the failed
  // connection's state, the last lines of the log.
  const server = [
    "function connect() { throw new Error('Connection terminated unexpectedly'); }",
    'try { connect(); } catch (error) {',
    '  console.error(error);',
    "  for (let i = 0; i < 40; i++) console.error('  _connectionState' + i + ': { pending: ' + i + ', queue: [] },');",
    '  process.exit(1);',
    '}',
  ].join('\n');
  // One start per side: the starts of a side share its log, and a second one dying beside the
  // first would write its lines among the first one's.
  const config = quickConfig('scenarios: [GET /]').replace('blocks: 2', 'blocks: 1').replace('instances: 12', 'instances: 1');
  const repo = makeRepo({ 'server.js': `${server}\n`, 'perfgate.yml': config }, {});
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out')], repo);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /service exited with code 1 before it was ready/);
  assert.match(run.stderr, /_connectionState39/, "the log's last lines");
  assert.match(run.stderr, /--- the first error in the log, line \d+ ---\nError: Connection terminated unexpectedly\n {4}at connect \(.*server\.js:1:\d+\)/, 'the cause, with its stack');
});

test('a program that listens on a port of its own, already taken: the message says each start gets $PORT', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  try {
    // perfgate's preload moves a Node process's listen() to $PORT; without it (NODE_OPTIONS
    // cleared), this is any program that binds the port it was written for.
    const config = quickConfig('scenarios: [GET /]').replace('start: node server.js', 'start: env -u NODE_OPTIONS node server.js');
    const server = `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1');\n`;
    const repo = makeRepo({ 'server.js': server, 'perfgate.yml': config }, {});
    const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out')], repo);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /EADDRINUSE/, 'the log says why');
    assert.match(run.stderr, /Each start gets a port of its own in \$PORT: .* must listen on \$PORT itself/);
  } finally {
    taken.close();
  }
});

test('a start command that fails at once is reported after the first starts, not after every setup and start of the block', async () => {
  // Each setup takes 300 ms and counts itself: the block has 12 starts per side.
  const config = quickConfig('scenarios: [GET /]')
    .replace('start: node server.js', 'start: node sever.js\n  setup: echo start >> ../setups.txt && sleep 0.3');
  const repo = makeRepo({ 'server.js': "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n", 'perfgate.yml': config }, {});
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out')], repo);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /service exited with code 1 before it was ready/);
  assert.match(run.stderr, /Cannot find module '.*sever\.js'/);
  // Both sides' setups count in one file beside their trees.
  const setups = readFileSync(join(repo, '.out', 'trees', 'setups.txt'), 'utf8').trim().split('\n');
  assert.ok(setups.length > 0 && setups.length <= 4, `${setups.length} setups ran before the failure was said (the block has 24 starts)`);
});

test('a service crashing mid-run: clear error, results.json keeps the finished pairs', async () => {
  // 8 starts per side, 5 pairs each: a start pair's turn (about 2 s) ends before its head crashes
  // (4 s after its first request), so the first head dies while it waits idle for the block's end.
  // That crash counts as much as one under load: the run stops at the next pair.
  const config = quickConfig('scenarios: [GET /]').replace('pairs: 12', 'pairs: 40').replace('blocks: 2', 'blocks: 1').replace('instances: 12', 'instances: 8');
  const repo = makeRepo(
    { 'server.js': { copy: 'services/crash-server.js' }, 'crash.json': '{"crash": false}', 'perfgate.yml': config },
    { 'crash.json': '{"crash": true}' },
  );
  const out = join(repo, '.out');
  // The run's temporary files go to a directory of its own, so what it leaves there is its own.
  const ownTmp = mkdtempSync(join(tmpdir(), 'crash-run-'));
  const sharedTmp = process.env.TMPDIR;
  process.env.TMPDIR = ownTmp;
  const run = await runCli(['compare', '--base', 'main', '--out', out], repo).finally(() => {
    if (sharedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = sharedTmp;
  });
  assert.equal(run.code, 2, run.stdout);
  // the starts still running when it failed were stopped with their health sockets' directories
  assert.deepEqual(readdirSync(ownTmp), [], 'nothing left in the temporary directory');
  assert.match(run.stderr, /head service exited with code 13/);
  assert.match(run.stderr, /FATAL: simulated crash/);
  assert.match(run.stderr, /kept in .*results\.json/);
  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'failed');
  assert.match(results.error ?? '', /exited with code 13/);
  const pairs = results.scenarios[0]!.pairs.length;
  assert.ok(pairs >= 1 && pairs < 40, `kept ${pairs} finished pairs`);
  // and the saved partial run still renders
  const report = await runCli(['report', join(out, 'results.json')], repo);
  assert.match(report.stdout, /incomplete|did not finish/i);
});

test('no token reaches the service: GITHUB_TOKEN, INPUT_*, ACTIONS_* and any variable holding the token are removed', async () => {
  const token = 'ghs_s3cretTokenValue1234567890';
  const env = {
    ...process.env,
    GITHUB_TOKEN: token,
    'INPUT_GITHUB-TOKEN': token,
    INPUT_START: 'node server.js',
    ACTIONS_RUNTIME_TOKEN: 'runtime-token-abcdefgh',
    ACTIONS_RESULTS_URL: 'http://127.0.0.1:1/',
    MY_DEPLOY_KEY: `prefix-${token}`,
    HARMLESS: 'kept',
  };
  const config = quickConfig('scenarios: [GET /]').replace('pairs: 12', 'pairs: 6').replace('blocks: 2', 'blocks: 1');
  const repo = makeRepo({ 'server.js': { copy: 'services/env-server.js' }, 'perfgate.yml': config }, {});
  await runCompare(await engineRequest(repo), ports(env, [token]));
  const dumps = readdirSync(repo).filter((f) => f.startsWith('env-'));
  assert.ok(dumps.length >= 1, 'the service wrote its environment');
  for (const file of dumps) {
    const text = readFileSync(join(repo, file), 'utf8');
    assert.equal(text.includes(token), false, 'token value leaked');
    const seen = JSON.parse(text);
    for (const name of ['GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN', 'INPUT_START', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RESULTS_URL', 'MY_DEPLOY_KEY']) {
      assert.equal(name in seen, false, `${name} reached the service`);
    }
    assert.equal(seen.HARMLESS, 'kept');
    assert.equal(seen.NODE_ENV, 'production');
  }
});

test('a bad configuration stops before any service starts, naming the key and what is allowed', async () => {
  const repo = makeRepo(
    {
      'server.js': { copy: 'services/work-server.js' },
      'work.json': '{"iterations": 1}',
      'perfgate.yml': 'service:\n  start: node server.js\nscenarios:\n  - method: FETCH\n    path: /x\nload:\n  pairs: many\n',
    },
    {},
  );
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out')], repo);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /scenarios\[0\]\.method/);
  assert.match(run.stderr, /FETCH/);
  assert.match(run.stderr, /GET/);
  assert.match(run.stderr, /load\.pairs/);
});

test('engine errors are typed: ServiceError carries the log tail', async () => {
  // 3 s: beside a busy neighbour, node took over a second to print its first line
  const config = quickConfig('scenarios: [GET /]').replace('timeout: 10s', 'timeout: 3s');
  const repo = makeRepo({ 'server.js': { copy: 'services/never-ready.js' }, 'perfgate.yml': config }, {});
  await assert.rejects(
    runCompare(await engineRequest(repo), ports()),
    (e: unknown) => e instanceof ServiceError && e.logTail.includes('booting'),
  );
});
