// lane: beside — its load generator is a fake whose windows the test decides: nothing in it is measured.
/**
 * The engine with a fake load generator behind its load seam (EnginePorts.load): real trees,
 * real services started and stopped, every phase through results.json, but windows whose numbers
 * the test decides. Fast, and exact where real load is noisy.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ScenarioConfig } from '../../src/config/types.js';
import { ScenarioError } from '../../src/engine/errors.js';
import type { LoadGenerator, LoadOptions, WindowSample } from '../../src/engine/load/seam.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import { runCompare } from '../../src/engine/run.js';
import { copyableInstall } from '../../src/engine/workspace/trees.js';
import { readResults } from '../../src/results/io.js';
import { engineRequest } from '../helpers/engine.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

interface Opened {
  urls: string[];
  scenario: ScenarioConfig;
  options: LoadOptions;
}

/** A generator whose windows say what `answer` makes of the target's index and the options it was opened with. */
function fakeLoad(answer: (target: number, opened: Opened) => Partial<WindowSample>): { generator: LoadGenerator; opened: Opened[] } {
  const opened: Opened[] = [];
  const generator: LoadGenerator = async (urls, scenario, options) => {
    const entry = { urls, scenario, options };
    opened.push(entry);
    return {
      async measure(durationMs) {
        return urls.map((_, i) => ({
          startedAt: new Date().toISOString(),
          durationMs,
          requests: 100,
          rps: 100 / (durationMs / 1000),
          latencyUs: { p50: 1000, p90: 2000, p99: 3000, max: 4000, mean: 1200 },
          non2xx: 0,
          errors: 0,
          timeouts: 0,
          served: 100,
          ...answer(i, entry),
        }));
      },
      async close() {},
    };
  };
  return { generator, opened };
}

const service = { 'server.js': { copy: 'services/work-server.js' }, 'work.json': JSON.stringify({ iterations: 1000 }) };
const ports = (load: LoadGenerator) => ({
  logger: { info() {}, warn() {}, debug() {} },
  progress() {},
  env: process.env,
  secrets: [],
  load,
});

async function compare(repo: string, load: LoadGenerator, tracker = new ProcessTracker()) {
  return runCompare(await engineRequest(repo, tracker), ports(load));
}

test('a rate relative to capacity is measured once, in a closed loop on base, and every later load is opened at that rate', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios:\n  - { path: /work, rate: 60% }\n') }, { 'README.md': 'docs' });
  // Closed loop: base (the first target of the warm-up's order is either side) serves 1000 req/s or 1500 req/s.
  const { generator, opened } = fakeLoad((target, o) => (o.scenario.rate ? {} : { rps: 1000 + 500 * target }));
  const { results } = await compare(repo, generator);
  const probes = opened.filter((o) => !o.scenario.rate);
  assert.equal(probes.length, 1, 'one closed-loop capacity probe for the run');
  // The probe runs in the scenario's first turn, on that turn's two starts in its order: the first pair measured.
  const baseFirst = results.scenarios[0]!.pairs[0]!.order[0] === 'base';
  const capacity = baseFirst ? 1000 : 1500;
  assert.deepEqual(results.scenarios[0]!.rate, { perSecond: 0.6 * capacity, source: 'capacity', baseCapacity: capacity });
  const fixed = opened.filter((o) => o.scenario.rate);
  assert.ok(fixed.length >= 12, 'every start pair opened its fixed-rate load');
  for (const o of fixed) assert.equal(o.options.ratePerSecond, 0.6 * capacity);
});

test('a route answering errors on both sides stops at the first warm-up: no pair is measured, every service is stopped', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /work]\n') }, { 'README.md': 'docs' });
  const { generator, opened } = fakeLoad(() => ({ non2xx: 100 }));
  const tracker = new ProcessTracker();
  await assert.rejects(compare(repo, generator, tracker), (e: unknown) => e instanceof ScenarioError && /fails on both base and head/.test(e.message));
  assert.equal(opened.length, 1, 'stopped after the first start pair’s warm-up');
  const results = readResults(join(repo, '.out', 'results.json'));
  assert.equal(results.status, 'failed');
  assert.equal(results.scenarios[0]!.pairs.length, 0);
  assert.equal(tracker.size, 0, 'no service left running');
});

