// lane: beside — each seed's head is a gross regression (an image read and a font loaded per request, a 2 ms loop block per request, every document read), found by its profile's own share of CPU per request; a neighbour's load changes neither.
/**
 * The seed articles' worked examples, end to end (issue 25): each service as the article builds
 * it, with its real dependencies (npm ci from the fixture's lockfile, as perfgate installs users'
 * trees), base against head under perfgate compare with profiles on. What a user sees is
 * asserted: the verdict (exit code), the culprit the headline and verdicts.json name.
 * Fixtures: test/fixtures/seeds/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { explainProfile } from '../../src/profile/culprit.js';
import { readResults } from '../../src/results/io.js';
import type { VerdictEntry, VerdictsDocument } from '../../src/assess/verdicts.js';
import { runCli } from '../helpers/cli.js';
import { type FerretDB, ferretdbSkip, startFerretDB } from '../helpers/ferretdb.js';
import { processesIn } from '../helpers/processes.js';
import { lineOf } from '../helpers/profiles.js';
import { type Files, makeRepo } from '../helpers/repo.js';

const MEME = 'seeds/meme';
const meme: Files = {
  '.gitignore': 'node_modules\n',
  'package.json': { copy: `${MEME}/package.json` },
  'package-lock.json': { copy: `${MEME}/package-lock.json` },
  'util.js': { copy: `${MEME}/util.js` },
  'content/brick.png': { copy: `${MEME}/content/brick.png` },
};
const MEME_ROUTE = 'GET /?title=too%20much%20time&aligned=middle';

/** The seed fixture's line holding `text`, 1-based. */
function seedLine(file: string, text: string): number {
  return lineOf(`../seeds/${file}`, text);
}

/** The verdicts.json entry of a gated HTTP metric. */
function verdictOf(verdicts: VerdictsDocument, metric: string): VerdictEntry {
  const entry = verdicts.metrics.find((m) => m.kind === 'http' && m.metric === metric);
  assert.ok(entry, `${metric} in verdicts.json`);
  return entry;
}

describe("clinic's meme generator (jimp)", () => {
  // The article's slow server reads the brick wall and loads the font inside the handler; its fix
  // loads them once. As a pull request: base has the fix, head moves the loading back into the
  // handler. The decoding runs after Jimp.read's and loadFont's awaits, on stacks of jimp's frames
  // alone: the culprit is the handler that awaits them, what the user would change.
  test('a head that reads the image and loads the font on every request fails, and the handler that loads them is named', async () => {
    const repo = makeRepo(
      {
        ...meme,
        'server.js': { copy: `${MEME}/server-base.js` },
        // Six start pairs, one pair each (the fewest pairs perfgate takes): below the sign-flip
        // test's reach at 1% (1/2^6), so the verdict rests on its bound for start pairs that all
        // moved one way (stats/sign-flip.ts, studentizedAgreement), which a drop of two thirds,
        // every start within a few points of the others, passes by orders of magnitude. Slices of
        // 1 s, as head answers a few requests a second on a busy machine, and 1 s of warm-up: the
        // revert arm judges the route at it, and half a second beside a busy neighbour saw none
        // of head's requests finish; 2 s of profile
        // still hold about a hundred of head's requests, hundreds of samples of the handler.
        'perfgate.yml': `service:
  start: node server.js
  ready: { timeout: 30s }
scenarios: ['${MEME_ROUTE}']
load: { pairs: 6, blocks: 1, instances: 6, slice: 1s, warmup: 1s, connections: 2 }
profile: { duration: 2s }
`,
      },
      { 'server.js': { copy: `${MEME}/server-head.js` } },
    );
    const out = join(repo, '.out');
    const verdictsFile = join(out, 'verdicts.json');
    const started = Date.now();
    const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '25', '--verdicts', verdictsFile], repo);
    console.log(`meme: exit ${run.code} in ${Math.round((Date.now() - started) / 1000)} s: ${run.stdout.split('\n')[1]}`);
    assert.equal(run.code, 1, run.stderr + run.stdout);
    assert.deepEqual(processesIn(repo), [], 'no process of the run is left');
    const handlerLine = seedLine('meme/server-head.js', 'async function handler');
    const named = `most new time in handler \\(server\\.js:${handlerLine}, changed by this PR\\)`;
    assert.match(run.stdout.split('\n').slice(0, 2).join('\n'), new RegExp(`failing: GET /\\?title=too%20much%20time&aligned=middle throughput −[\\d.]+% \\(limit 2%\\): ${named}`));
    // Base's handler prints on the image loaded at start-up, which head no longer loads: the
    // handler's old lines do not stand on their own, and the third arm says so instead of
    // measuring the 500s they answer.
    assert.match(run.stdout.split('\n')[1]!, /; not tested by a revert: the reverted head failed 100(\.0)?% of its requests \(head (0(\.0)?%|: no request finished yet)\)/);
    const verdicts = JSON.parse(readFileSync(verdictsFile, 'utf8')) as VerdictsDocument;
    assert.equal(verdicts.decision, 'fail');
    const arm = readResults(join(out, 'results.json')).confirmations?.[0];
    assert.deepEqual([arm?.status, arm?.pairs.length], ['skipped', 0], 'the arm stops at the warm-up its reverted head fails: no pair of error pages is measured');
    const throughput = verdictOf(verdicts, 'throughput');
    assert.equal(throughput.verdict, 'regression');
    assert.deepEqual(
      { function: throughput.culprit?.function, file: throughput.culprit?.file, line: throughput.culprit?.line, changedByPr: throughput.culprit?.changedByPr },
      { function: 'handler', file: 'server.js', line: handlerLine, changedByPr: true },
    );
    // The time it added per request is the loading's: most of head's extra CPU per request.
    const results = readResults(join(out, 'results.json'));
    const culprit = explainProfile(results.profiles![0]!).culprit!;
    const scale = culprit.fn.scale!;
    assert.ok(culprit.fn.added! > 0.5 * (scale.head - scale.base), `handler adds ${culprit.fn.added!.toFixed(0)} µs of head's ${(scale.head - scale.base).toFixed(0)} µs more CPU per request`);
  });
});

