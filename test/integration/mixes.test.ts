// lane: beside — it asserts which requests a mix and a sequence send, their shares and a 20 ms timer's wait, not a verdict.
/**
 * Request mixes and sequences on a real service (test/fixtures/services/shop-server.cjs), in a
 * closed loop (autocannon's requests) and at a fixed rate (perfgate's own scheduler): the
 * proportions of a weighted mix, ids cycled from a CSV file, a token captured from the login's
 * response reaching the next request, the per-request breakdown, and a capture that never matches.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { resolveConfig } from '../../src/config/load.js';
import type { ScenarioConfig } from '../../src/config/types.js';
import { ClosedLoopLoad } from '../../src/engine/load/closed.js';
import { FixedRateLoad } from '../../src/engine/load/fixed-rate.js';
import { loadScenarioValues } from '../../src/engine/load/requests.js';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { windows } from '../helpers/load.js';
import { startPortService } from '../helpers/processes.js';
import { fewestPairs, IDENTICAL_CODE_ALPHA, makeRepo, quickConfig } from '../helpers/repo.js';

const SERVICE = join(import.meta.dirname, '..', 'fixtures', 'services', 'shop-server.cjs');
const IDS = ['a1', 'b2', 'c3', 'd4'];

interface ShopStats {
  login: number;
  me: number;
  meUnauthorized: number;
  meUsers: Record<string, number>;
  list: number;
  items: Record<string, number>;
  unknown: number;
}

async function startShop(): Promise<{ child: ChildProcess; url: string; stats: () => Promise<ShopStats> }> {
  const { child, url } = await startPortService(SERVICE);
  return { child, url, stats: async () => (await (await fetch(`${url}/stats`)).json()) as ShopStats };
}

/** Scenarios as perfgate.yml resolves them, with their values files read from `dir`. */
function scenariosFrom(yaml: object[], dir: string): ScenarioConfig[] {
  const config = resolveConfig({ document: { service: { start: 'node server.js' }, scenarios: yaml } });
  loadScenarioValues(config.scenarios, dir);
  return config.scenarios;
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-mixes-'));
  writeFileSync(join(dir, 'ids.csv'), `id,label\n${IDS.map((id) => `${id},"item, ${id}"`).join('\r\n')}\n`);
  writeFileSync(join(dir, 'users.json'), JSON.stringify([{ user: 'ann' }, { user: 'bob' }, { user: 'cy' }]));
  return dir;
}

/** A sequence: log in as `user`, capture the token from `tokenAt`, fetch the profile with it. */
function loginThenProfile(extra: object, user: string, tokenAt: string): object {
  return {
    name: 'login then profile',
    sequence: true,
    ...extra,
    requests: [
      { name: 'login', method: 'POST', path: '/login', body: { user }, capture: { token: tokenAt } },
      { name: 'profile', path: '/me', headers: { authorization: 'Bearer {token}' } },
    ],
  };
}

const generators = {
  'closed loop': (url: string, scenario: ScenarioConfig) => ClosedLoopLoad.open([url], scenario, { maxMs: 5000, sliceMs: 1000 }),
  'fixed rate': (url: string, scenario: ScenarioConfig) => FixedRateLoad.open([url], scenario, { maxMs: 5000, sliceMs: 1000, ratePerSecond: 100 }),
};

for (const [kind, open] of Object.entries(generators)) {
  describe(kind, () => {
    test('a weighted mix sends its requests in their proportions, each id of the CSV in turn, and breaks latency down per request', async () => {
      const shop = await startShop();
      try {
        const [scenario] = scenariosFrom(
          [{ name: 'browse', values: 'ids.csv', connections: 4, requests: [{ name: 'list', path: '/items', weight: 3 }, { name: 'item', path: '/items/{id}' }] }],
          dataDir(),
        );
        const samples = await windows(await open(shop.url, scenario!), 2, 1000);
        const stats = await shop.stats();
        const itemsSent = Object.values(stats.items).reduce((a, b) => a + b, 0);
        console.log(`${kind}: list ${stats.list}, items ${JSON.stringify(stats.items)}, breakdown ${JSON.stringify(samples[1]!.byRequest)}`);
        // Every connection sends whole turns of list, list, item, list: 3 to 1, up to the turns in flight at the end.
        assert.ok(Math.abs(stats.list / (stats.list + itemsSent) - 0.75) < 0.03, `list ${stats.list} against items ${itemsSent}: 3 to 1`);
        assert.deepEqual(Object.keys(stats.items).sort(), IDS, 'the ids of the CSV, and nothing else (no literal {id})');
        const counts = Object.values(stats.items);
        assert.ok(Math.max(...counts) - Math.min(...counts) <= 4, `the ids are taken in turn: ${JSON.stringify(stats.items)}`);
        for (const sample of samples) {
          const [list, item] = sample.byRequest!;
          assert.equal(list!.name, 'list');
          assert.equal(item!.name, 'item');
          assert.equal(list!.responses + item!.responses, sample.requests, 'every response is counted for one request of the mix');
          assert.ok(Math.abs(list!.responses / sample.requests - 0.75) < 0.05, `list is 3/4 of the window: ${list!.responses} of ${sample.requests}`);
          assert.equal(list!.failed + item!.failed, 0);
          assert.ok(item!.p50Us >= list!.p50Us + 10_000, `an item waits 20 ms more than the list: p50 ${item!.p50Us} µs against ${list!.p50Us} µs`);
        }
      } finally {
        shop.child.kill();
      }
    });

    test('a sequence logs in, then fetches with the token captured from the response; users come from a JSON file', async () => {
      const shop = await startShop();
      try {
        const [scenario] = scenariosFrom([loginThenProfile({ values: 'users.json', connections: 4 }, '{user}', 'body.session.token')], dataDir());
        const samples = await windows(await open(shop.url, scenario!), 2, 1000);
        const stats = await shop.stats();
        console.log(`${kind}: ${JSON.stringify(stats)}`);
        assert.ok(stats.me > 40, `profiles fetched: ${stats.me}`);
        // The service forgets a token once used: a 200 on /me means this login's token reached it.
        assert.equal(stats.meUnauthorized, 0, 'every /me carried a token captured from its own login');
        assert.ok(stats.login - stats.me <= 4, `one profile per login (${stats.login} logins, ${stats.me} profiles), up to the sequences in flight`);
        assert.deepEqual(Object.keys(stats.meUsers).sort(), ['ann', 'bob', 'cy'], 'the users of the JSON file, in turn');
        for (const sample of samples) {
          const [login, profile] = sample.byRequest!;
          assert.ok(Math.abs(login!.responses - profile!.responses) <= 4, `as many logins as profiles in a window: ${login!.responses}, ${profile!.responses}`);
          assert.equal(login!.failed + profile!.failed, 0);
          assert.equal(sample.non2xx, 0);
        }
      } finally {
        shop.child.kill();
      }
    });

    test('a capture that never matches counts each such response as failed, and the sequence never sends a request without its value', async () => {
      const shop = await startShop();
      try {
        // The token is at body.session.token, not body.token.
        const [scenario] = scenariosFrom([loginThenProfile({ connections: 2 }, 'ann', 'body.token')], dataDir());
        const [sample] = await windows(await open(shop.url, scenario!), 1, 1000);
        const stats = await shop.stats();
        const [login, profile] = sample!.byRequest!;
        assert.ok(login!.responses > 20, `the login was sent again and again: ${login!.responses}`);
        assert.equal(login!.failed, login!.responses, 'each login without body.token counted as failed');
        assert.equal(sample!.non2xx, login!.responses, "and in the scenario's failed requests");
        assert.equal(profile!.responses, 0);
        assert.equal(stats.me, 0, 'the profile was never sent with an empty token');
      } finally {
        shop.child.kill();
      }
    });
  });
}

