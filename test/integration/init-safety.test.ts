// lane: beside — init and plan put no timed load.
/**
 * `perfgate init` and `perfgate plan` on a service whose GET routes include some that write
 * (test/fixtures/db/destructive: express 5 and pg on a real PostgreSQL, test/helpers/postgres.ts):
 * the writing routes are listed as skipped, with why, before any request; none is called (the app
 * logs every request it gets); none becomes a scenario; the database keeps its tables and rows.
 * With the database down the app answers 200 {"success":false,"error":"connect ECONNREFUSED …"}:
 * init marks it and plan stops on it, the body quoted. The fixture is installed once with `npm ci`
 * from its lockfile, and each test repository links that node_modules.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { loadConfigFile, resolveConfig } from '../../src/config/load.js';
import { freePort } from '../../src/engine/service/service.js';
import { actionlintFound, runActionlint } from '../helpers/actionlint.js';
import { runCli } from '../helpers/cli.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { processesIn } from '../helpers/processes.js';
import { FIXTURES, makeRepo } from '../helpers/repo.js';

const FIXTURE = join(FIXTURES, 'db', 'destructive');
const DATABASE = 'shop';
/** The GET routes of the fixture that write, as a request to each would be logged. */
const WRITING = ['GET /users/empty', 'GET /products/drop', 'GET /users/init', 'GET /users/add/1', 'GET /users/remove/1', 'GET /users/create', 'GET /stats/daily'];

let pg: Postgres;
let nodeModules = '';
// biome-ignore lint/suspicious/noExplicitAny: pg's client, loaded from the fixture's own install
let Client: any;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-destructive-'));
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(FIXTURE, file), join(dir, file));
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: 'pipe', timeout: 300_000 });
  nodeModules = join(dir, 'node_modules');
  Client = createRequire(join(dir, 'package.json'))('pg').Client;
  pg = await startPostgres();
  await sql('postgres', `CREATE DATABASE ${DATABASE}`);
  await sql(
    DATABASE,
    `CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL, address text NOT NULL);
     CREATE TABLE products (id serial PRIMARY KEY, title text NOT NULL);
     CREATE TABLE visits (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
     INSERT INTO users (name, address) SELECT 'user ' || g, g || ' Main St' FROM generate_series(1, 50) g;
     INSERT INTO products (title) SELECT 'product ' || g FROM generate_series(1, 200) g;
     INSERT INTO visits (at) SELECT now() FROM generate_series(1, 30);`,
  );
});
after(async () => {
  await pg?.stop();
});