const PM2 = 'seeds/pm2';
const pm2Service: Files = {
  '.gitignore': 'node_modules\n',
  'package.json': { copy: `${PM2}/package.json` },
  'package-lock.json': { copy: `${PM2}/package-lock.json` },
  'ecosystem.config.cjs': { copy: `${PM2}/ecosystem.config.cjs` },
  'server.js': { copy: `${PM2}/server-base.js` },
};

/** perfgate compare on the PM2 service: pm2-runtime in the foreground, its cluster of two workers. */
async function comparePm2(head: Files) {
  const repo = makeRepo(
    {
      ...pm2Service,
      // Six start pairs in one block, all up at once (each start is PM2's daemon and two workers),
      // one pair each: a head that answers a twentieth of base's requests or fewer, in every start,
      // is a verdict by the bound for start pairs that all moved one way (stats/sign-flip.ts,
      // studentizedAgreement), as for the meme generator.
      'perfgate.yml': `service:
  start: node node_modules/pm2/bin/pm2-runtime start ecosystem.config.cjs
  ready: { timeout: 60s }
scenarios: [GET /]
load: { pairs: 6, blocks: 1, instances: 6, slice: 500ms, warmup: 500ms }
profile: { duration: 2s, confirm: false }
`,
    },
    head,
  );
  const pm2Home = join(homedir(), '.pm2');
  const hadPm2Home = existsSync(pm2Home);
  // The run's temporary directories go to one of its own, so what it leaves there is its own,
  // whatever other test files make in the shared one meanwhile.
  const ownTmp = mkdtempSync(join(tmpdir(), 'pm2-run-'));
  const startHomes = () => readdirSync(ownTmp).filter((name) => name.startsWith('perfgate-pm2-'));
  const out = join(repo, '.out');
  const verdictsFile = join(out, 'verdicts.json');
  const started = Date.now();
  const sharedTmp = process.env.TMPDIR;
  process.env.TMPDIR = ownTmp;
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '25', '--verdicts', verdictsFile], repo).finally(() => {
    if (sharedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = sharedTmp;
  });
  console.log(`pm2: exit ${run.code} in ${Math.round((Date.now() - started) / 1000)} s: ${run.stdout.split('\n')[1]}`);
  assert.notEqual(run.code, 2, run.stderr + run.stdout);
  assert.deepEqual(processesIn(repo), [], 'no process of the run is left: PM2\'s daemon and its workers stopped with each start');
  if (!hadPm2Home) assert.equal(existsSync(pm2Home), false, 'PM2 kept its state in each start\'s own PM2_HOME, not in ~/.pm2');
  assert.deepEqual(startHomes(), [], 'each start\'s PM2_HOME is removed when it stops');
  return {
    run,
    results: readResults(join(out, 'results.json')),
    verdicts: JSON.parse(readFileSync(verdictsFile, 'utf8')) as VerdictsDocument,
  };
}

