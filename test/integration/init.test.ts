// lane: beside — init and plan put no timed load.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadConfigFile, resolveConfig } from '../../src/config/load.js';
import { matchFiles } from '../../src/engine/phases/bench/glob.js';
import { actionlintFound, runActionlint } from '../helpers/actionlint.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, ROOT } from '../helpers/repo.js';
import { alive } from '../helpers/processes.js';

/** An express service that writes its pid, so the test can tell whether init left it running. */
const expressServer = `const express = require('express');
require('node:fs').writeFileSync(require('node:path').join(__dirname, 'service.pid'), String(process.pid));
const app = express();
app.get('/health', (req, res) => res.send('ok'));
app.get('/', (req, res) => res.json({ hello: 'world' }));
app.listen(3000);
`;

const tinybenchSuite = `const { Bench } = require('tinybench');
const bench = new Bench({ time: 50 });
bench.add('JSON.parse', () => JSON.parse('{"a":[1,2,3]}'));
bench.run().then(() => console.table(bench.table()));
`;

/** A repository with the project's node_modules linked in (express, tinybench), ignored by git. */
function repoWith(files: Record<string, string>): string {
  const repo = makeRepo({ '.gitignore': 'node_modules\nservice.pid\n', ...files }, {});
  symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
  return repo;
}

test('init on an express service: finds the start script, the lockfile, the benchmark suite and the health route; writes both files once', async () => {
  const repo = repoWith({
    'package.json': JSON.stringify({ name: 'shop', scripts: { start: 'node server.js' }, dependencies: { express: '*' }, devDependencies: { tinybench: '*' } }),
    'package-lock.json': '{"lockfileVersion":3}\n',
    'server.js': expressServer,
    'bench/parse.bench.js': tinybenchSuite,
    'bench/fixtures.js': 'module.exports = { text: "{}" };\n',
  });
  const run = await runCli(['init'], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /service +npm start +\(package\.json scripts\.start: node server\.js\)/);
  assert.match(run.stdout, /install +npm ci +\(package-lock\.json\)/);
  assert.match(run.stdout, /benchmarks +bench\/\*\*\/\*\.bench\.js +\(1 suite: bench\/parse\.bench\.js \(tinybench\)\)/);
  // express 4 (the project's own): its routes are read too, and listed before the first request
  assert.match(run.stdout, /^ {2}routes {6}express: 2 to ask \(GET, once each\), 0 not asked\n {14}ask {3}GET \/health\n {14}ask {3}GET \/\n {14}ask {3}GET \/healthz, GET \/ready {3}\(the usual health and root paths\)\n {2}answers /m);
  // every answer quoted, 2xx included
  assert.match(run.stdout, /^ {2}answers {5}GET \/health {3}200 "ok"$/m);
  assert.match(run.stdout, /^ {14}GET \/healthz {2}404 "Cannot GET \/healthz"$/m);
  assert.match(run.stdout, /^ {14}GET \/ {9}200 "\{"hello":"world"\}"$/m);
  assert.match(run.stdout, /^wrote {2}perfgate\.yml/m);
  assert.match(run.stdout, /^wrote {2}\.github\/workflows\/perf\.yml/m);
  assert.match(run.stdout, /next +npx perfgate plan/);

  // the probe's service is gone: it was started, answered, and was stopped
  const pid = Number(readFileSync(join(repo, 'service.pid'), 'utf8'));
  assert.ok(pid > 0);
  assert.equal(alive(pid), false, 'the probed service was stopped');

  // the config loads with perfgate's own loader and says what was found
  const loaded = loadConfigFile(join(repo, 'perfgate.yml'), { required: true })!;
  const config = resolveConfig(loaded);
  assert.equal(config.service.start, 'npm start');
  assert.equal(config.service.ready.path, '/health');
  assert.deepEqual(config.scenarios.map((s) => s.name), ['GET /']);
  assert.deepEqual(config.benchmarks?.files, ['bench/**/*.bench.js']);
  assert.deepEqual(matchFiles(repo, config.benchmarks!.files), ['bench/parse.bench.js'], 'the glob matches the suite, not its helper');
  const text = readFileSync(join(repo, 'perfgate.yml'), 'utf8');
  assert.match(text, /start: npm start # package\.json scripts\.start: node server\.js/);
  assert.match(text, /# install: chosen from the lockfile \(npm ci\)/);

  // the workflow: two jobs, the measuring one without a write token, the comment one in report mode
  const workflowPath = join(repo, '.github', 'workflows', 'perf.yml');
  const workflow = parse(readFileSync(workflowPath, 'utf8'));
  assert.deepEqual(workflow.jobs.measure.permissions, { contents: 'read' });
  assert.equal(workflow.jobs.measure.steps.at(-1).uses, 'perfgate/perfgate@v1');
  assert.equal(workflow.jobs.comment.steps[0].with.mode, 'report');
  if (actionlintFound) {
    const lint = runActionlint([workflowPath]);
    assert.equal(lint.status, 0, lint.output);
  }

  // a second run overwrites nothing and prints what it would have written
  writeFileSync(join(repo, 'perfgate.yml'), `${text}# edited by hand\n`);
  const workflowText = readFileSync(workflowPath, 'utf8');
  const again = await runCli(['init', '--no-probe'], repo);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^kept {3}perfgate\.yml: it exists, and init never overwrites a file/m);
  assert.match(again.stdout, /^kept {3}\.github\/workflows\/perf\.yml: it exists/m);
  assert.match(again.stdout, /^--- perfgate\.yml as init would write it/m);
  assert.equal(readFileSync(join(repo, 'perfgate.yml'), 'utf8'), `${text}# edited by hand\n`);
  assert.equal(readFileSync(workflowPath, 'utf8'), workflowText);

  // the written config is usable: perfgate plan checks it and prints the plan
  const plan = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^service {2}`npm start` in \.; install npm ci$/m);
  assert.match(plan.stdout, /^ready {4}when \/health answers 2xx/m);
  assert.match(plan.stdout, /^ {2}GET \/ +·/m);
  assert.match(plan.stdout, /^routes {3}asked once in the work tree \(what each answered\):\n {2}GET \/ {2}200 "\{"hello":"world"\}"$/m);
  assert.match(plan.stdout, /^ {2}benchmarks ~/m);
});

