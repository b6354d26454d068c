// unit: slow — mitata measures each benchmark for a fixed time of its own (about 10 s).
/**
 * The benchmark preload on its own: `node --require bench-preload.cjs <file>` on small suites in
 * a project with its own copy of each library, and what it captured. (The engine around it is
 * tested in test/integration/bench-*.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseCapture } from '../../src/engine/phases/bench/capture.js';
import { describeFailure } from '../../src/engine/phases/bench/runner.js';
import { preloadPath } from '../../src/engine/service/service.js';
import { libraryFiles } from '../helpers/bench.js';
import { makeRepo } from '../helpers/repo.js';

const project = makeRepo(
  {
    ...libraryFiles('benchmark', 'tinybench', 'mitata'),
    'benchmark-suite.cjs': `
const Benchmark = require('benchmark');
const options = { minTime: 0.005, maxTime: 0.05, minSamples: 5 };
new Benchmark.Suite('math')
  .add('sqrt', () => Math.sqrt(Math.random()), options)
  .add('throws', () => { throw new Error('boom'); }, options)
  .run({ async: true });
new Benchmark('alone', () => Math.cbrt(Math.random()), options).run();
`,
    'benchmark-suite.mjs': `
import Benchmark from 'benchmark';
const suite = new Benchmark.Suite('esm');
suite.add('twice', () => Math.sqrt(Math.random()), { minTime: 0.005, maxTime: 0.05 });
suite.add('twice', () => Math.cbrt(Math.random()), { minTime: 0.005, maxTime: 0.05 });
suite.on('cycle', (e) => console.log(String(e.target))).run();
`,
    'tinybench-suite.mjs': `
import { Bench } from 'tinybench';
const bench = new Bench({ name: 'tb', time: 20, warmupTime: 5, retainSamples: true });
bench.add('sqrt', () => Math.sqrt(Math.random())).add('throws', () => { throw new Error('nope'); });
await bench.run();
`,
    'tinybench-suite.cjs': `
const { Bench } = require('tinybench');
const bench = new Bench({ time: 20, warmupTime: 5 });
bench.add('sync', () => Math.sqrt(Math.random()));
bench.runSync();
`,
    'mitata-suite.mjs': `
import { bench, run } from 'mitata';
bench('scaled $n', function* (state) { const n = state.get('n'); yield () => Math.sqrt(n); }).args('n', [1, 2]);
await run({ format: 'quiet' });
`,
    'prints-only.cjs': "console.log('fast: 1,000,000 ops/sec');\n",
  },
  {},
);

function capture(file: string, cwd = project) {
  const output = join(cwd, `${file}.jsonl`);
  writeFileSync(output, '');
  const run = spawnSync('node', ['--require', preloadPath('bench-preload.cjs'), file], {
    cwd,
    env: { ...process.env, PERFGATE_BENCH_OUTPUT: output },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return { ...parseCapture(readFileSync(output, 'utf8')), stdout: run.stdout };
}

const OWN_COPY = (library: string) => new RegExp(`^${project}/node_modules/${library}/`);

describe('benchmark.js', () => {
  test('every Benchmark that completes, in a Suite or alone, once (async suites emit complete twice)', () => {
    const { benchmarks, libraries } = capture('benchmark-suite.cjs');
    // The lone benchmark runs synchronously, before the asynchronous suite's first cycle.
    assert.deepEqual(
      benchmarks.map((b) => [b.name, b.suite, b.error === null]),
      [
        ['alone', null, true],
        ['sqrt', 'math', true],
        ['throws', 'math', false],
      ],
    );
    const sqrt = benchmarks[1]!;
    assert.equal(sqrt.library, 'benchmark');
    assert.ok(sqrt.opsPerSec! > 1e5, `hz ${sqrt.opsPerSec}`);
    assert.equal((sqrt.stats as { hz: number }).hz, sqrt.opsPerSec, 'the one number is benchmark.js hz');
    assert.ok(sqrt.rme! > 0);
    assert.ok(sqrt.sampleCount >= 5 && sqrt.samplesNs.length === sqrt.sampleCount);
    // hz = 1 / mean seconds per operation, and the samples are ns per operation
    const meanNs = sqrt.samplesNs.reduce((a, b) => a + b, 0) / sqrt.samplesNs.length;
    assert.ok(Math.abs(1e9 / meanNs / sqrt.opsPerSec! - 1) < 1e-6);
    assert.match(benchmarks[2]!.error!, /boom/);
    assert.equal(benchmarks[2]!.opsPerSec, null);
    assert.deepEqual(
      libraries.map((l) => [l.name, l.version, l.unsupported]),
      [['benchmark', '2.1.4', null]],
    );
    assert.match(libraries[0]!.path, OWN_COPY('benchmark'), "the project's own copy is the one hooked");
  });

  test('from ESM; the same name twice in a suite is kept apart by its order; output is left alone', () => {
    const { benchmarks, stdout } = capture('benchmark-suite.mjs');
    assert.deepEqual(
      benchmarks.map((b) => [b.suite, b.name, b.occurrence]),
      [
        ['esm', 'twice', 1],
        ['esm', 'twice', 2],
      ],
    );
    assert.match(stdout, /twice x [\d,.]+ ops\/sec/, "the suite's own output is still printed");
  });
});

describe('tinybench', () => {
  test('every task of a Bench run, from ESM, with its statistics and samples', () => {
    const { benchmarks, libraries } = capture('tinybench-suite.mjs');
    assert.deepEqual(
      benchmarks.map((b) => [b.suite, b.name, b.error === null]),
      [
        ['tb', 'sqrt', true],
        ['tb', 'throws', false],
      ],
    );
    const sqrt = benchmarks[0]!;
    const latency = (sqrt.stats as { latencyMs: { mean: number } }).latencyMs;
    assert.ok(Math.abs(sqrt.opsPerSec! * latency.mean - 1000) < 1e-6, 'ops/s = 1000 / mean latency in ms');
    assert.ok(sqrt.samplesNs.length > 0 && sqrt.samplesNs.length <= 1000, 'samples kept by retainSamples, at most 1,000');
    assert.ok(sqrt.sampleCount >= sqrt.samplesNs.length);
    assert.match(benchmarks[1]!.error!, /nope/);
    assert.match(libraries[0]!.path, OWN_COPY('tinybench'));
  });

  test('from CommonJS, runSync', () => {
    const { benchmarks } = capture('tinybench-suite.cjs');
    assert.deepEqual(
      benchmarks.map((b) => [b.suite, b.name, b.opsPerSec! > 0]),
      [[null, 'sync', true]],
    );
  });
});

describe('mitata', () => {
  // From CommonJS: test/integration/bench-libraries.test.ts. A mitata process takes about 8 s
  // whatever it measures, so each form runs in one place only.
  test('every benchmark of run(), from ESM, one per argument', () => {
    const esm = capture('mitata-suite.mjs');
    assert.deepEqual(
      esm.benchmarks.map((b) => [b.name, b.opsPerSec! > 0, b.samplesNs.length > 0]),
      [
        ['scaled 1', true, true],
        ['scaled 2', true, true],
      ],
    );
    const avg = (esm.benchmarks[0]!.stats as { avg: number }).avg;
    assert.ok(Math.abs(esm.benchmarks[0]!.opsPerSec! * avg - 1e9) < 1e-3, 'ops/s = 1e9 / mean ns');
    assert.match(esm.libraries[0]!.path, OWN_COPY('mitata'));
  });

  test('a version without the hooks perfgate uses is named, with what it supports', () => {
    const old = makeRepo(
      {
        'node_modules/mitata/package.json': JSON.stringify({ name: 'mitata', version: '0.1.6', main: 'src/cli.mjs', type: 'module' }),
        'node_modules/mitata/src/cli.mjs': 'export function bench() {}\nexport async function run() {}\n',
        'old.mjs': "import { bench, run } from 'mitata';\nbench('x', () => 1);\nawait run();\n",
      },
      {},
    );
    const captured = capture('old.mjs', old);
    assert.deepEqual(captured.benchmarks, []);
    assert.equal(captured.libraries[0]!.version, '0.1.6');
    const message = describeFailure({ code: 0, signal: null, timedOut: false }, captured, 60_000);
    assert.match(message!, /^mitata 0\.1\.6 cannot be captured: it exports no B class\. perfgate reads mitata 1\.x\./);
  });
});

test('a file that loads no library: the failure says perfgate reads libraries, not output', () => {
  const captured = capture('prints-only.cjs');
  assert.deepEqual(captured.benchmarks, []);
  assert.match(describeFailure({ code: 0, signal: null, timedOut: false }, captured, 1000)!, /loaded none of benchmark, tinybench or mitata/);
  assert.match(describeFailure({ code: null, signal: null, timedOut: true }, captured, 90_000)!, /did not finish within 90s \(benchmarks\.timeout\) and was killed/);
  assert.equal(describeFailure({ code: 3, signal: null, timedOut: false }, captured, 1000), 'exited with code 3');
});

test('capture lines are checked: junk, unknown libraries and bad numbers are not taken as they are', () => {
  const parsed = parseCapture(
    [
      'not json',
      '{"type":"result","library":"other","name":"x","opsPerSec":5}',
      '{"type":"result","library":"tinybench","name":"ok","suite":null,"opsPerSec":5,"samplesNs":[1,"2",null,3]}',
      '{"type":"result","library":"tinybench","name":"nan","opsPerSec":"fast"}',
      '[1,2]',
      '',
    ].join('\n'),
  );
  assert.deepEqual(
    parsed.benchmarks.map((b) => [b.name, b.opsPerSec, b.samplesNs, b.error]),
    [
      ['ok', 5, [1, 3], null],
      ['nan', null, [], 'no ops/s was measured'],
    ],
  );
});
