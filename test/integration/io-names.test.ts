// lane: beside — it asserts the names and counts of a request's calls to real clients, not times.
/**
 * Named calls: the preload subscribes to the diagnostics_channel events of the clients that
 * publish them and counts each request's calls by destination and name. Real clients (the
 * catalog fixture's locked node-redis, ioredis and pg, and the mysql fixture's mysql2, installed
 * with `npm ci`; Node's own fetch and http) against real servers: Redis (test/helpers/redis.ts),
 * PostgreSQL (test/helpers/postgres.ts), MariaDB (test/helpers/mysql.ts) and a local HTTP server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { HealthChannel } from '../../src/engine/service/health.js';
import { ProcessTracker, } from '../../src/engine/process/processes.js';
import { assessResults } from '../../src/assess/compare.js';
import { renderIoTerminal } from '../../src/report/terminal.js';
import type { NamedCalls, ProcessHealth, Side } from '../../src/results/types.js';
import { type Mysql, startMysql } from '../helpers/mysql.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { type Redis, startRedis } from '../helpers/redis.js';
import { startPreloaded } from '../helpers/preloaded.js';
import { FIXTURES } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

/**
 * Per request: one node-redis GET, two ioredis INCRs, one pg query (pg publishes nothing: only its
 * round trip is counted), a fetch (undici) and an http.get of /users/<id>; GET /distinct fetches
 * 60 different paths, more names than a window keeps.
 */
const SERVICE = `
const http = require('node:http');
const { createClient } = require('redis');
const Redis = require('ioredis');
const { Pool } = require('pg');
const nodeRedis = createClient({ url: process.env.REDIS_URL });
const ioredis = new Redis(process.env.REDIS_URL);
const pool = new Pool({ database: 'postgres', max: 2 });
const other = process.env.OTHER;
const get = (url) => new Promise((resolve, reject) => http.get(url, (res) => res.resume().on('end', resolve)).on('error', reject));
nodeRedis.connect().then(() => http.createServer(async (req, res) => {
  if (req.url === '/distinct') {
    for (let i = 0; i < 60; i++) await (await fetch(other + '/page-' + i)).text();
  } else {
    await nodeRedis.get('greeting');
    await ioredis.incr('visits');
    await ioredis.incr('visits');
    await pool.query("SELECT $1::int + 1 AS n, 'x' AS s", [41]);
    await (await fetch(other + '/users/42?full=1')).text();
    await get(other + '/users/7');
  }
  res.end('done');
}).listen(0, '127.0.0.1', function () { console.log('PORT=' + this.address().port); }));
`;

/**
 * mysql2 on MariaDB, each API once per GET /: the promise pool's query (its values formatted into
 * the text) and execute (a prepared statement, its values sent apart) of one statement, the
 * callback pool's query with a string value that needs escaping, and a callback connection's
 * execute over the Unix socket. GET /list reads 5 users in one query; GET /list-n1 reads their
 * ids, then each name with a query of its own (N+1).
 */
const MYSQL_SERVICE = `
const http = require('node:http');
const mysql = require('mysql2');
const pool = mysql.createPool({ host: '127.0.0.1', port: Number(process.env.MYSQL_PORT), user: 'root', database: 'perfgate', connectionLimit: 2 });
const promisePool = pool.promise();
const local = mysql.createConnection({ socketPath: process.env.MYSQL_SOCKET, user: 'root', database: 'perfgate' });
const callback = (run) => new Promise((resolve, reject) => run((error, rows) => (error ? reject(error) : resolve(rows))));
const byId = 'SELECT name FROM users WHERE id = ?';
(async () => {
  await promisePool.query('CREATE TABLE IF NOT EXISTS users (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)');
  await promisePool.query("INSERT IGNORE INTO users VALUES (1, 'ada'), (2, 'grace'), (3, 'edsger'), (7, 'it''s'), (42, 'barbara')");
  http.createServer(async (req, res) => {
    if (req.url === '/list') {
      const [rows] = await promisePool.query('SELECT id, name FROM users ORDER BY id LIMIT 5');
      res.end(rows.map((r) => r.name).join(','));
      return;
    }
    if (req.url === '/list-n1') {
      const [ids] = await promisePool.query('SELECT id FROM users ORDER BY id LIMIT 5');
      const names = [];
      for (const { id } of ids) names.push((await promisePool.query(byId, [id]))[0][0].name);
      res.end(names.join(','));
      return;
    }
    const [[first]] = await promisePool.query(byId, [42]);
    const [[second]] = await promisePool.execute(byId, [7]);
    const [third] = await callback((done) => pool.query('SELECT id FROM users WHERE name = ?', [second.name], done));
    const [count] = await callback((done) => local.execute('SELECT COUNT(*) AS n FROM users WHERE id > ?', [1], done));
    res.end([first.name, second.name, third.id, count.n].join(','));
  }).listen(0, '127.0.0.1', function () { console.log('PORT=' + this.address().port); });
})();
`;

