// lane: beside — init and plan put no timed load.
/**
 * `perfgate init` on services written with real frameworks at current versions (express 5,
 * fastify 5, koa 3 with @koa/router; express 4 is in test/integration/init.test.ts): it reads the
 * routes they register while it runs them once, writes them as scenarios, asks each GET route and
 * marks the ones that do not answer 2xx; `perfgate plan` asks the scenarios' routes the same way
 * and stops on a broken one. The frameworks are installed once with `npm ci` from
 * test/fixtures/frameworks' lockfile, and every test repository links that node_modules.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { loadConfigFile, resolveConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/cli.js';
import { alive, processesIn } from '../helpers/processes.js';
import { FIXTURES, makeRepo } from '../helpers/repo.js';

const FRAMEWORKS = join(FIXTURES, 'frameworks');
let nodeModules = '';

before(() => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-frameworks-'));
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(FRAMEWORKS, file), join(dir, file));
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: 'pipe', timeout: 300_000 });
  nodeModules = join(dir, 'node_modules');
});

/** A repository whose service is `app` of test/fixtures/frameworks, started by `npm start`. */
function appRepo(app: string, extra: Record<string, string> = {}): string {
  const pkg = JSON.parse(readFileSync(join(FRAMEWORKS, 'package.json'), 'utf8'));
  const repo = makeRepo(
    {
      '.gitignore': 'node_modules\nservice.pid\n',
      'package.json': JSON.stringify({ ...pkg, scripts: { start: `node ${app}` } }, null, 2),
      'package-lock.json': { copy: 'frameworks/package-lock.json' },
      [app]: { copy: `frameworks/${app}` },
      ...extra,
    },
    {},
  );
  symlinkSync(nodeModules, join(repo, 'node_modules'), 'dir');
  return repo;
}

function servicePid(repo: string): number {
  return Number(readFileSync(join(repo, 'service.pid'), 'utf8'));
}

/** Nothing init or plan started in `repo` is running. */
function nothingLeft(repo: string, what: string): void {
  assert.equal(alive(servicePid(repo)), false, `the service ${what} started was stopped`);
  assert.deepEqual(processesIn(repo), [], `no process of ${what} is left in ${repo}`);
}

async function init(repo: string): Promise<{ stdout: string; text: string; scenarios: string[] }> {
  const run = await runCli(['init'], repo);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  nothingLeft(repo, 'init');
  const text = readFileSync(join(repo, 'perfgate.yml'), 'utf8');
  const config = resolveConfig(loadConfigFile(join(repo, 'perfgate.yml'), { required: true })!);
  return { stdout: run.stdout, text, scenarios: config.scenarios.map((s) => s.name) };
}

