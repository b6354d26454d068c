/**
 * Services that need a database: a small orders API on a real PostgreSQL (Debian's packages,
 * test/helpers/postgres.ts) with the real `pg` driver, which perfgate installs in each tree with
 * `npm ci` as it does for users. service.setup gives each side its own database
 * (shop_base / shop_head) and applies the tree's migrations before every start.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import type { IoComparison } from '../../src/results/types.js';
import { measuring, runCli } from '../helpers/cli.js';
import { processesIn } from '../helpers/processes.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { type Files, makeRepo, quickConfig } from '../helpers/repo.js';

const SHOP = 'db/shop';
const shop: Files = {
  '.gitignore': 'node_modules\n',
  'package.json': { copy: `${SHOP}/package.json` },
  'package-lock.json': { copy: `${SHOP}/package-lock.json` },
  'server.js': { copy: `${SHOP}/server.js` },
  'orders.js': { copy: `${SHOP}/orders.js` },
  'setup.js': { copy: `${SHOP}/setup.js` },
  'schema.sql': { copy: `${SHOP}/schema.sql` },
  'seed.sql': { copy: `${SHOP}/seed.sql` },
  'migrations/001-orders-by-customer.sql': { copy: `${SHOP}/migrations/001-orders-by-customer.sql` },
};
const ROUTE = 'GET /customers/42/orders';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(async () => {
  await pg?.stop();
});

/** perfgate.yml: the quick layout, setup per start, the database found through PG* variables (`database`: the databases' prefix). */
function shopConfig(database: string, port = pg.port): string {
  return quickConfig(`scenarios: [${ROUTE}]\n`).replace(
    'service:\n  start: node server.js\n',
    `service:\n  start: node server.js\n  setup: node setup.js\n  env: { PGHOST: 127.0.0.1, PGPORT: "${port}", PGUSER: postgres, SHOP_DB: ${database} }\n`,
  );
}

async function compare(head: Files, database: string) {
  const repo = makeRepo({ ...shop, 'perfgate.yml': shopConfig(database) }, head);
  const out = join(repo, '.out');
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  const results = readResults(join(out, 'results.json'));
  const analysis = assessResults(results);
  const io = analysis.io?.comparisons.find((c) => c.destination === `127.0.0.1:${pg.port}`);
  console.log(`${database}: exit ${run.code} in ${Math.round((Date.now() - started) / 1000)} s; I/O ${JSON.stringify(io)}`);
  console.log(analysis.comparisons.map((c) => `${c.metric} ${(c.change * 100).toFixed(1)}% ${c.verdict}`).join('; '));
  return { run, analysis, io: io as IoComparison };
}

test('a head that adds an N+1 query fails the gate, and the report counts 1 → 21 round trips to the database per request', async () => {
  const { run, analysis, io } = await compare({ 'orders.js': { copy: `${SHOP}/orders-n-plus-one.js` } }, 'shop_n1');
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.ok(analysis.failing.length > 0);
  assert.ok(io, 'PostgreSQL is a destination');
  assert.ok(Math.abs(io.base!.roundTripsPerRequest - 1) < 0.2, `base: one query per request, ${io.base!.roundTripsPerRequest}`);
  assert.ok(Math.abs(io.head!.roundTripsPerRequest - 21) < 1, `head: 1 + 20 queries per request, ${io.head!.roundTripsPerRequest}`);
  assert.equal(io.roundTripsChanged, true);
  assert.match(run.stdout, new RegExp(`127\\.0\\.0\\.1:${pg.port}: 1\\.0 → 2[01]\\.\\d round trips per request, [\\d.]+ → [\\d.]+ ms waiting: more round trips per request`));
});

test('a head whose migration drops the index the route needs fails the gate, and the report shows each round trip waiting longer', async () => {
  const { run, analysis, io } = await compare({ 'migrations/002-drop-orders-by-customer.sql': { copy: `${SHOP}/migrations-drop-index.sql` } }, 'shop_index');
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.ok(analysis.failing.length > 0);
  assert.ok(io, 'PostgreSQL is a destination');
  assert.equal(io.roundTripsChanged, false, 'the same one query per request');
  assert.equal(io.waitChanged, true);
  assert.ok(io.head!.waitMsPerRequest > 1.5 * io.base!.waitMsPerRequest, `each answer waits longer: ${io.base!.waitMsPerRequest} → ${io.head!.waitMsPerRequest} ms`);
  assert.match(run.stdout, new RegExp(`127\\.0\\.0\\.1:${pg.port}: 1\\.0 → 1\\.0 round trips per request, [\\d.]+ → [\\d.]+ ms waiting: as many round trips, each answered later`));
});

test('a database that is not reachable: setup fails with exit 2, says what to fix, and leaves no process running', async () => {
  // A port nothing listens on: PostgreSQL's own, stopped.
  const closed = await startPostgres();
  await closed.stop();
  const repo = makeRepo({ ...shop, 'perfgate.yml': shopConfig('shop_down', closed.port) }, { 'README.md': 'docs only' });
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out'), '--seed', '5'], repo);
  assert.equal(run.code, 2, run.stderr + run.stdout);
  assert.match(run.stderr, /service\.setup failed before start 0 \(PERFGATE_START=0\) of (base|head)/);
  assert.match(run.stderr, new RegExp(`cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closed.port} as postgres \\(ECONNREFUSED\\)\\. Start the database, or set PGHOST, PGPORT and PGUSER`));
  assert.deepEqual(processesIn(repo), [], 'no process of the run is left');
});

test('the database killed mid-run: exit 2, the message names the lost connection, the measured pairs are kept, nothing left running', async () => {
  // A cluster of its own: this test stops it while the run measures.
  const own = await startPostgres();
  try {
    const repo = makeRepo({ ...shop, 'perfgate.yml': shopConfig('shop_killed', own.port) }, { 'README.md': 'docs only' });
    const out = join(repo, '.out');
    const running = runCli(['compare', '--base', 'main', '--out', out, '--seed', '5', '--pairs', '60'], repo);
    await measuring(join(out, 'results.json'), running);
    await own.stop();
    const run = await running;
    assert.equal(run.code, 2, run.stderr + run.stdout);
    // The cause is quoted from the service's or the setup's own output, whichever met the dead
    // database first: a connection the server ended, or one it refused.
    assert.match(run.stderr, /Connection terminated|terminating connection|ECONNREFUSED|cannot reach PostgreSQL/, run.stderr);
    const results = readResults(join(out, 'results.json'));
    assert.ok((results.scenarios[0]?.pairs.length ?? 0) > 0, 'the pairs measured before the database died are kept');
    assert.match(run.stderr, /results\.json/, 'the message says where the kept pairs are');
    assert.deepEqual(processesIn(repo), [], 'no process of the run is left');
  } finally {
    await own.stop();
  }
});