test('a route failing on one side only is measured (a verdict, not a broken scenario)', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios: [GET /work]\n') }, { 'README.md': 'docs' });
  // The first turn's warm-up decides: base failing there is a verdict to measure (head failing would stop the run).
  const request = await engineRequest(repo, new ProcessTracker());
  const block = request.plan.blocks[0]!;
  const firstOrder = block.scenarios[0]!.pairs.find((pair) => pair.slot === block.turns[0]!.slot)!.order;
  const { generator, opened } = fakeLoad((target, entry) => (entry === opened[0] && target === firstOrder.indexOf('base') ? { non2xx: 100 } : {}));
  const { results } = await runCompare(request, ports(generator));
  assert.equal(results.status, 'complete');
  assert.equal(results.scenarios[0]!.pairs.length, 12);
});

test('a fixed rate the generator cannot send stops the run after the first warm-up and says what to do', async () => {
  const repo = makeRepo({ ...service, 'perfgate.yml': quickConfig('scenarios:\n  - { path: /work, rate: 90000 }\n') }, { 'README.md': 'docs' });
  const { generator } = fakeLoad(() => ({ offered: { ratePerSecond: 90_000, sent: 3000, dropped: 0, lagUsP50: 800_000, lagUsP99: 1_500_000 } }));
  await assert.rejects(
    compare(repo, generator),
    (e: unknown) => e instanceof ScenarioError && /cannot send 90000 req\/s to each side on this machine: its requests left 800 ms late/.test(e.message) && /rate: 60%/.test(e.message),
  );
});

test('three scenarios: each start pair serves them all in its turn, the first warmed the whole warm-up and the others one slice each', async () => {
  const yaml = `service:
  start: node server.js
  ready: { timeout: 10s }
scenarios: [GET /work?a, GET /work?b, GET /work?c]
load:
  pairs: 8
  blocks: 2
  instances: 2
  slice: 200ms
  warmup: 600ms
profile: false
`;
  const repo = makeRepo({ ...service, 'perfgate.yml': yaml }, { 'README.md': 'docs' });
  const windows: { path: string; urls: string; ms: number }[] = [];
  const { generator: inner } = fakeLoad(() => ({}));
  const generator: LoadGenerator = async (urls, scenario, options) => {
    const load = await inner(urls, scenario, options);
    const measure: typeof load.measure = (ms, window) => {
      windows.push({ path: scenario.path, urls: [...urls].sort().join(), ms });
      return load.measure(ms, window);
    };
    return { ...load, measure };
  };
  const tracker = new ProcessTracker();
  const request = await engineRequest(repo, tracker);
  const { results } = await runCompare(request, ports(generator));
  assert.equal(results.status, 'complete');
  // The windows as the plan's turns say: per turn, its start pair's first scenario 3 warm-up
  // windows and its 2 pairs, then each other scenario 1 warm-up window and its 2 pairs.
  const expected = request.plan.blocks.flatMap((block) =>
    block.turns.flatMap((turn) =>
      turn.scenarios.flatMap((name, position) => {
        const path = request.config.scenarios.find((s) => s.name === name)!.path;
        return Array.from({ length: (position === 0 ? 3 : 1) + 2 }, () => ({ path, ms: 200 }));
      }),
    ),
  );
  assert.deepEqual(windows.map(({ path, ms }) => ({ path, ms })), expected);
  // Each turn's windows are on one start pair's two services, and each turn's is another start pair.
  const perTurn = 3 + 2 + 2 * (1 + 2);
  const turnUrls = Array.from({ length: windows.length / perTurn }, (_, t) => new Set(windows.slice(t * perTurn, (t + 1) * perTurn).map((w) => w.urls)));
  for (const urls of turnUrls) assert.equal(urls.size, 1, 'one start pair per turn');
  assert.equal(new Set(turnUrls.map((u) => [...u][0])).size, turnUrls.length, 'every turn a start pair of its own');
  for (const scenario of results.scenarios) assert.equal(scenario.pairs.length, 8);
  assert.equal(tracker.size, 0);
});