test('express 5: the registered routes become scenarios, parameters filled, a 404 route marked; plan passes, then stops on the 404 route', async () => {
  const repo = appRepo('express.js');
  const { stdout, text, scenarios } = await init(repo);
  assert.match(stdout, /^ {2}routes {6}express: 4 to ask \(GET, once each\), 2 not asked$/m);
  assert.match(stdout, /^ {14}ask {3}GET \/api\/orders\/1 +\(\/api\/orders\/:orderId\)$/m);
  assert.match(stdout, /^ {14}skip {2}GET \/files\/\*path +a wildcard$/m);
  assert.match(stdout, /^ {14}skip {2}POST \/users +POST changes data: written commented out, for you to give it a body$/m);
  assert.match(stdout, /^ {14}GET \/users\/1 +200 "\{"id":1,/m);
  assert.match(stdout, /^ {14}GET \/api\/orders\/1 +404 "\{"error":"order 1 not found"\}"$/m);
  // the routes that answered are measured; the health route is the ready check
  assert.deepEqual(scenarios, ['GET /users', 'GET /users/1']);
  assert.match(text, /^ {4}path: \/health # answered 200/m);
  assert.match(text, /^ {2}- GET \/users\/1 # answered 200 when init asked; :id filled with 1: a value of yours measures better$/m);
  // the route under the mounted router, with its prefix, answered 404: marked and left out, with what it said
  assert.match(
    text,
    /^ {2}# - GET \/api\/orders\/1 # answered 404 "\{"error":"order 1 not found"\}" when init asked: fix the path \(:orderId filled with 1\), or measure it as it answers: \{ method: GET, path: \/api\/orders\/1, expect: \[404\] \}$/m,
  );
  assert.match(text, /^ {2}# - \{ method: POST, path: \/users, body: \{\} \} # needs the body your clients send; init sends no request that changes data$/m);
  assert.doesNotMatch(text, /files/, 'the wildcard route is not written');
  assert.match(stdout, /^check {2}a route answered an error when init asked/m);
  assert.match(stdout, /GET \/api\/orders\/1 \(\/api\/orders\/:orderId\): it answered 404/);

  // what init wrote passes plan, which asks the same routes
  const plan = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^routes {3}asked once in the work tree \(what each answered\):\n {2}GET \/users {4}200 "\[\{"id":1,.*\n {2}GET \/users\/1 {2}200 "\{"id":1,/m);
  nothingLeft(repo, 'plan');

  // the user measures the order route as it is: plan names it, its status, its body and the fix
  writeFileSync(join(repo, 'perfgate.yml'), text.replace('  # - GET /api/orders/1 #', '  - GET /api/orders/1 #'));
  const broken = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(broken.code, 2, broken.stdout);
  assert.match(
    broken.stderr,
    /Scenario "GET \/api\/orders\/1" \(GET \/api\/orders\/1\) fails in head's work tree: it answered 404 "\{"error":"order 1 not found"\}"\. perfgate expects a 2xx status\. Fix the path, method, headers or body in perfgate\.yml, or declare the statuses this route answers with expect: \(e\.g\. expect: \[404\]\)\./,
  );
  const [messages, answered] = broken.stderr.split("What each scenario's route answered in head's work tree:");
  assert.doesNotMatch(messages!, /GET \/users/, 'only the broken route is named');
  assert.match(answered!, /^ {2}GET \/users {2}200 "\[/m, 'what every route answered follows');
  assert.equal(broken.stdout, '', 'no plan is printed for a configuration that cannot run');
  nothingLeft(repo, 'the plan that failed');
  // --no-probe skips the check
  const skipped = await runCli(['plan', '--base', 'main', '--no-probe'], repo);
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.match(skipped.stdout, /^routes {3}not asked \(--no-probe\)$/m);
});

test('fastify 5 (an ES module): routes under a plugin prefix, DELETE written commented out, the wildcard left out', async () => {
  const repo = appRepo('fastify.mjs');
  const { stdout, text, scenarios } = await init(repo);
  assert.match(stdout, /^ {2}routes {6}fastify: 3 to ask \(GET, once each\), 2 not asked$/m);
  assert.deepEqual(scenarios, ['GET /v1/items', 'GET /v1/items/1']);
  assert.match(text, /^ {2}# - \{ method: DELETE, path: \/v1\/items\/1 \} # deletes on every request of the load; init sends none; :id filled with 1$/m);
  assert.match(stdout, /^ {14}skip {2}GET \/static\/\* +a wildcard$/m);
  assert.doesNotMatch(stdout, /^check/m, 'every GET route answered');
});

test('koa 3 with @koa/router: routes of a nested router with its prefix; a 401 route marked with what it answered', async () => {
  const repo = appRepo('koa.js');
  const { stdout, text, scenarios } = await init(repo);
  assert.match(stdout, /^ {2}routes {6}koa: 3 to ask \(GET, once each\), 1 not asked$/m);
  assert.deepEqual(scenarios, ['GET /', 'GET /products/1']);
  assert.match(text, /^ {2}# - GET \/admin\/stats # answered 401 "log in first" when init asked: fix the path, or measure it as it answers: \{ method: GET, path: \/admin\/stats, expect: \[401\] \}$/m);
  assert.match(text, /^ {2}# - \{ method: PUT, path: \/products\/1, body: \{\} \} # needs the body your clients send/m);
});

test('plain http: no routes to read, init says so; a GET / that answers 404 is written marked, and plan stops on it', async () => {
  const repo = makeRepo(
    {
      '.gitignore': 'service.pid\n',
      'package.json': JSON.stringify({ name: 'raw', scripts: { start: 'node server.js' } }),
      'server.js':
        "require('node:fs').writeFileSync(__dirname + '/service.pid', String(process.pid));\n" +
        "require('node:http').createServer((req, res) => { res.statusCode = req.url === '/api/ping' ? 200 : 404; res.end(req.url === '/api/ping' ? 'pong' : 'Not Found'); }).listen(3000);\n",
    },
    {},
  );
  const run = await runCli(['init'], repo);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^ {2}routes {6}none read: no express, fastify or koa \(@koa\/router, koa-router\) routes \(plain http, or a framework init cannot read\)/m);
  assert.match(readFileSync(join(repo, 'perfgate.yml'), 'utf8'), /^ {2}- GET \/ # no probed path answered 2xx \(\/health 404, \/healthz 404, \/ready 404, \/ 404\): replace it with a route of yours$/m);
  const plan = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(plan.code, 2, plan.stdout);
  assert.match(plan.stderr, /Scenario "GET \/" \(GET \/\) fails in head's work tree: it answered 404 "Not Found"\. perfgate expects a 2xx status\. Fix the path/);
  nothingLeft(repo, 'the plan that failed');
  // a route declared with the status it answers passes
  writeFileSync(join(repo, 'perfgate.yml'), 'service: { start: npm start }\nscenarios: [{ method: GET, path: /, expect: [404] }, GET /api/ping]\n');
  const declared = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(declared.code, 0, declared.stderr);
  assert.match(declared.stdout, /^routes {3}asked once in the work tree \(what each answered\):\n {2}GET \/ {10}404 "Not Found"\n {2}GET \/api\/ping {2}200 "pong"$/m);
});

test('plan on a work tree whose service does not start: exit 2, why, its output, and the two ways on', async () => {
  const repo = makeRepo(
    {
      'server.js': "console.error('Error: Cannot find module \\'express\\''); process.exit(1);\n",
      'perfgate.yml': 'service: { start: node server.js }\nscenarios: [GET /]\n',
    },
    {},
  );
  const plan = await runCli(['plan', '--base', 'main'], repo);
  assert.equal(plan.code, 2, plan.stdout);
  assert.match(plan.stderr, /plan starts the service once in the work tree \(.*\) to check the scenarios' routes: `node server\.js` exited before it was ready\./);
  assert.match(plan.stderr, /Install the dependencies there, .* or skip this check with --no-probe\./);
  assert.match(plan.stderr, /Cannot find module 'express'/, "the service's output");
  assert.deepEqual(processesIn(repo), []);
  const skipped = await runCli(['plan', '--base', 'main', '--no-probe'], repo);
  assert.equal(skipped.code, 0, skipped.stderr);
});
