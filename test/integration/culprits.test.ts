/**
 * Naming the culprit in the service's own code when its time is spent below it (issue 13): real
 * services, base against head, profiled under load. Each fixture asserts what a reader sees:
 * the culprit is the first own row, and the headline names it for the regressed scenario.
 * Fixtures: test/fixtures/services/culprits/*-base.js and *-head.js; routes.js there serves the
 * plain-JS ones as one service, a scenario each, so one compare measures and profiles them all.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { explainProfile } from '../../src/profile/culprit.js';
import { displayName } from '../../src/profile/names.js';
import { diffProfiles, type FunctionChange, hottestChanges } from '../../src/profile/diff.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { readResults } from '../../src/results/io.js';
import type { Results, ScenarioProfile } from '../../src/results/types.js';
import { runCli } from '../helpers/cli.js';
import { lineOf } from '../helpers/profiles.js';
import { makeRepo } from '../helpers/repo.js';

interface Run {
  scenario: string;
  results: Results;
  stdout: string;
  markdown: string;
  own: FunctionChange[];
}

/** The plain-JS fixtures, each served by test/fixtures/services/culprits/routes.js at GET /<name>. */
const FIXTURES = ['zlib', 'clone', 'regex', 'moved', 'deopt'] as const;
type Fixture = (typeof FIXTURES)[number];

/** The fixture's scenario, as the report names it. */
const scenarioOf = (name: Fixture) => `GET /${name}`;

/**
 * perfgate compare on a repository that serves the named fixtures (base, then head) from one
 * service, a scenario each, every scenario profiled; each fixture's view of the run.
 * 8 start pairs, every one slower on head, give p = 1/2^8 (2/2^8 with one pair the other way, at
 * the smallest rank): below alpha, a regression of each scenario's metrics that are not gated,
 * which head's several-fold CPU per request makes certain. Holm over five scenarios' gated
 * metrics would ask a p below 2^-10 of those, so this run does not fail the build: the headline
 * names each scenario's culprit on a line of its own, and the failing form that leads a headline
 * is the dependency cases' (one scenario, 10 pairs).
 * A profile of 1 s a side holds 500 to 1,000 samples of each: the culprits here hold a third or
 * more of head's time and add several times what the next own function adds.
 */
async function compareFixtures(names: readonly Fixture[]): Promise<Map<Fixture, Run>> {
  const side = (which: 'base' | 'head') => Object.fromEntries(names.map((name) => [`${name}.js`, { copy: `services/culprits/${name}-${which}.js` }]));
  // routes.js loads every fixture: one the run leaves out is served from its base on both sides
  const unused = Object.fromEntries(FIXTURES.filter((name) => !names.includes(name)).map((name) => [`${name}.js`, { copy: `services/culprits/${name}-base.js` }]));
  const repo = makeRepo(
    {
      'node_modules/culprit-routes/package.json': JSON.stringify({ name: 'culprit-routes', version: '1.0.0', main: 'index.js' }),
      'node_modules/culprit-routes/index.js': { copy: 'services/culprits/routes.js' },
      ...side('base'),
      ...unused,
      'perfgate.yml': `service:
  install: false
  start: node node_modules/culprit-routes/index.js
  ready: { timeout: 10s }
scenarios: [${names.map(scenarioOf).join(', ')}]
load: { pairs: 8, blocks: 1, instances: 8, slice: 300ms, warmup: 300ms }
profile: { duration: 1s, when: always, confirm: false }
`,
    },
    side('head'),
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo);
  assert.notEqual(run.code, 2, run.stderr + run.stdout);
  const results = readResults(join(out, 'results.json'));
  const markdown = renderMarkdown(results, assessResults(results));
  return new Map(
    names.map((name) => {
      const scenario = scenarioOf(name);
      const profile = profileOf({ scenario, results });
      const own = hottestChanges(diffProfiles(profile.sides.base, profile.sides.head, profile.intervalUs), ['own'], 10);
      return [name, { scenario, results, stdout: run.stdout, markdown, own }];
    }),
  );
}

/** The run's profile of the run's scenario. */
function profileOf(run: Pick<Run, 'scenario' | 'results'>): ScenarioProfile {
  const profile = run.results.profiles?.find((p) => p.scenario === run.scenario);
  assert.ok(profile, `${run.scenario}: profiled`);
  return profile;
}

/**
 * The headline's culprit line for the scenario's regression, terminal and markdown alike
 * (throughput when it regressed, else another metric). The failing scenario that leads the
 * headline has its culprit there ("failing: GET /zlib throughput −19.9% (limit 2%): most new time
 * in …"); every other regressed scenario has a line of its own ("GET /clone: CPU / request +40% ·
 * most new time in …").
 */