describe('the cluster and PM2 chapter: a service under pm2-runtime in cluster mode', () => {
  test('a head whose handler blocks the loop for 2 ms per request fails; every worker is measured and profiled, and the culprit is named', async () => {
    const { run, results, verdicts } = await comparePm2({ 'server.js': { copy: `${PM2}/server-head.js` } });
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const delayLine = seedLine('pm2/server-head.js', 'function delay');
    assert.match(run.stdout.split('\n').slice(0, 2).join('\n'), new RegExp(`failing: GET / throughput −[\\d.]+% \\(limit 2%\\): most new time in delay \\(server\\.js:${delayLine}, changed by this PR\\)`));
    const throughput = verdictOf(verdicts, 'throughput');
    assert.equal(throughput.verdict, 'regression');
    assert.equal(throughput.culprit?.function, 'delay');
    assert.equal(throughput.culprit?.line, delayLine);
    assert.equal(throughput.culprit?.changedByPr, true);
    // Health: both of PM2's workers report from inside (the preload reaches them through PM2's
    // daemon), in every slice of both sides; CPU is the whole tree's.
    for (const pair of results.scenarios[0]!.pairs) {
      for (const slice of [pair.base, pair.head]) {
        assert.ok(slice.health, 'every slice has health data');
        assert.equal(slice.health.processes.filter((p) => p.worker).length, 2, 'two cluster workers report');
        assert.ok(slice.cpuSeconds > 0);
      }
    }
    // Profiles: written by the workers (and PM2's daemon) on their way out, merged per side.
    const profile = results.profiles![0]!;
    for (const side of ['base', 'head'] as const) {
      assert.ok(profile.sides[side].processes.filter((p) => p.samples > 0).length >= 2, `${side}: profiles of both workers`);
      assert.ok(profile.sides[side].requests > 0);
    }
  });
});

const MONGO = 'seeds/mongo';
const recipe: Files = {
  '.gitignore': 'node_modules\n',
  'package.json': { copy: `${MONGO}/package.json` },
  'package-lock.json': { copy: `${MONGO}/package-lock.json` },
  'setup.js': { copy: `${MONGO}/setup.js` },
  'server.js': { copy: `${MONGO}/server-base.js` },
};