async function sql(database: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new Client({ host: pg.host, port: pg.port, user: pg.user, database });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** Each table of the database and its row count: what a writing route would change. */
async function tables(): Promise<Record<string, number>> {
  const names = await sql(DATABASE, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  const counts: Record<string, number> = {};
  for (const { tablename } of names) counts[tablename as string] = Number((await sql(DATABASE, `SELECT count(*) AS n FROM ${tablename}`))[0]!.n);
  return counts;
}

/** A repository of the fixture as the app had it: its lockfile ignored by git, node_modules linked. */
function appRepo(files: Record<string, string> = {}): string {
  const repo = makeRepo(
    {
      '.gitignore': 'node_modules\npackage-lock.json\n',
      'package.json': JSON.stringify({ ...JSON.parse(readFileSync(join(FIXTURE, 'package.json'), 'utf8')), scripts: { start: 'node server.js' } }, null, 2),
      'package-lock.json': { copy: 'db/destructive/package-lock.json' },
      'server.js': { copy: 'db/destructive/server.js' },
      ...files,
    },
    {},
  );
  symlinkSync(nodeModules, join(repo, 'node_modules'), 'dir');
  return repo;
}

/** The environment the service finds its database in, and the file it logs each request to. */
function appEnv(hits: string, port = pg.port): Record<string, string | undefined> {
  return { ...process.env, PGHOST: pg.host, PGPORT: String(port), PGUSER: pg.user, PGDATABASE: DATABASE, HITS_FILE: hits };
}

function hitsOf(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

test('init and plan on an app whose GET routes write: the writing routes are listed as skipped and never called; the database is unchanged', async () => {
  const before = await tables();
  assert.deepEqual(before, { products: 200, users: 50, visits: 30 });
  const repo = appRepo();
  const hits = join(mkdtempSync(join(tmpdir(), 'perfgate-hits-')), 'hits.log');

  const init = await runCli(['init'], repo, appEnv(hits));
  assert.equal(init.code, 0, init.stderr + init.stdout);
  // listed before anything is sent: every skipped route on a line of its own, with why
  const listed = init.stdout.indexOf('  routes      express:');
  const firstAnswer = init.stdout.indexOf('  answers     ');
  assert.ok(listed > 0 && firstAnswer > listed, init.stdout);
  assert.match(init.stdout, /^ {2}routes {6}express: 5 to ask \(GET, once each\), 8 not asked$/m);
  for (const [route, why] of [
    ['GET /users/empty', 'its path says it writes \\("empty"\\)'],
    ['GET /products/drop', 'its path says it writes \\("drop"\\)'],
    ['GET /users/init', 'its path says it writes \\("init"\\)'],
    ['GET /users/add/:n', 'its path says it writes \\("add"\\)'],
    ['GET /users/remove/:id', 'its path says it writes \\("remove"\\)'],
    ['GET /users/create', 'its path says it writes \\("create"\\)'],
    ['GET /stats/daily', 'its handler resetStats says it writes \\("reset"\\)'],
    ['POST /users', 'POST changes data'],
  ]) {
    assert.match(init.stdout.slice(listed, firstAnswer), new RegExp(`^ {14}skip {2}${route.replace(/[/:]/g, '\\$&')} +${why}`, 'm'), route);
  }
  assert.match(init.stdout.slice(listed, firstAnswer), /^ {14}ask {3}GET \/users\/1\/address +\(\/users\/:id\/address\)$/m, '"address" is not "add"');
  // every answer quoted, 2xx included
  assert.match(init.stdout, /^ {14}GET \/users +200 "\{"success":true,"data":\[\{"id":1,"name":"user 1"\}/m);
  assert.match(init.stdout, /^ {2}answers {5}GET \/health +200 "ok"$/m);
  assert.match(init.stdout, /^ {14}GET \/healthz +404 "Cannot GET \/healthz"$/m, "express's error page, by its text");
  assert.match(init.stdout, /^ {2}install {5}npm install {3}\(package-lock\.json is ignored by git, so a checkout has none/m);
  assert.match(init.stdout, /^ {2}database {4}pg \(PostgreSQL\): the workflow runs it as a service container/m);

  const called = hitsOf(hits);
  assert.ok(called.includes('GET /users'), called.join('\n'));
  for (const route of WRITING) assert.ok(!called.includes(route), `init called ${route}`);
  assert.deepEqual(called.filter((c) => !c.startsWith('GET ')), [], 'only GET requests');
  assert.deepEqual(await tables(), before, 'init left the database as it was');

  // no writing route is a scenario, not even commented out
  const text = readFileSync(join(repo, 'perfgate.yml'), 'utf8');
  const config = resolveConfig(loadConfigFile(join(repo, 'perfgate.yml'), { required: true })!);
  assert.deepEqual(config.scenarios.map((s) => s.name), ['GET /users', 'GET /users/1', 'GET /users/1/address']);
  for (const route of WRITING) assert.doesNotMatch(text, new RegExp(`^ *(# )?- ${route}`, 'm'), route);
  assert.match(text, /^ {2}# not asked and not written, as their path or handler says they change data: GET \/users\/empty, /m);
  assert.match(text, /^ {2}# install: chosen from the lockfile \(npm install: package-lock\.json ignored by git\)/m);
  assert.match(text, /^ {2}# setup: node scripts\/db-setup\.js # package\.json has pg: a database per side/m);
  // the workflow runs PostgreSQL beside the job and tells every command where it is
  const workflowPath = join(repo, '.github', 'workflows', 'perf.yml');
  const workflow = parse(readFileSync(workflowPath, 'utf8'));
  assert.equal(workflow.jobs.measure.services.postgres.image, 'postgres:16');
  assert.equal(workflow.jobs.measure.env.PGHOST, '127.0.0.1');
  if (actionlintFound) {
    const lint = runActionlint([workflowPath]);
    assert.equal(lint.status, 0, lint.output);
  }

  // plan asks the scenarios (reads) and quotes each answer; a writing scenario the user adds is not sent
  writeFileSync(join(repo, 'perfgate.yml'), text.replace('scenarios:', 'scenarios:\n  - GET /users/empty\n  - { method: POST, path: /users, body: \'{"name":"x","address":"y"}\' }'));
  const plan = await runCli(['plan', '--base', 'main'], repo, appEnv(hits));
  assert.equal(plan.code, 0, plan.stderr + plan.stdout);
  assert.match(plan.stdout, /^service {2}`npm start` in \.; install npm install \(package-lock\.json ignored by git: the run's checkout has no lockfile\)$/m);
  assert.match(plan.stdout, /^routes {3}asked once in the work tree \(what each answered\):$/m);
  assert.match(plan.stdout, /^ {2}GET \/users\/empty +not asked: its path says it writes \("empty"\): plan sends no request that may change data$/m);
  assert.match(plan.stdout, /^ {2}POST \/users +not asked: POST changes data: plan sends no request that may change data$/m);
  assert.match(plan.stdout, /^ {2}GET \/users\/1 +200 "\{"success":true,"data":\[\{"id":1,"name":"user 1"\}\]\}"$/m);
  const afterPlan = hitsOf(hits);
  for (const route of [...WRITING, 'POST /users']) assert.ok(!afterPlan.includes(route), `plan called ${route}`);
  assert.deepEqual(await tables(), before, 'plan left the database as it was');
  assert.deepEqual(processesIn(repo), [], 'nothing init or plan started is left');
});

test('an app that answers a database error as 200 {"success":false}: init marks its routes, plan stops with the body quoted', async () => {
  const closed = await freePort(); // nothing listens there: the database is down
  const repo = appRepo();
  const hits = join(mkdtempSync(join(tmpdir(), 'perfgate-hits-')), 'hits.log');
  const init = await runCli(['init'], repo, appEnv(hits, closed));
  assert.equal(init.code, 0, init.stderr + init.stdout);
  assert.match(init.stdout, new RegExp(`^ {14}GET /users +200 "\\{"success":false,"error":"connect ECONNREFUSED 127\\.0\\.0\\.1:${closed}"\\}" {3}← its body says it failed \\("success": false\\)$`, 'm'));
  assert.match(init.stdout, /^check {2}4 routes answered an error when init asked; perfgate\.yml marks them with the answer \(the first one measured, as nothing else answered well: perfgate plan stops on it until it is fixed\):$/m);
  assert.match(init.stdout, /^ {7}a 2xx whose body says it failed measures the error path: give the service what it needs first/m);
  const text = readFileSync(join(repo, 'perfgate.yml'), 'utf8');
  assert.match(text, /^ {2}- GET \/users # answered 200 ".*", a body that says it failed \("success": false\), when init asked/m);

  const plan = await runCli(['plan', '--base', 'main'], repo, appEnv(hits, closed));
  assert.equal(plan.code, 2, plan.stdout);
  assert.equal(plan.stdout, '', 'no plan is printed for a configuration that cannot run');
  assert.match(
    plan.stderr,
    new RegExp(
      `Scenario "GET /users" \\(GET /users\\) fails in head's work tree: it answered 200 "\\{"success":false,"error":"connect ECONNREFUSED 127\\.0\\.0\\.1:${closed}"\\}", ` +
        'a body that says the request failed \\("success": false\\)\\. The service answered an error with a success status: give it what it needs before measuring \\(a database',
    ),
  );
  // declared as the answer it should be, the same route passes plan
  writeFileSync(join(repo, 'perfgate.yml'), 'service: { start: npm start }\nscenarios: [{ method: GET, path: /users, expect: [200] }]\n');
  const declared = await runCli(['plan', '--base', 'main'], repo, appEnv(hits, closed));
  assert.equal(declared.code, 0, declared.stderr);
  assert.deepEqual(processesIn(repo), []);
});