function assertHeadline(run: Run, culprit: RegExp): void {
  const regressed = assessResults(run.results).comparisons.filter((c) => c.scenario === run.scenario && c.verdict === 'regression');
  assert.ok(regressed.length > 0, `${run.scenario}: head is slower`);
  const metric = '(throughput −|latency p\\d+ \\+|CPU / request \\+)[\\d.,]+%';
  const limit = '(?: \\(limit [^)]*\\))?(?::| ·)';
  const name = run.scenario.replace(/[/]/g, '\\/');
  // the headline is the output's first paragraph
  const terminal = run.stdout.split('\n\n')[0]!;
  assert.match(terminal, new RegExp(`(?:failing: ${name} |${name}: )${metric}${limit} ${culprit.source}`), terminal);
  // markdown escapes the code's characters (\*, \[): compared as the reader sees them
  const headline = run.markdown.split('\n\n').slice(0, 2).join('\n\n').replace(/\\(.)/g, '$1');
  assert.match(headline, new RegExp(`(?:failing: ${name} |🔎 \\*\\*${name}:\\*\\* )${metric}${limit} ${culprit.source}`), headline);
}

/** Whether head's profiled CPU time per request exceeds base's by 10%. */
function grew(run: Run): boolean {
  const scale = run.own[0]?.scale;
  return scale !== null && scale !== undefined && scale.head > 1.1 * scale.base;
}

