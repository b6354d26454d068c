/**
 * Named calls: the preload subscribes to the diagnostics_channel events of the clients that
 * publish them and counts each request's calls by destination and name. Real clients (the
 * catalog fixture's locked node-redis, ioredis and pg, installed with `npm ci`; Node's own fetch
 * and http) against real servers: Redis (test/helpers/redis.ts), PostgreSQL
 * (test/helpers/postgres.ts) and a local HTTP server.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HealthChannel } from '../../src/engine/health.js';
import { ProcessTracker, sleep, startProcess } from '../../src/engine/process.js';
import { preloadPath } from '../../src/engine/service.js';
import type { NamedCalls } from '../../src/results/types.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { type Redis, startRedis } from '../helpers/redis.js';
import { FIXTURES } from '../helpers/repo.js';

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

let pg: Postgres;
let redis: Redis;
let other: Server;
let otherPort = 0;
let dir: string;
before(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  other = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherPort = (other.address() as { port: number }).port;
  dir = mkdtempSync(join(tmpdir(), 'perfgate-names-'));
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(FIXTURES, 'db/catalog', file), join(dir, file));
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'pipe' });
  writeFileSync(join(dir, 'service.js'), SERVICE);
});
after(async () => {
  other?.close();
  await Promise.all([pg?.stop(), redis?.stop()]);
});

test('the preload names the calls of clients that publish diagnostics_channel events, per destination, and keeps at most 50 names', async () => {
  const channel = await HealthChannel.open();
  const tracker = new ProcessTracker();
  try {
    const logFile = join(dir, 'out.log');
    startProcess(process.execPath, ['--require', preloadPath(), 'service.js'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', PERFGATE_HEALTH_SOCKET: channel.socketPath, REDIS_URL: redis.url, OTHER: `http://127.0.0.1:${otherPort}`, ...pg.env },
      logFile,
      tracker,
    });
    let port = 0;
    for (const deadline = Date.now() + 10_000; (port === 0 || channel.connected < 1) && Date.now() < deadline; await sleep(20)) {
      port = Number(/PORT=(\d+)/.exec(readFileSync(logFile, 'utf8'))?.[1] ?? 0);
    }
    assert.ok(port > 0 && channel.connected === 1, `the service started and connected: ${readFileSync(logFile, 'utf8')}`);
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