const run = promisify(execFile);

let pg: Postgres;
let redis: Redis;
let mysql: Mysql;
let other: Server;
let otherPort = 0;
let dir: string;
let mysqlDir: string;
before(async () => {
  other = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherPort = (other.address() as { port: number }).port;
  dir = mkdtempSync(join(tmpdir(), 'perfgate-names-'));
  mysqlDir = join(dir, 'mysql');
  mkdirSync(mysqlDir);
  // The servers start while the clients install. mysql2 has a fixture of its own, so the
  // catalog's (which test/integration/redis.test.ts installs in every tree it measures) stays small.
  const started = Promise.all([startPostgres(), startRedis(), startMysql()]).then((servers) => {
    [pg, redis, mysql] = servers;
  });
  const installed = Promise.all(
    [
      [join(FIXTURES, 'db/catalog'), dir],
      [join(FIXTURES, 'db/mysql'), mysqlDir],
    ].map(([fixture, tree]) => {
      for (const file of ['package.json', 'package-lock.json']) cpSync(join(fixture!, file), join(tree!, file));
      return run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: tree });
    }),
  );
  // Settled both, so that `after` finds every server that did start.
  for (const outcome of await Promise.allSettled([started, installed])) if (outcome.status === 'rejected') throw outcome.reason;
  writeFileSync(join(dir, 'service.js'), SERVICE);
  writeFileSync(join(mysqlDir, 'service.js'), MYSQL_SERVICE);
});
after(async () => {
  other?.close();
  await Promise.all([pg?.stop(), redis?.stop(), mysql?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});


test('the preload names the calls of clients that publish diagnostics_channel events, per destination, and keeps at most 50 names', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    const { port } = await startPreloaded(dir, ['service.js'], { REDIS_URL: redis.url, OTHER: `http://127.0.0.1:${otherPort}`, ...pg.env }, channel, tracker);
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'done', 'a first request opens the connections');

    const id = await channel.begin();
    for (let i = 0; i < 3; i++) assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'done');
    const { processes } = await channel.end(id);
    const queries = processes[0]!.queries;
    const calls = (destination: string, name: string) => queries.find((q: NamedCalls) => q.destination === destination && q.name === name)?.calls;
    console.log(JSON.stringify(queries));
    const redisAt = `127.0.0.1:${redis.port}`;
    const httpAt = `127.0.0.1:${otherPort}`;
    assert.equal(calls(redisAt, 'GET'), 3, `node-redis's GET, once per request: ${JSON.stringify(queries)}`);
    assert.equal(calls(redisAt, 'INCR'), 6, "ioredis's INCR, twice per request");
    assert.equal(calls(httpAt, `GET ${httpAt}/users/:id`), 6, 'fetch (undici) and http.get, by method, host and path template');
    assert.equal(
      queries.filter((q) => q.destination.endsWith(`:${pg.port}`)).length,
      0,
      'pg publishes no events: PostgreSQL is counted at the socket only',
    );
    assert.ok(processes[0]!.io.some((io) => io.destination === `127.0.0.1:${pg.port}` && io.roundTrips >= 3), 'its round trips are');
    assert.ok(queries.every((q) => q.waitMs > 0 && q.waitMs < 5000), 'each name has its wait');

    const many = await channel.begin();
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/distinct`)).text(), 'done');
    const distinct = (await channel.end(many)).processes[0]!.queries;
    assert.equal(distinct.length, 51, '50 names, then the destination\'s "other"');
    assert.equal(distinct.find((q) => q.name === 'other')?.calls, 10);
  } finally {
    await tracker.killAll();
    channel.close();
  }
});

test("mysql2's queries and prepared statements are named without their literals, per destination, through promises, callbacks and a pool; an N+1 is the changed call", async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    const { port, logFile } = await startPreloaded(mysqlDir, ['service.js'], { MYSQL_PORT: String(mysql.port), MYSQL_SOCKET: mysql.socketPath }, channel, tracker);
    const get = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).text();
    // A first request of each route opens the pool's connection and prepares the statements.
    assert.equal(await get('/'), "barbara,it's,7,4", `the queries answer: ${readFileSync(logFile, 'utf8')}`);
    assert.equal(await get('/list-n1'), "ada,grace,edsger,it's,barbara");

    const id = await channel.begin();
    for (let i = 0; i < 3; i++) await get('/');
    const { processes } = await channel.end(id);
    const queries = processes[0]!.queries;
    const all = JSON.stringify(queries);
    console.log(all);
    const calls = (destination: string, name: string) => queries.find((q: NamedCalls) => q.destination === destination && q.name === name)?.calls;
    const mysqlAt = `127.0.0.1:${mysql.port}`;
    assert.equal(calls(mysqlAt, 'SELECT name FROM users WHERE id = ?'), 6, `query (42 in its text) and execute (? in its text) of one statement, one name, twice per request: ${all}`);
    assert.equal(calls(mysqlAt, 'SELECT id FROM users WHERE name = ?'), 3, `a callback query whose string value was escaped into the text ('it\\'s'): ${all}`);
    assert.equal(calls(mysql.socketPath, 'SELECT COUNT(*) AS n FROM users WHERE id > ?'), 3, `a connection's execute over the Unix socket, named by its path: ${all}`);
    assert.equal(queries.length, 3, `no other name (no literal left in one): ${all}`);
    assert.ok(queries.every((q) => q.waitMs > 0 && q.waitMs < 5000), 'each name has its wait');
    const io = (destination: string) => processes[0]!.io.find((t) => t.destination === destination)?.roundTrips ?? 0;
    assert.ok(io(mysqlAt) >= 9 && io(mysql.socketPath) >= 3, `the socket's round trips are there too: ${JSON.stringify(processes[0]!.io)}`);

    // Base reads the list in one query, head in one plus one per user: six start pairs of real
    // windows (three requests each), compared and reported as a run's slices are.
    const windows: Record<Side, ProcessHealth[][]> = { base: [], head: [] };
    for (let start = 0; start < 6; start++) {
      for (const [side, path] of [['base', '/list'], ['head', '/list-n1']] as const) {
        const window = await channel.begin();
        for (let i = 0; i < 3; i++) await get(path);
        windows[side].push((await channel.end(window)).processes);
      }
    }
    const results = resultsFromPairs(Array.from({ length: 6 }, () => [1000, 1000]));
    Object.assign(results.scenarios[0]!, { name: 'GET /list', path: '/list' });
    results.scenarios[0]!.pairs.forEach((pair, i) => {
      for (const side of ['base', 'head'] as const) pair[side].health = { requestsSinceStart: 100, missing: 0, processes: windows[side][i]! };
    });
    const report = renderIoTerminal(assessResults(results)).join('\n');
    console.log(report);
    const line = report.split('\n').find((l) => l.includes(`· ${mysqlAt}:`));
    assert.match(
      line ?? report,
      /^ {2}GET \/list · 127\.0\.0\.1:\d+: 1\.0 → 6\.0 round trips per request, [\d.]+ → [\d.]+ ms waiting: more round trips per request: a query per item \(N\+1\).*; most changed: SELECT name FROM users WHERE id = \? \(0 → 5\.0 calls per request\)$/,
    );
  } finally {
    await tracker.killAll();
    channel.close();
  }
});