describe('the culprit in own code', () => {
  // One service serves every plain-JS fixture, a scenario each: one compare, every scenario profiled.
  let runs: Map<Fixture, Run>;
  before(async () => {
    runs = await compareFixtures(FIXTURES);
  });

  test('a helper that calls zlib.gzipSync: the helper is first, its time named as zlib', () => {
    const run = runs.get('zlib')!;
    const [first] = run.own;
    assert.equal(first!.name, 'compressBody');
    assert.equal(first!.line, lineOf('culprits/zlib-head.js', 'function compressBody'));
    assert.ok(first!.attributedChange > 0.2, `compressBody +${(100 * first!.attributedChange).toFixed(1)} pp`);
    // its own code is next to nothing: the time is zlib's, below it
    assert.ok(first!.change < 0.05, `self change ${(100 * first!.change).toFixed(1)} pp`);
    assert.equal(first!.into[0]!.category === 'node' || first!.into[0]!.category === 'native', true);
    // the PR rewrote compressBody's body: the culprit is code it changed
    const culprit = explainProfile(profileOf(run), run.results).culprit!;
    assert.equal(culprit.changed, true);
    assert.equal(culprit.text, `most new time in compressBody (zlib.js:${first!.line}, changed by this PR) → zlib`);
    assertHeadline(run, /most new time in compressBody \(zlib\.js:\d+, changed by this PR\) → zlib/);
    assert.match(run.stdout, /compressBody +zlib\.js:\d+ .*\+[\d.]+ (µs|ms) in zlib /);
  });

  test('a deep clone with JSON builtins, a flatMap callback on the next line: the function that clones is first and named', async () => {
    // The premise is head's profiled CPU per request above base's: a profiled side that shares the
    // machine with a busy neighbour can come out slower per request, so that scenario alone is
    // run again, up to 3 runs in all.
    let run = runs.get('clone')!;
    for (let attempt = 1; attempt < 3 && !grew(run); attempt++) run = (await compareFixtures(['clone'])).get('clone')!;
    assert.ok(grew(run), 'head profiled slower per request than base, in 3 runs');
    const [first] = run.own;
    const rows = run.own.map((c) => `${displayName(c)} ${c.added?.toFixed(0)} µs`).join(', ');
    // JSON.parse and JSON.stringify have no frame of their own: their time is on resolvePermissions' line
    assert.equal(first!.name, 'resolvePermissions', rows);
    assert.equal(first!.line, lineOf('culprits/clone-head.js', 'function resolvePermissions'));
    assert.equal(run.own.find((c) => displayName(c) === 'arrow in resolvePermissions' && (c.added ?? 0) > first!.added! / 2), undefined, rows);
    assertHeadline(run, /most new time in resolvePermissions \(clone\.js:\d+, changed by this PR\)/);
  });

  test('a validator whose regex backtracks: the validator is first, its time named as the regex; the event-loop hint names it', () => {
    const run = runs.get('regex')!;
    const [first] = run.own;
    assert.equal(first!.name, 'validateName');
    assert.ok(first!.attributedChange > 0.2, `validateName +${(100 * first!.attributedChange).toFixed(1)} pp`);
    // the PR changed the pattern, a constant outside validateName
    assertHeadline(run, /most new time in validateName \(regex\.js:\d+, not changed by this PR: called more, or with larger inputs, by something that changed\) → regex \/\^\(\[a-z\]\+\)\*\$\//);
    const hints = (assessResults(run.results).health?.hints ?? []).filter((h) => h.scenario === run.scenario);
    const loop = hints.find((h) => h.kind === 'blocked-loop' || h.kind === 'cpu-per-request');
    assert.ok(loop, `a health hint about the loop or CPU: ${JSON.stringify(hints)}`);
    const lines = run.stdout.split('\n').filter((line) => line.includes(run.scenario));
    assert.match(lines.join('\n'), /(event loop blocked|CPU per request).* — most new time in validateName \(regex\.js:\d+, not changed by this PR: .*\) → regex/);
    assert.doesNotMatch(lines.join('\n'), /see hot functions/);
  });

  test('an anonymous handler whose line moved: one matched row, named by its kind and place, first', () => {
    const run = runs.get('moved')!;
    const [first] = run.own;
    const headLine = lineOf('culprits/moved-head.js', '.createServer(');
    assert.equal(first!.status, 'both', 'matched across the diff, not gone + new');
    assert.equal(first!.baseLine, lineOf('culprits/moved-base.js', '.createServer('));
    assert.equal(first!.line, headLine);
    assert.equal(displayName(first!), 'arrow at top level');
    assert.equal(run.own.filter((c) => c.status !== 'both' && c.name.startsWith('(anonymous moved.js')).length, 0, 'no gone/new twin');
    // the handler's text is as it was (ROUNDS, above it, changed): not changed by this PR, and said so
    assert.equal(explainProfile(profileOf(run), run.results).culprit!.changed, false);
    assertHeadline(run, new RegExp(`most new time in arrow at top level \\(moved\\.js:${headLine}, not changed by this PR: called more, or with larger inputs, by something that changed\\) → crypto`));
    assert.match(run.stdout, /arrow at top level +moved\.js:\d+ .*moved from line \d+/);
  });

  /**
   * A service on tiny-router, 1.0.0 on base and 1.1.0 on head, installed in the repository (the
   * test installs nothing); with npm's lockfile, or pinned in package.json alone. 10 start pairs:
   * p = 1/2^10, which Holm over the scenario's 3 gated metrics keeps below alpha, so the build
   * fails and the headline leads with the failing form.
   */
  function upgradeRepo(lockfile: boolean): string {
    const pkg = (version: string) => ({
      'node_modules/tiny-router/package.json': JSON.stringify({ name: 'tiny-router', version, main: 'index.js' }),
      'node_modules/tiny-router/index.js': { copy: `services/culprits/upgrade/router-${version}.js` },
      // npm's own format (lockfileVersion 3), written by hand: the test installs nothing
      ...(lockfile && {
        'package-lock.json': JSON.stringify({
          name: 'svc',
          lockfileVersion: 3,
          requires: true,
          packages: { '': { name: 'svc', dependencies: { 'tiny-router': `^${version}` } }, 'node_modules/tiny-router': { version } },
        }),
      }),
      'package.json': JSON.stringify({ name: 'svc', private: true, dependencies: { 'tiny-router': lockfile ? '^1.0.0' : version } }),
    });
    return makeRepo(
      {
        'server.js': { copy: 'services/culprits/upgrade/server.js' },
        ...pkg('1.0.0'),
        'perfgate.yml': `service:
  install: false
  start: node server.js
  ready: { timeout: 10s }
scenarios: [GET /]
load: { pairs: 10, blocks: 1, instances: 10, slice: 300ms, warmup: 300ms }
profile: { duration: 1s, confirm: false }
`,
      },
      pkg('1.1.0'),
    );
  }

  test('an upgraded dependency: the headline names the package with both versions and its function; time by package in the report', async () => {
    const repo = upgradeRepo(true);
    const out = join(repo, '.out');
    const cli = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo);
    assert.notEqual(cli.code, 2, cli.stderr + cli.stdout);
    const results = readResults(join(out, 'results.json'));
    assert.deepEqual(results.dependencies, { lockfile: 'package-lock.json', changed: [{ name: 'tiny-router', base: ['1.0.0'], head: ['1.1.0'], direct: true }] });
    // each side's frames found their package.json: the version is the one installed on that side
    assert.equal(results.profiles![0]!.sides.head.packages!.find((p) => p.name === 'tiny-router')?.version, '1.1.0');
    // (1.0.0's Map lookup is too quick to be sampled much, if at all)
    assert.notEqual(results.profiles![0]!.sides.base.packages!.find((p) => p.name === 'tiny-router')?.version ?? '1.0.0', '1.1.0');
    const run: Run = { scenario: 'GET /', results, stdout: cli.stdout, markdown: renderMarkdown(results, assessResults(results)), own: [] };
    assertHeadline(run, /most new time in tiny-router 1\.0\.0 → 1\.1\.0 \(changed by this PR\): (matchLayer|lookup) in index\.js/);
    assert.match(cli.stdout, /by package .*\n *package +version +base +head +change\n *tiny-router +1\.0\.0 → 1\.1\.0 +/);
  });

  test('a version pinned in package.json alone, without a lockfile: the installed versions name the package as a locked one would', async () => {
    const repo = upgradeRepo(false);
    const out = join(repo, '.out');
    const cli = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13'], repo);
    assert.notEqual(cli.code, 2, cli.stderr + cli.stdout);
    const results = readResults(join(out, 'results.json'));
    assert.deepEqual(results.dependencies, { lockfile: 'node_modules', changed: [{ name: 'tiny-router', base: ['1.0.0'], head: ['1.1.0'], direct: true }] });
    const run: Run = { scenario: 'GET /', results, stdout: cli.stdout, markdown: renderMarkdown(results, assessResults(results)), own: [] };
    assertHeadline(run, /most new time in tiny-router 1\.0\.0 → 1\.1\.0 \(changed by this PR\): (matchLayer|lookup) in index\.js/);
  });

  describe('a deoptimization introduced in head', () => {
    let run: Run;
    // Whether V8 reports the deoptimization in the profiled run is its own decision (one full
    // test run in three saw none): the premise is retried, up to 3 runs, and the assertions below
    // then check what perfgate made of it.
    before(async () => {
      run = runs.get('deopt')!;
      for (let attempt = 1; attempt < 3 && !run.own.find((c) => c.name === 'sumPrices')?.optimization; attempt++) {
        run = (await compareFixtures(['deopt'])).get('deopt')!;
      }
    });

    test('the deoptimized function is marked with V8\'s reason, in head only; the headline names a culprit', () => {
      const row = run.own.find((c) => c.name === 'sumPrices');
      assert.ok(row?.optimization, 'marked as deoptimized in head only');
      assert.equal(row.optimization.kind, 'deoptimized');
      assert.ok(row.optimization.reasons.some((r) => /map/i.test(r)), row.optimization.reasons.join('; '));
      assertHeadline(run, /most new time in \S.*\(deopt\.js:\d+, (not )?changed by this PR[^)]*\)/);
      assert.match(run.stdout, /! sumPrices \(deopt\.js:\d+\) deoptimized \d+× by V8 in head only: .*map/);
      assert.match(run.markdown, /⚠️ sumPrices \(deopt\.js:\d+\) deoptimized \d+× by V8 in head only/);
    });

    // The megamorphic loads run in inline-cache stubs that V8 samples without sumPrices' frame:
    // it books them to the handler's call line, or, once sumPrices is inlined into the handler,
    // to EventEmitter.emit's `handler.apply(…)` line; the call lines give them back (inlining.ts).
    // sumPrices holds most of the samples on both sides (the process is saturated either way), so
    // its share hardly moves while its time per request grows several times: time ranks (diff.ts).
    test('the deoptimized function is the first own row, holds most of the new time per request, and the headline names it', () => {
      const [first] = run.own;
      const rows = run.own.map((c) => `${displayName(c)} ${c.added?.toFixed(0)} µs (${(100 * c.attributedChange).toFixed(1)} pp)`).join(', ');
      assert.equal(first!.name, 'sumPrices', rows);
      assert.equal(first!.line, lineOf('culprits/deopt-head.js', 'function sumPrices'));
      // Most of the time the own functions added: the share of all of head's added CPU moves with
      // a busy neighbour, whose stolen time V8 books to whatever frame was running, own or not.
      const ownAdded = run.own.reduce((sum, c) => sum + Math.max(0, c.added ?? 0), 0);
      assert.ok(first!.added! > 0.5 * ownAdded, `sumPrices adds ${first!.added!.toFixed(0)} µs of the ${ownAdded.toFixed(0)} µs the own functions added per request: ${rows}`);
      // the PR changed the items sumPrices is given, not sumPrices: the code it changed is named
      // beside it when that grew by 1% of base's CPU or more (makeItems' objects with a sale field
      // cost more to build), else where to look
      assertHeadline(
        run,
        /most new time in sumPrices \(deopt\.js:\d+, not changed by this PR(?:: called more, or with larger inputs, by something that changed\)|\); most in code this PR changed: (?:makeItems|arrow at top level) \(deopt\.js:\d+\))/,
      );
      assert.match(run.stdout, /sumPrices ! +deopt\.js:\d+ +[\d.]+ (µs|ms) +[\d.]+ (µs|ms) +\+[\d.]+ (µs|ms)/);
    });
  });

});