describe("the cookbook's Express + MongoDB recipe, on FerretDB with the mongodb driver", { skip: ferretdbSkip }, () => {
  let mongo: FerretDB;
  before(async () => {
    mongo = await startFerretDB();
  });
  after(async () => {
    await mongo?.stop();
  });

  /** perfgate compare on the recipe's service; setup.js gives each side its own database of 1000 documents. */
  async function compareRecipe(head: Files) {
    const repo = makeRepo(
      {
        ...recipe,
        // Six start pairs of one pair each and half a second of warm-up, as for the meme generator:
        // head answers about twenty requests a second, a twentieth of base, in every start. The
        // profile keeps its 3 s: head answers only 25 to 50 requests in it, and bson's
        // deserializeObject is sampled a few times in them.
        'perfgate.yml': `service:
  start: node server.js
  setup: node setup.js
  env: { MONGO_URL: "${mongo.url}" }
  ready: { timeout: 30s }
scenarios: [GET /hello]
load: { pairs: 6, blocks: 1, instances: 6, slice: 1s, warmup: 500ms, connections: 2 }
profile: { duration: 3s, confirm: false }
`,
      },
      head,
    );
    const out = join(repo, '.out');
    const verdictsFile = join(out, 'verdicts.json');
    const started = Date.now();
    const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '25', '--verdicts', verdictsFile], repo);
    console.log(`mongo: exit ${run.code} in ${Math.round((Date.now() - started) / 1000)} s: ${run.stdout.split('\n')[1]}`);
    assert.notEqual(run.code, 2, run.stderr + run.stdout);
    assert.deepEqual(processesIn(repo), [], 'no process of the run is left');
    return {
      run,
      results: readResults(join(out, 'results.json')),
      verdicts: JSON.parse(readFileSync(verdictsFile, 'utf8')) as VerdictsDocument,
    };
  }

  // The recipe's slow server reads all 1000 documents and averages them in the handler; its "best
  // way" computes nothing per request (the average is stored with the data). As a pull request:
  // base has the fix, head goes back to find().toArray() and reduce.
  test('a head that reads every document to average them fails, and the handler that reads them is named', async () => {
    const { run, results, verdicts } = await compareRecipe({ 'server.js': { copy: `${MONGO}/server-head.js` } });
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const handlerLine = seedLine('mongo/server-head.js', 'async function hello');
    assert.match(run.stdout.split('\n').slice(0, 2).join('\n'), new RegExp(`failing: GET /hello throughput −[\\d.]+% \\(limit 2%\\): most new time in hello \\(server\\.js:${handlerLine}, changed by this PR\\)`));
    assert.equal(verdicts.decision, 'fail');
    const throughput = verdictOf(verdicts, 'throughput');
    assert.equal(throughput.verdict, 'regression');
    assert.deepEqual(
      { function: throughput.culprit?.function, file: throughput.culprit?.file, line: throughput.culprit?.line, changedByPr: throughput.culprit?.changedByPr },
      { function: 'hello', file: 'server.js', line: handlerLine, changedByPr: true },
    );
    // What the handler spends it on: the recipe's flamegraph shows BSON deserialization, and so do
    // head's samples. The driver's (mongodb's on-demand documents, bson's deserializeObject) grow
    // by most of the time the handler added per request.
    const profile = results.profiles![0]!;
    const driverMs = (side: 'base' | 'head') =>
      (profile.sides[side].packages ?? []).filter((p) => p.name === 'mongodb' || p.name === 'bson').reduce((sum, p) => sum + p.samples, 0) *
      (profile.intervalUs / 1000) / profile.sides[side].requests;
    const culprit = explainProfile(profile).culprit!;
    const addedMs = culprit.fn.added! / 1000;
    assert.ok(driverMs('head') - driverMs('base') > 0.5 * addedMs, `the driver: ${driverMs('base').toFixed(2)} → ${driverMs('head').toFixed(2)} ms per request, of ${addedMs.toFixed(2)} ms hello added`);
    assert.ok(profile.sides.head.functions.some((f) => f.name === 'deserializeObject' && f.package === 'bson'), "bson's deserializeObject is sampled in head");
    // I/O: base's findOne is one round trip per request; head's find is the query and the
    // cursor's getMores (FerretDB sends 101, then up to 250 documents a batch: 5 round trips;
    // MongoDB would send the rest in one getMore), and waits on them far longer.
    const io = assessResults(results).io?.comparisons.find((c) => c.destination === `127.0.0.1:${mongo.port}`);
    assert.ok(io?.base && io.head, 'FerretDB is a destination');
    assert.ok(Math.abs(io.base.roundTripsPerRequest - 1) < 0.2, `base: one round trip per request, ${io.base.roundTripsPerRequest}`);
    assert.ok(io.head.roundTripsPerRequest >= 2, `head: the find and its getMores, ${io.head.roundTripsPerRequest}`);
    assert.equal(io.roundTripsChanged, true);
    assert.ok(io.head.waitMsPerRequest > 5 * io.base.waitMsPerRequest, `waiting ${io.base.waitMsPerRequest} → ${io.head.waitMsPerRequest} ms per request`);
  });
});