test("head takes a copy of base's npm ci when package.json, lockfile, .npmrc and command are base's: files of its own, links into its own tree, and the log says so", async () => {
  const report = join(mkdtempSync(join(tmpdir(), 'perfgate-copy-')), 'seen.txt');
  // Each start's setup writes what its tree's node_modules is: the lockfile's inode, and where the linked dependency resolves.
  const seen = `node -e "const f=require('fs');f.appendFileSync('${report}',process.env.PERFGATE_SIDE+' '+f.statSync('node_modules/.package-lock.json').ino+' '+f.realpathSync('node_modules/dep')+'\\\\n')"`;
  const files = {
    ...service,
    'package.json': JSON.stringify({ name: 'svc', version: '1.0.0', private: true, dependencies: { dep: 'file:vendor/dep' } }),
    'package-lock.json': JSON.stringify({
      name: 'svc',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'svc', version: '1.0.0', dependencies: { dep: 'file:vendor/dep' } },
        'node_modules/dep': { resolved: 'vendor/dep', link: true },
        'vendor/dep': { name: 'dep', version: '1.0.0' },
      },
    }),
    '.npmrc': 'audit=false\nfund=false\nupdate-notifier=false\n',
    'vendor/dep/package.json': JSON.stringify({ name: 'dep', version: '1.0.0' }),
    'perfgate.yml': `service:\n  start: node server.js\n  setup: ${JSON.stringify(seen)}\nscenarios: [GET /work]\nload: { pairs: 6, blocks: 1, instances: 1, slice: 100ms, warmup: 100ms }\nprofile: false\n`,
  };
  const repo = makeRepo(files, { 'README.md': 'docs' });
  const { generator } = fakeLoad(() => ({}));
  const { results } = await compare(repo, generator);
  assert.equal(results.status, 'complete');
  assert.match(readFileSync(join(repo, '.out', 'logs', 'head-install.log'), 'utf8'), /npm ci not run: .* node_modules is a copy of base's/);
  assert.doesNotMatch(readFileSync(join(repo, '.out', 'logs', 'base-install.log'), 'utf8'), /copy/);
  const lines = readFileSync(report, 'utf8').trim().split('\n').map((l) => l.split(' '));
  const of = (side: string) => lines.find((l) => l[0] === side)!;
  assert.notEqual(of('base')[1], of('head')[1], "head's node_modules has files of its own");
  assert.notEqual(of('base')[2], of('head')[2]);
  assert.match(of('head')[2]!, /vendor\/dep$/);
  // A head whose package.json differs installs on its own.
  const changed = makeRepo(files, { 'package.json': JSON.stringify({ name: 'svc', version: '1.0.1', private: true, dependencies: { dep: 'file:vendor/dep' } }) });
  await compare(changed, generator).catch(() => undefined);
  assert.doesNotMatch(readFileSync(join(changed, '.out', 'logs', 'head-install.log'), 'utf8'), /copy of base's/);
});

test('copyableInstall: only the same npm ci on the same files, without workspaces or root install scripts', () => {
  const dirs = { base: mkdtempSync(join(tmpdir(), 'perfgate-b-')), head: mkdtempSync(join(tmpdir(), 'perfgate-h-')) };
  const both = (file: string, text: string) => {
    for (const dir of Object.values(dirs)) writeFileSync(join(dir, file), text);
  };
  both('package.json', '{"name":"x"}');
  both('package-lock.json', '{"lockfileVersion":3}');
  assert.deepEqual(copyableInstall(dirs, { base: 'npm ci', head: 'npm ci' }), { ok: true });
  assert.equal(copyableInstall(dirs, { base: 'npm ci', head: 'npm ci && npm run gen' }).ok, false);
  assert.equal(copyableInstall(dirs, { base: 'pnpm install --frozen-lockfile', head: 'pnpm install --frozen-lockfile' }).ok, false);
  writeFileSync(join(dirs.head, '.npmrc'), 'registry=https://example.invalid/\n');
  assert.deepEqual(copyableInstall(dirs, { base: 'npm ci', head: 'npm ci' }), { ok: false, reason: '.npmrc differs' });
  both('.npmrc', '');
  both('package.json', '{"name":"x","scripts":{"postinstall":"node gen.js"}}');
  assert.deepEqual(copyableInstall(dirs, { base: 'npm ci', head: 'npm ci' }), { ok: false, reason: 'package.json has a postinstall script' });
  both('package.json', '{"name":"x","workspaces":["packages/*"]}');
  assert.deepEqual(copyableInstall(dirs, { base: 'npm ci', head: 'npm ci' }), { ok: false, reason: 'the package has workspaces' });
});
