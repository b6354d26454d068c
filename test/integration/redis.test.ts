/**
 * Redis where a cache belongs: a small product API (Express, `pg`, node-redis; test/fixtures/db/catalog)
 * caches a PostgreSQL aggregate in Redis, both real servers from Debian's packages
 * (test/helpers/postgres.ts, test/helpers/redis.ts), the drivers installed with `npm ci` in each
 * tree as perfgate does for users. A head that drops the cache sends every request to PostgreSQL:
 * the gate fails it and the I/O lines say why; node-redis publishes its commands
 * (diagnostics_channel), so the Redis line names them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { type Redis, startRedis } from '../helpers/redis.js';
import { type Files, IDENTICAL_CODE_ALPHA, makeRepo, quickConfig } from '../helpers/repo.js';

const CATALOG = 'db/catalog';
const catalog: Files = Object.fromEntries(
  ['package.json', 'package-lock.json', 'server.js', 'products.js', 'setup.js'].map((file) => [file, { copy: `${CATALOG}/${file}` }]),
);
catalog['.gitignore'] = 'node_modules\n';
const ROUTE = 'GET /products/7';

let pg: Postgres;
let redis: Redis;
before(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
});
after(async () => {
  await Promise.all([pg?.stop(), redis?.stop()]);
});

function catalogConfig(extra = ''): string {
  return quickConfig(`scenarios: [${ROUTE}]\n${extra}`).replace(
    'service:\n  start: node server.js\n',
    `service:\n  start: node server.js\n  setup: node setup.js\n  env: { PGHOST: 127.0.0.1, PGPORT: "${pg.port}", PGUSER: postgres, REDIS_URL: "${redis.url}" }\n`,
  );
}

async function compare(head: Files, extra = '') {
  const repo = makeRepo({ ...catalog, 'perfgate.yml': catalogConfig(extra) }, head);
  const out = join(repo, '.out');
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  const analysis = assessResults(readResults(join(out, 'results.json')));
  const at = (port: number) => analysis.io?.comparisons.find((c) => c.destination === `127.0.0.1:${port}`);
  console.log(`exit ${run.code} in ${Math.round((Date.now() - started) / 1000)} s; pg ${JSON.stringify(at(pg.port))}; redis ${JSON.stringify(at(redis.port))}`);
  console.log(analysis.comparisons.map((c) => `${c.metric} ${(c.change * 100).toFixed(1)}% ${c.verdict}`).join('; '));
  console.log(run.stdout.split('\n').filter((line) => line.includes('round trips per request')).join('\n'));
  return { run, analysis, pg: at(pg.port), redis: at(redis.port) };
}

test('a head that drops the Redis cache fails the gate; the report shows the round trips move from Redis to PostgreSQL and names the command', async () => {
  const { run, analysis, pg: database, redis: cache } = await compare({ 'products.js': { copy: `${CATALOG}/products-uncached.js` } });
  assert.equal(run.code, 1, run.stderr + run.stdout);
  assert.ok(analysis.failing.length > 0);
  assert.ok(database && cache, 'both servers are destinations');
  // Base asks PostgreSQL only on a cache miss (the first request of a minute per side); head on every request.
  assert.ok((database.base?.roundTripsPerRequest ?? 0) < 0.05, `base: the cache answers, ${JSON.stringify(database.base)}`);
  assert.ok(Math.abs(database.head!.roundTripsPerRequest - 1) < 0.1, `head: one query per request, ${database.head!.roundTripsPerRequest}`);
  assert.equal(database.roundTripsChanged, true);
  // node-redis writes the GETs of concurrent requests together: fewer round trips than calls.
  assert.ok(cache.base!.roundTripsPerRequest > 0.05, `base: its GETs, pipelined, ${cache.base!.roundTripsPerRequest}`);
  assert.equal(cache.head, null, 'head: no command in any request');
  assert.deepEqual(
    cache.named.map((n) => [n.name, Number(n.base.toFixed(2)), n.head, n.changed]),
    [['GET', 1, 0, true]],
    'node-redis names its commands: one GET per request on base (its SET runs on a miss, in no measured request)',
  );
  assert.deepEqual(database.named, [], 'pg publishes no events: its queries are not named');
  const pgLine = new RegExp(`127\\.0\\.0\\.1:${pg.port}: (none|0\\.0) → 1\\.0 round trips per request, [\\w.]+ → [\\d.]+ ms waiting: (a new destination|more round trips)`);
  const redisLine = new RegExp(`127\\.0\\.0\\.1:${redis.port}: [\\d.]+ → none round trips per request, [\\d.]+ → none ms waiting: no longer contacted; most changed: GET \\(1\\.0 → 0 calls per request\\)`);
  assert.match(run.stdout, pgLine);
  assert.match(run.stdout, redisLine);
});

test('an unchanged head passes, and no I/O line is marked changed', async () => {
  const { run, pg: database, redis: cache } = await compare({ 'README.md': 'docs only\n' }, IDENTICAL_CODE_ALPHA);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.ok(cache, 'Redis is a destination');
  assert.equal(cache.roundTripsChanged || cache.waitChanged, false, JSON.stringify(cache));
  assert.equal(database?.roundTripsChanged ?? false, false);
  assert.doesNotMatch(run.stdout, /most changed: .*calls per request/, 'names only under a changed line');
});
