/**
 * Report mode reads a results.json uploaded by a job that ran the pull request's code. Every
 * structurally forged file must become one ResultsFileError (no crash, no stack), and every
 * forged text must reach the comment escaped: no HTML, no ping, no reference, no autolink, no
 * invisible character.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assessResults } from '../../src/assess/compare.js';
import { boundSummaries } from '../../src/profile/diff.js';
import { renderComment } from '../../src/report/comment.js';
import { ResultsFileError, readResults } from '../../src/results/io.js';
import type { ProcessHealth, Results, SideProfile } from '../../src/results/types.js';
import { validateResults } from '../../src/results/validate.js';
import { benchRounds } from '../helpers/bench.js';
import { regressedPairs } from '../helpers/github-runs.js';
import { fixtureSummary } from '../helpers/profiles.js';
import { resultsFromPairs } from '../helpers/results.js';

const ZWJ = '\u200D';

function processHealth(pid: number): ProcessHealth {
  const gc = { count: 3, ms: 1.5 };
  return {
    pid,
    ppid: 1,
    worker: false,
    windowMs: 300,
    eventLoopDelayUs: { p50: 900, p99: 1800, max: 4000, samples: 28 },
    eventLoopUtilization: 0.6,
    gc: { minor: gc, major: gc, incremental: gc, weakcb: gc },
    heapUsedBytes: 8e6,
    heapAfterGcBytes: 6e6,
    rssBytes: 5e7,
    activeHandles: 4,
    io: [{ destination: '127.0.0.1:5432', roundTrips: 42, waitMs: 12.5 }],
    ioRequests: 2,
    queries: [{ destination: 'localhost:6379', name: 'GET', calls: 2, waitMs: 0.4 }],
    allocatedBytes: 41_000_000,
    syscalls: 6100,
    socketBytesRead: 120_000,
    socketBytesWritten: 900_000,
    responses: 1000,
  };
}

/** Every part a results.json can have: HTTP pairs with health, benchmarks, profiles, warnings, the GitHub record. */
function completeResults(): Results {
  const results = resultsFromPairs(regressedPairs());
  for (const pair of results.scenarios[0]!.pairs) {
    for (const side of ['base', 'head'] as const) {
      pair[side].generatorCpuSeconds = 0.2;
      pair[side].generatorEventLoopUtilization = 0.3;
      pair[side].health = { requestsSinceStart: 1000 * (pair.index + 1), missing: 0, processes: [processHealth(100 + pair.index)] };
      // What a fixed-rate slice adds.
      pair[side].latencyUs.p999 = pair[side].latencyUs.max;
      pair[side].offered = { ratePerSecond: 500, sent: 500, dropped: 0, lagUsP50: 80, lagUsP99: 900 };
      // What a scenario of several requests adds.
      pair[side].byRequest = [
        { name: 'login', responses: 100, failed: 1, p50Us: 900, p99Us: 4000 },
        { name: 'profile', responses: 99, failed: 0, p50Us: 700, p99Us: 3000 },
      ];
    }
  }
  Object.assign(results.config.scenarios[0]!, {
    requests: [
      { name: 'login', method: 'POST', path: '/login', headers: { 'content-type': 'application/json' }, body: '{"user":"{user}"}', weight: 1, capture: { token: { from: 'body', path: ['token'] } } },
      { name: 'profile', method: 'GET', path: '/me', headers: { authorization: 'Bearer {token}' }, body: null, weight: 1, capture: { s: { from: 'header', name: 'x-session' } } },
    ],
    sequence: true,
    values: { file: 'data/users.csv' },
  });
  // What a slice that answered unexpected statuses adds, and the answer sampled after it.
  for (const pair of results.scenarios[0]!.pairs) {
    pair.head.non2xx = 30;
    pair.head.statuses = { '500': 20, '503': 10 };
  }
  results.scenarios[0]!.unexpectedAnswer = { head: { status: 500, body: '{"error":"connection pool exhausted"}' } };
  results.scenarios[0]!.rate = { perSecond: 500, source: 'capacity', baseCapacity: 830 };
  results.starts = [
    { start: 0, block: 0, side: 'base', readyMs: 312, rssBytes: 61_000_000 },
    { start: 0, block: 0, side: 'head', readyMs: 355, rssBytes: null },
  ];
  results.config.scenarios[0]!.rate = { ofCapacity: 0.6 };
  results.config.scenarios[0]!.expect = [200, 304];
  const runs = benchRounds(6, 'bench/sum.bench.js', (side) => [{ name: 'sum', ops: side === 'base' ? 1000 : 900 }]);
  results.benchmarks = { files: { base: ['bench/sum.bench.js'], head: ['bench/sum.bench.js'] }, rounds: 6, runs, stoppedEarly: null };
  const bounded = boundSummaries(fixtureSummary('base'), fixtureSummary('head'), 10);
  const side = (s: 'base' | 'head'): SideProfile => ({
    ...bounded[s],
    profiler: 'cpu-prof',
    nodeVersion: 'v24.21.0',
    requests: 4000,
    windowMs: 2000,
    wallMs: 4000,
    processes: [{ file: `profiles/get-hello/${s}/CPU.1.cpuprofile`, samples: bounded[s].samples }],
    merged: `profiles/get-hello/${s}.cpuprofile`,
    inlinedSamples: 0,
  });
  results.profiles = [
    {
      scenario: 'GET /hello',
      durationMs: 2000,
      intervalUs: 1000,
      sides: { base: side('base'), head: side('head') },
      files: { head: 'flamegraph-head.html', base: 'flamegraph-base.html', diff: 'flamegraph-diff.html' },
      renderMs: 1800,
    },
  ];
  results.profiles[0]!.sides.head.functions[0]!.deoptReasons = ['wrong map'];
  results.warnings = [{ code: 'not-production', message: 'the runner was noisy', scenario: 'GET /hello', benchmark: 'sum' }];
  results.github = { repository: 'acme/shop', pullRequest: 7, headSha: 'b'.repeat(40), baseSha: 'a'.repeat(40), runId: '42', event: 'pull_request' };
  return results;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Paths of every leaf (string, number, boolean) of a JSON value; of a list, its first two entries' (the rest are alike). */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path];
  const entries = Array.isArray(value) ? value.slice(0, 2).map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => leaves(v, [...path, k]));
}