// Identical code: what is asserted is what each slice records and how the report breaks it
// down, not a verdict, so the fewest pairs do.
test('compare with a mix and a sequence: results.json records each request per slice and the report breaks latency down per request', async () => {
  const files = {
    'server.js': { copy: 'services/shop-server.cjs' },
    'data/ids.csv': `id\n${IDS.join('\n')}\n`,
    'perfgate.yml': fewestPairs(
      quickConfig(`scenarios:
  - name: browse
    values: data/ids.csv
    requests:
      - { name: list, path: /items, weight: 3 }
      - { name: item, path: "/items/{id}" }
  - name: login then profile
    sequence: true
    requests:
      - { name: login, method: POST, path: /login, body: { user: ann }, capture: { token: header.x-session } }
      - { name: profile, path: /me, headers: { authorization: "Bearer {token}" } }
${IDENTICAL_CODE_ALPHA}`),
    ),
  };
  const repo = makeRepo(files, { 'README.md': 'docs only' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  assert.notEqual(run.code, 2, run.stderr + run.stdout);
  const results = readResults(join(out, 'results.json'));
  for (const scenario of results.scenarios) {
    for (const pair of scenario.pairs) {
      for (const slice of [pair.base, pair.head]) {
        assert.equal(slice.byRequest?.length, 2, `${scenario.name}: two requests per slice`);
        assert.equal(slice.byRequest.reduce((n, r) => n + r.responses, 0), slice.requests);
        assert.equal(slice.non2xx, 0, `${scenario.name}: no failed request`);
      }
    }
  }
  assert.match(run.stdout, /per request/);
  // The shares of the responses, 3 to 1 and 1 to 1 (slices cut a few turns), and each request's latency, base → head.
  assert.match(run.stdout, /browse\n {2}list {2}7[3-7]\.\d%/);
  assert.match(run.stdout, /\n {2}item {2}2[3-7]\.\d% {2}p50 [\d.]+ ms → [\d.]+ ms/);
  assert.match(run.stdout, /\n {2}profile {2}(?:49|50|51)\.\d%/);
});

test('a values file that lacks a column a request uses stops the run before any service starts, naming the column and the fix', async () => {
  const files = {
    'server.js': { copy: 'services/shop-server.cjs' },
    'data/ids.csv': 'sku\nx1\n',
    'perfgate.yml': quickConfig(`scenarios:\n  - { name: item, path: "/items/{id}", values: data/ids.csv }\n  - { name: empty, path: "/items/{id}", values: data/empty.csv }\n`),
    'data/empty.csv': 'id\n',
  };
  const repo = makeRepo(files, { 'README.md': 'docs only' });
  const started = Date.now();
  const run = await runCli(['compare', '--base', 'main', '--out', join(repo, '.out')], repo);
  assert.equal(run.code, 2, run.stderr + run.stdout);
  assert.match(run.stderr, /scenario "item": values: data\/ids\.csv: has no column "id", which the requests use as \{id\}; its columns are "sku"\. Add the column to the file, or fix the placeholder\./);
  assert.match(run.stderr, /scenario "empty": values: data\/empty\.csv: has no rows \(only the header id\); add at least one row of values/);
  assert.doesNotMatch(run.stderr, /ready|warm/i, 'no service was started');
  assert.ok(Date.now() - started < 30_000);
});