test('express 4, no route of the app answers 2xx: the first is measured as it answered, marked, and plan stops on it', async () => {
  const repo = repoWith({
    'package.json': JSON.stringify({ name: 'orders', scripts: { start: 'node server.js' } }),
    'server.js': `const express = require('express');
require('node:fs').writeFileSync(require('node:path').join(__dirname, 'service.pid'), String(process.pid));
const app = express();
app.get('/health', (_req, res) => res.send('ok'));
const orders = express.Router();
orders.get('/:id', (req, res) => res.status(404).send(\`no order \${req.params.id}\`));
orders.get('/', (_req, res) => res.status(401).send('log in first'));
app.use('/orders', orders);
app.listen(3000);
`,
  });
  const run = await runCli(['init'], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /^check {2}2 routes answered an error when init asked; perfgate\.yml marks them with the answer \(the first one measured, as nothing else answered well: perfgate plan stops on it until it is fixed\):$/m);
  assert.match(run.stdout, /^ {7}GET \/orders\/1 \(\/orders\/:id\): it answered 404 "no order 1"$/m);
  assert.match(run.stdout, /^ {7}give it a path that answers \(a value that exists instead of the 1 init filled in\), or declare the status it answers with expect:$/m);
  const text = readFileSync(join(repo, 'perfgate.yml'), 'utf8');
  assert.match(text, /^ {2}- GET \/orders\/1 # answered 404 "no order 1" when init asked: fix the path \(:id filled with 1\)/m);
  assert.match(text, /^ {2}# - GET \/orders # answered 401 "log in first" when init asked/m);
  assert.equal(alive(Number(readFileSync(join(repo, 'service.pid'), 'utf8'))), false, 'the service init started was stopped');
  const plan = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(plan.code, 2, plan.stdout);
  assert.match(plan.stderr, /Scenario "GET \/orders\/1" \(GET \/orders\/1\) fails in head's work tree: it answered 404 "no order 1"\. perfgate expects a 2xx status\./);
  assert.equal(alive(Number(readFileSync(join(repo, 'service.pid'), 'utf8'))), false, 'the service plan started was stopped');
});

test('init writes only the missing file; pnpm gets corepack in the workflow; flags are written as given', async () => {
  const repo = repoWith({
    'package.json': JSON.stringify({ name: 'api', main: 'app.js', packageManager: 'pnpm@9.0.0' }),
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'app.js': "require('node:http').createServer((req, res) => { res.statusCode = req.url === '/items' ? 200 : 404; res.end(); }).listen(8080);\n",
    '.nvmrc': '22\n',
    '.github/workflows/perf.yml': '# mine\n',
  });
  const run = await runCli(['init', '--scenarios', 'GET /items', '--ready-timeout', '10s'], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /service +node app\.js +\(package\.json main \(no start script\)\)/);
  assert.match(run.stdout, /^ {2}answers {5}GET \/health {3}404 with an empty body\n {14}GET \/healthz {2}404 with an empty body\n {14}GET \/ready {4}404 with an empty body\n {14}GET \/ {9}404 with an empty body$/m);
  assert.match(run.stdout, /^ {2}routes {6}none read: no express, fastify or koa/m, 'plain http registers no routes to read');
  assert.match(run.stdout, /^kept {3}\.github\/workflows\/perf\.yml/m);
  assert.equal(readFileSync(join(repo, '.github', 'workflows', 'perf.yml'), 'utf8'), '# mine\n');
  assert.match(run.stdout, /- run: corepack enable/, 'the workflow init would write, printed');
  assert.match(run.stdout, /node-version-file: \.nvmrc/);
  const config = resolveConfig(loadConfigFile(join(repo, 'perfgate.yml'), { required: true })!);
  assert.equal(config.service.start, 'node app.js');
  assert.deepEqual(config.scenarios.map((s) => s.name), ['GET /items']);
  assert.equal(config.service.ready.timeoutMs, 10_000);
  assert.equal(config.service.ready.path, null, 'no health route answered');
});

test('init without a start command says how to give one, and writes nothing', async () => {
  const repo = repoWith({ 'package.json': JSON.stringify({ name: 'lib', scripts: { test: 'node --test' } }) });
  const run = await runCli(['init'], repo);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /init found no command that starts the service in .*: package\.json has no "start" script/);
  assert.match(run.stderr, /npx perfgate init --start "node src\/server\.js"/);
  assert.equal(existsSync(join(repo, 'perfgate.yml')), false);
  assert.equal(existsSync(join(repo, '.github')), false);
});

test('a guessed start that never listens: the probe stops it, says why, and nothing is written', async () => {
  const repo = repoWith({
    'package.json': JSON.stringify({ name: 'worker' }),
    'index.js': "require('node:fs').writeFileSync(__dirname + '/service.pid', String(process.pid));\nconsole.log('polling a queue');\nsetInterval(() => {}, 1000);\n",
  });
  const run = await runCli(['init', '--ready-timeout', '2s'], repo);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /init started the service to find its routes \(index\.js exists \(no start script\)\): `node index\.js` did not listen on a port within 2 s/);
  assert.match(run.stderr, /--start "<command>".*--no-probe/);
  assert.match(run.stderr, /polling a queue/, "the service's output");
  assert.equal(alive(Number(readFileSync(join(repo, 'service.pid'), 'utf8'))), false, 'the service was stopped');
  assert.equal(existsSync(join(repo, 'perfgate.yml')), false);
});