function setAt(target: unknown, path: (string | number)[], value: unknown): void {
  let node = target as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
}

/** Text a hostile PR would put anywhere it can: HTML, a team ping, a comment opener, links, references, invisible characters. */
const HOSTILE = '<img src=x onerror=alert(1)> @org/team <!-- #123 GH-45 https://evil.example www.evil.example \u200B\u202Eevil\u2066 `x` | [a](javascript:x)';

/** What must never appear in a comment body rendered from a forged file (after the marker line). */
const RAW: [string, RegExp][] = [
  ['HTML tag', /<img|<script|<!--/i],
  ['@mention', /@(?!\u200D)[A-Za-z]/],
  ['#reference', /#123/],
  ['GH- reference', /GH-45/i],
  ['URL autolink', /:\/\/evil/i],
  ['www autolink', /www\.evil/i],
  ['invisible or bidi character', /[\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/],
  ['markdown link', /(?<!\\)\]\(javascript/],
];

function rawParts(body: string): string[] {
  // Links perfgate builds to the repository's own files carry the (percent-encoded) path: a link target, not text.
  const text = body.slice(body.indexOf('\n') + 1).replace(/\]\(https:\/\/github\.com\/acme\/shop\/blob\/[^)\s]*\)/g, '](own-link)');
  return RAW.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
}

describe('validateResults', () => {
  test('a complete file passes through unchanged (every field results/types.ts has is in the schema)', () => {
    const results = completeResults();
    assert.deepEqual(validateResults(clone(results), 'results.json'), results);
  });

  test('results from an older release (no health, generator, benchmarks, profiles, record) still validate', () => {
    const old = resultsFromPairs(regressedPairs()) as unknown as Record<string, unknown>;
    const config = old.config as Record<string, unknown>;
    delete config.profile;
    delete config.benchmarks;
    delete (config.load as Record<string, unknown>).earlyStop;
    assert.doesNotThrow(() => validateResults(old, 'old.json'));
  });

  test('every forged field is refused or rendered escaped: 0 rendered raw', (t) => {
    const results = completeResults();
    let tried = 0;
    let refused = 0;
    const renderedRaw: string[] = [];
    for (const path of leaves(results)) {
      const forged = clone(results);
      setAt(forged, path, HOSTILE);
      tried++;
      let valid: Results;
      try {
        valid = validateResults(forged, 'results.json');
      } catch (e) {
        assert.ok(e instanceof ResultsFileError, `${path.join('.')}: ${(e as Error).stack}`);
        assert.ok(!(e as Error).message.includes('<img'), 'the error names the field, never echoes its value');
        refused++;
        continue;
      }
      const body = renderComment(valid, assessResults(valid), 'default', { repositoryUrl: 'https://github.com/acme/shop' });
      const raw = rawParts(body);
      if (raw.length > 0) renderedRaw.push(`${path.join('.')}: ${raw.join(', ')}`);
    }
    t.diagnostic(`forged fields tried: ${tried}; refused by the schema: ${refused}; rendered escaped: ${tried - refused - renderedRaw.length}; rendered raw: ${renderedRaw.length}`);
    assert.ok(tried >= 150, `${tried} fields`);
    assert.deepEqual(renderedRaw, []);
  });
});

/** A results file as loose JSON, for forging any field. */
// biome-ignore lint/suspicious/noExplicitAny: forging reaches into any field of any shape
type Loose = Record<string, any>;

/** Structurally forged files: each must give one ResultsFileError, never a crash. */
const FORGED_FILES: [string, string | ((r: Loose) => void)][] = [
  ['not JSON', '<html>not json</html>'],
  ['a JSON array', '[]'],
  ['null', 'null'],
  ['a string', '"perfgate/results"'],
  ['no schema', (r) => delete r.schema],
  ['another version', (r) => (r.version = 2)],
  ['version as text', (r) => (r.version = '1')],
  ['scenarios an object', (r) => (r.scenarios = { 0: {} })],
  ['pairs a string', (r) => (r.scenarios[0].pairs = 'many')],
  ['a pair without its base slice', (r) => delete r.scenarios[0].pairs[0].base],
  ['rps as HTML', (r) => (r.scenarios[0].pairs[0].head.rps = '<b>9000</b>')],
  ['a fractional request count', (r) => (r.scenarios[0].pairs[0].head.requests = 1.5)],
  ['latency null', (r) => (r.scenarios[0].pairs[0].base.latencyUs = null)],
  ['an infinite rate (1e999)', '1e999'],
  ['no environment', (r) => delete r.environment],
  ['cpus as HTML', (r) => (r.environment.cpus = '<b>8</b>')],
  ['seed as a team ping', (r) => (r.seed = '@org/team')],
  ['blocks as a comment opener', (r) => (r.config.load.blocks = '<!--')],
  ['a head sha that is not hex', (r) => (r.sides.head.sha = '<script>alert(1)</script>'.padEnd(40, 'x'))],
  ['no config', (r) => delete r.config],
  ['no gate rules', (r) => delete r.config.gate],
  ['a warning without a message', (r) => (r.warnings = [{ code: 'x' }])],
  ['a function line as a URL', (r) => (r.profiles[0].sides.head.functions[0].line = 'javascript:alert(1)')],
  ['the pull request as text', (r) => (r.github.pullRequest = '7')],
  ['a pair run base then base', (r) => (r.scenarios[0].pairs[0].order = ['base', 'base'])],
  ['a 3 MB tool version', (r) => (r.tool.version = 'x'.repeat(3_000_000))],
  ['benchmark runs an object', (r) => (r.benchmarks.runs = {})],
  ['profiles with a missing side', (r) => delete r.profiles[0].sides.base],
  ['a side that is neither base nor head', (r) => (r.scenarios[0].pairs[0].head.side = 'main')],
  ['a negative error count', (r) => (r.scenarios[0].pairs[0].head.errors = -1)],
  ['deep nesting', () => {}],
  ['a complete run whose scenario has no pairs (would read as no regression)', (r) => (r.scenarios[0].pairs = [])],
  ['a complete run with no scenario and no benchmark', (r) => {
    r.scenarios = [];
    delete r.benchmarks;
  }],
];

describe('forged results files', () => {
  test('each gives one clear ResultsFileError: 0 crashes', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-forged-'));
    let crashes = 0;
    for (const [i, [what, forge]] of FORGED_FILES.entries()) {
      let text: string;
      if (what === 'deep nesting') text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      else if (what === 'an infinite rate (1e999)') text = JSON.stringify(completeResults()).replace('"rps":', '"rps":1e999,"x":');
      else if (typeof forge === 'string') text = forge;
      else {
        const r = clone(completeResults()) as Loose;
        forge(r);
        text = JSON.stringify(r);
      }
      const path = join(dir, `forged-${i}.json`);
      writeFileSync(path, text);
      try {
        const read = validateResults(readResults(path, { maxBytes: 64 * 2 ** 20 }), 'the results artifact of run 1');
        assert.fail(`${what}: accepted (${JSON.stringify(read).slice(0, 80)})`);
      } catch (e) {
        if (!(e instanceof ResultsFileError)) {
          crashes++;
          t.diagnostic(`${what}: ${(e as Error).stack}`);
          continue;
        }
        assert.doesNotMatch(e.message, /\n\s+at /, `${what}: no stack in the message`);
        assert.doesNotMatch(e.message, /<b>|<script|@org/, `${what}: the forged value is not echoed`);
      }
    }
    t.diagnostic(`forged files tried: ${FORGED_FILES.length}; crashes: ${crashes}`);
    assert.ok(FORGED_FILES.length >= 19);
    assert.equal(crashes, 0);
  });

  test('a file over the size cap is refused before it is read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-forged-'));
    const path = join(dir, 'big.json');
    writeFileSync(path, JSON.stringify(completeResults()));
    assert.throws(() => readResults(path, { maxBytes: 1000 }), (e) => e instanceof ResultsFileError && /refusing to read it/.test(e.message));
  });
});

describe('hostile names in the comment', () => {
  test(`autolinks, references, pings and invisible characters are broken or removed (ZWJ-separated)`, () => {
    const results = completeResults();
    results.scenarios[0]!.name = HOSTILE;
    results.config.scenarios[0]!.name = HOSTILE;
    const body = renderComment(results, assessResults(results), 'default');
    assert.deepEqual(rawParts(body), []);
    assert.ok(body.includes(`https:${ZWJ}//evil.example`));
    assert.ok(body.includes(`www${ZWJ}.evil.example`));
    assert.ok(body.includes(`GH${ZWJ}-45`));
  });
});
