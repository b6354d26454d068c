import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  ConfigError,
  configJsonSchema,
  loadConfigFile,
  type PerfgateConfig,
  parseConfigText,
  parseScenarioLine,
  resolveConfig,
} from '../../src/config/index.js';
import {
  DOCS_FILE,
  docsText,
  EXAMPLE_YAML,
  SCHEMA_FILE,
  SNIPPETS,
  schemaText,
} from '../../scripts/write-schema.js';

const MINIMAL = { service: { start: 'node server.js' }, scenarios: ['GET /hello'] };

/** The ConfigError message of a config that must not resolve. */
function problems(input: Parameters<typeof resolveConfig>[0]): string {
  try {
    resolveConfig(input);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the configuration resolved, but it should not have');
}

function fromYaml(yaml: string, overrides?: unknown): PerfgateConfig {
  return resolveConfig({ document: parseConfigText(yaml, 'perfgate.yml'), overrides });
}

describe('resolveConfig: defaults', () => {
  test('a minimal document resolves every default', () => {
    assert.deepEqual(resolveConfig({ document: MINIMAL }), {
      service: {
        install: null,
        build: null,
        setup: null,
        start: 'node server.js',
        cwd: '.',
        env: { NODE_ENV: 'production' },
        ready: { path: null, timeoutMs: 30_000 },
      },
      scenarios: [
        {
          name: 'GET /hello',
          method: 'GET',
          path: '/hello',
          headers: {},
          body: null,
          connections: 10,
          pipelining: 1,
          rate: null,
          expect: null,
        },
      ],
      load: { sliceMs: 1000, pairs: 72, blocks: 3, instances: 8, warmupMs: 4000, earlyStop: true, mode: 'simultaneous', pin: 'auto' },
      benchmarks: null,
      gate: {
        throughput: { limit: 0.02, gated: true },
        latency_p50: { limit: 0.1, gated: false },
        latency_p90: { limit: 0.1, gated: false },
        latency_p99: { limit: 0.15, gated: true },
        latency_p999: { limit: 0.25, gated: false },
        cpu_per_request: { limit: 0.1, gated: false },
        errors: { limit: 0.01, gated: true },
        event_loop_delay_p99: { limit: 0.5, gated: true, min: 10_000 },
        event_loop_delay_max: { limit: 0.5, gated: false, min: 10_000 },
        event_loop_utilization: { limit: 0.1, gated: false },
        gc_per_request: { limit: 0.25, gated: false },
        allocated_per_request: { limit: 0.01, gated: false },
        gc_count_per_request: { limit: 0.1, gated: false },
        syscalls_per_request: { limit: 0.01, gated: false },
        socket_written_per_request: { limit: 0.01, gated: false },
        socket_read_per_request: { limit: 0.01, gated: false },
        startup_time: { limit: 0.2, gated: false },
        startup_memory: { limit: 0.1, gated: false },
        heap_growth: { limitMbPer10k: 0.5, gated: false },
        benchmarks: { limit: 0.1, gated: true },
      },
      alpha: 0.01,
      seed: null,
      profile: { enabled: true, durationMs: 10_000, intervalUs: 1000, scenarios: null, when: 'changed', confirm: true },
    });
  });

  test('overrides alone suffice (no perfgate.yml)', () => {
    const config = resolveConfig({ overrides: { service: { start: 'node s.js' }, scenarios: ['/hello'] } });
    assert.equal(config.service.start, 'node s.js');
    assert.equal(config.scenarios[0]!.name, 'GET /hello');
  });

  test('an empty file (null document) is no file', () => {
    const config = resolveConfig({ document: parseConfigText('# nothing yet\n', 'perfgate.yml'), overrides: MINIMAL });
    assert.equal(config.load.pairs, 72);
  });
});

describe('resolveConfig: the product sketch', () => {
  // The product sketch's perfgate.yml without benchmarks, gate.benchmarks and accept-label (benchmarks
  // are tested in bench-config.test.ts; accept-label is not in this version, see below).
  const PRODUCT_EXAMPLE = `
service:
  install: npm ci                # default: chosen from the lockfile (npm, pnpm, yarn)
  build: npm run build           # optional
  start: node server.js
  env: { NODE_ENV: production }  # production is the default: dev mode hides the truth
  ready: { path: /health, timeout: 30s }
scenarios:
  - name: hello
    path: /hello
  - name: echo
    method: POST
    path: /echo
    headers: { content-type: application/json }
    body: '{"hello":"world"}'
    connections: 10
    pipelining: 1
gate:                            # limits; a metric fails only if significant AND beyond its limit
  throughput: 5%
  latency_p99: 15%
`;

  test('resolves as written', () => {
    const config = fromYaml(PRODUCT_EXAMPLE);
    assert.deepEqual(config.service, {
      install: 'npm ci',
      build: 'npm run build',
      setup: null,
      start: 'node server.js',
      cwd: '.',
      env: { NODE_ENV: 'production' },
      ready: { path: '/health', timeoutMs: 30_000 },
    });
    assert.deepEqual(config.scenarios, [
      { name: 'hello', method: 'GET', path: '/hello', headers: {}, body: null, connections: 10, pipelining: 1, rate: null, expect: null },
      {
        name: 'echo',
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json' },
        body: '{"hello":"world"}',
        connections: 10,
        pipelining: 1,
        rate: null,
        expect: null,
      },
    ]);
    assert.deepEqual(config.gate.throughput, { limit: 0.05, gated: true });
    assert.deepEqual(config.gate.latency_p99, { limit: 0.15, gated: true });
    assert.deepEqual(config.gate.latency_p50, { limit: 0.1, gated: false });
  });

  test('keys of the sketch this version lacks are named, not guessed at', () => {
    const message = problems({
      document: parseConfigText(
        `${PRODUCT_EXAMPLE}benchmarks: ["bench/**/*.bench.js"]\naccept-label: perf-regression-accepted\n`,
        'perfgate.yml',
      ),
    });
    assert.deepEqual(message.split('\n'), [
      'perfgate.yml: accept-label is not supported yet by this version of perfgate; remove it',
    ]);
  });

  test('the reference example and snippets resolve', () => {
    const config = fromYaml(EXAMPLE_YAML);
    assert.equal(config.service.start, 'node dist/server.js');
    assert.deepEqual(config.service.env, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    assert.equal(config.scenarios[1]!.body, '{"hello":"world"}');
    assert.equal(config.scenarios[1]!.connections, 20);
    assert.deepEqual(config.gate.latency_p50, { limit: 0.1, gated: false });
    assert.deepEqual(config.gate.cpu_per_request, { limit: 0.2, gated: true });
    assert.equal(config.seed, 42);

    const start = { service: { start: 'node s.js' } };
    assert.equal(fromYaml(SNIPPETS.scenarios, start).scenarios.length, 4);
    const gate = fromYaml(SNIPPETS.gate, { ...start, scenarios: ['/'] }).gate;
    assert.deepEqual(gate.throughput, { limit: 0.03, gated: true });
    assert.deepEqual(gate.latency_p99, { limit: 0.15, gated: false });
    assert.deepEqual(gate.latency_p90, { limit: 0.1, gated: true });
    assert.deepEqual(gate.cpu_per_request, { limit: 0.1, gated: true });
  });
});

describe('resolveConfig: overrides', () => {
  const FILE = {
    service: { build: 'npm run build', start: 'node file.js', env: { A: '1' } },
    scenarios: ['GET /from-file', 'GET /also-from-file'],
    load: { slice: '2s', pairs: 30 },
    gate: { throughput: '3%' },
    seed: 7,
  };

  test('beat file values and merge objects key by key', () => {
    const config = resolveConfig({
      document: FILE,
      overrides: {
        service: { start: 'node override.js', env: { B: 2 } },
        scenarios: ['POST /from-input'],
        load: { pairs: 20 },
        gate: { latency_p99: '20%' },
      },
    });
    assert.equal(config.service.start, 'node override.js');
    assert.equal(config.service.build, 'npm run build', 'sibling keys of the file survive');
    assert.deepEqual(config.service.env, { NODE_ENV: 'production', A: '1', B: '2' });
    assert.deepEqual(
      config.scenarios.map((s) => s.name),
      ['POST /from-input'],
      'a list replaces, it does not append',
    );
    assert.equal(config.load.pairs, 20);
    assert.equal(config.load.sliceMs, 2000);
    assert.deepEqual(config.gate.throughput, { limit: 0.03, gated: true });
    assert.deepEqual(config.gate.latency_p99, { limit: 0.2, gated: true });
    assert.equal(config.seed, 7);
  });

  test('undefined means "not given" and keeps the file value; null replaces it', () => {
    const config = resolveConfig({ document: FILE, overrides: { service: { start: undefined, build: null } } });
    assert.equal(config.service.start, 'node file.js');
    assert.equal(config.service.build, null);
  });

  test('a bad override is blamed on the overrides, not the file', () => {
    const message = problems({
      document: FILE,
      overrides: { load: { pairs: 3 } },
      overridesSource: 'action inputs',
    });
    assert.match(message, /^action inputs: load\.pairs: 3 is not allowed; use an integer of at least 6/m);
    assert.doesNotMatch(message, /perfgate\.yml/);
    assert.match(problems({ overrides: { ...MINIMAL, seed: 'x' } }), /^inputs\/flags: seed: "x" is not allowed/m);
  });

  test('the action’s multi-line scenarios input is one scenario per non-empty line', () => {
    const config = resolveConfig({ overrides: { ...MINIMAL, scenarios: 'GET /a\n\n  post /b  \n/c\n' } });
    assert.deepEqual(
      config.scenarios.map((s) => [s.method, s.path]),
      [
        ['GET', '/a'],
        ['POST', '/b'],
        ['GET', '/c'],
      ],
    );
    assert.match(
      problems({ overrides: { ...MINIMAL, scenarios: 'GET /a\nFETCH /b' } }),
      /^inputs\/flags: scenarios\[1\]: "FETCH \/b" is not allowed: FETCH is not an HTTP method; use one of GET, POST/m,
    );
    assert.match(problems({ overrides: { ...MINIMAL, scenarios: ' \n' } }), /scenarios: " \\n" has no scenarios/);
  });
});

describe('resolveConfig: errors name the place, the value and what is allowed', () => {
  test('bad method', () => {
    const message = problems({
      document: { service: { start: 'x' }, scenarios: ['GET /a', { path: '/b', method: 'FETCH' }] },
    });
    assert.equal(
      message,
      'perfgate.yml: scenarios[1].method: "FETCH" is not allowed; use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
    );
  });

  test('bad duration and out-of-range durations', () => {
    assert.equal(
      problems({ document: { ...MINIMAL, load: { slice: 'fast' } } }),
      'perfgate.yml: load.slice: "fast" is not a duration; write e.g. 500ms, 1s, 2m (a bare number is seconds)',
    );
    assert.equal(
      problems({ document: { ...MINIMAL, load: { slice: '50ms' } } }),
      'perfgate.yml: load.slice: "50ms" is out of range; use 100ms to 1m',
    );
    assert.match(problems({ document: { ...MINIMAL, load: { warmup: true } } }), /load\.warmup: true is not a duration/);
  });

  test('missing start and scenarios say where to set them', () => {
    const message = problems({ document: { load: { pairs: 10 } } });
    assert.deepEqual(message.split('\n'), [
      'service.start is required: set it in perfgate.yml or pass --start / the start input',
      'scenarios is required: list at least one in perfgate.yml (e.g. "- GET /hello") or pass --scenario / the scenarios input; or list micro-benchmark files under benchmarks',
    ]);
    assert.match(problems({ document: { ...MINIMAL, service: { start: '  ' } } }), /^perfgate\.yml: service\.start: "" is empty; write the command that starts the service/m);
    assert.match(problems({ document: { ...MINIMAL, scenarios: [] } }), /scenarios: \[\] is empty; list at least one/);
  });

  test('every problem is listed, one per line', () => {
    const message = problems({
      document: parseConfigText(
        `
service: { start: node s.js, install: true, cwd: ../elsewhere }
scenarios: [GET /a, 42, { method: get }]
load: { pairs: 6.5, connections: 0 }
alpha: 0.5
`,
        'perfgate.yml',
      ),
    });
    assert.deepEqual(message.split('\n'), [
      'perfgate.yml: service.install: true is not an install command; write a command such as npm ci, or false to skip installing',
      'perfgate.yml: service.cwd: "../elsewhere" is outside the repository; write a directory inside it, e.g. packages/api',
      'perfgate.yml: scenarios[1]: 42 is not a scenario; write "GET /hello", "/hello", or a mapping with at least path',
      'scenarios[2].path is required: the request path, e.g. /hello',
      'perfgate.yml: load.pairs: 6.5 is not allowed; use an integer of at least 6 (with n pairs the smallest possible p is 1/2^n, and 6 give 0.016)',
      'perfgate.yml: load.connections: 0 is not allowed; use an integer from 1 to 1000',
      'perfgate.yml: alpha: 0.5 is not allowed; use a number above 0 and below 0.5, e.g. 0.01',
    ]);
  });

  test('unknown keys are errors with a did-you-mean suggestion', () => {
    const message = problems({
      document: {
        ...MINIMAL,
        scenarioes: ['GET /x'],
        gate: { 'latency-p99': '10%' },
        load: { timeout: '1s' },
        service: { start: 'x', strat: 'y' },
      },
      source: 'config/perf.yml',
    });
    assert.match(message, /^config\/perf\.yml: scenarioes is not a known key; did you mean "scenarios"\?/m);
    assert.match(message, /^config\/perf\.yml: gate\.latency-p99 is not a known key; did you mean "latency_p99"\?/m);
    assert.match(message, /^config\/perf\.yml: service\.strat is not a known key; did you mean "start"\?/m);
    // No near key: no guess, but the allowed keys.
    assert.match(
      message,
      /^config\/perf\.yml: load\.timeout is not a known key; allowed here: slice, pairs, blocks, instances, warmup, mode, pin, connections, pipelining, early-stop, stop$/m,
    );
  });

  test('long values are cut short', () => {
    const message = problems({ document: { ...MINIMAL, load: { slice: 'x'.repeat(500) } } });
    assert.ok(message.length < 200, message);
    assert.match(message, /…/);
  });

  test('a document that is not a mapping', () => {
    assert.match(problems({ document: ['GET /'] }), /^perfgate\.yml: \["GET \/"\] is not a mapping/);
  });

  test('blocks cannot exceed pairs', () => {
    assert.equal(
      problems({ document: { ...MINIMAL, load: { pairs: 6, blocks: 7 } } }),
      'perfgate.yml: load.blocks: 7 is more than load.pairs (6); use 1 to 6',
    );
  });
});

describe('scenarios', () => {
  test('rate: requests per second or a share of capacity; expect: one status or a list', () => {
    const config = fromYaml(`
service: { start: node s.js }
scenarios:
  - { path: /a, rate: 500 }
  - { path: /b, rate: 250/s, expect: 404 }
  - { path: /c, rate: 60%, expect: [200, 304] }
  - /d
`);
    assert.deepEqual(
      config.scenarios.map((s) => [s.rate, s.expect]),
      [
        [{ perSecond: 500 }, null],
        [{ perSecond: 250 }, [404]],
        [{ ofCapacity: 0.6 }, [200, 304]],
        [null, null],
      ],
    );
  });

  test('expect: a mapping checks the body too: text it contains, values at dot paths of its JSON', () => {
    const config = fromYaml(`
service: { start: node s.js }
scenarios:
  - { path: /a, expect: { status: 200, body: ok } }
  - { path: /b, expect: { json: { success: true, data.items.0.id: 7, note: null } } }
  - { path: /c, expect: { status: [200, 304] } }
`);
    assert.deepEqual(
      config.scenarios.map((s) => [s.expect, s.expectBody]),
      [
        [[200], { contains: 'ok' }],
        [null, { json: { success: true, 'data.items.0.id': 7, note: null } }],
        [[200, 304], undefined],
      ],
    );
    assert.equal('expectBody' in fromYaml('service: { start: node s.js }\nscenarios: [{ path: /d, expect: 404 }]\n').scenarios[0]!, false, 'a status alone stores as it did');
  });

  test('an expect: mapping that is empty, misspelt or holds no value to compare says what to write', () => {
    const message = problems({
      document: {
        service: { start: 'x' },
        scenarios: [
          { path: '/a', expect: {} },
          { path: '/b', expect: { status: 200, bodyy: 'ok' } },
          { path: '/c', expect: { json: { success: [true] } } },
          { path: '/d', expect: { body: '' } },
        ],
      },
    });
    assert.match(message, /scenarios\[0\]\.expect: .*give status, body or json/);
    assert.match(message, /scenarios\[1\]\.expect.*bodyy/);
    assert.match(message, /scenarios\[2\]\.expect\.json\.success: .*write a string, a number, true, false or null/);
    assert.match(message, /scenarios\[3\]\.expect\.body: .*is empty; write the text the body contains/);
  });

  test('a rate out of range or not a rate says what to write', () => {
    const message = problems({
      document: {
        service: { start: 'x' },
        scenarios: [
          { path: '/a', rate: 0 },
          { path: '/b', rate: '150%' },
          { path: '/c', rate: 'fast' },
          { path: '/d', rate: 1e6 },
          { path: '/e', expect: 700 },
        ],
      },
    });
    const hint = "write requests per second (e.g. 500 or 500/s, at most 100,000) or a share of base's capacity (e.g. 60%, from 1% to 100%)";
    assert.deepEqual(message.split('\n'), [
      `perfgate.yml: scenarios[0].rate: 0 is out of range; ${hint}`,
      `perfgate.yml: scenarios[1].rate: "150%" is out of range; ${hint}`,
      `perfgate.yml: scenarios[2].rate: "fast" is not a rate; ${hint}`,
      `perfgate.yml: scenarios[3].rate: 1000000 is out of range; ${hint}`,
      'perfgate.yml: scenarios[4].expect: 700 is not allowed; use an integer from 100 to 599',
    ]);
  });

  test('duplicate names are rejected, defaulted or explicit', () => {
    const message = problems({
      document: {
        service: { start: 'x' },
        scenarios: ['GET /a', '/a', { name: 'n', path: '/b' }, { name: 'n', path: '/c' }],
      },
    });
    assert.deepEqual(message.split('\n'), [
      'perfgate.yml: scenarios[1]: "GET /a" is also the name of scenarios[0] (names default to "METHOD path"); give one of them a name',
      'perfgate.yml: scenarios[3].name: "n" is already the name of scenarios[2]; give each scenario a unique name',
    ]);
  });

  test('an object or list body becomes JSON with content-type, unless one is given', () => {
    const config = resolveConfig({
      document: {
        service: { start: 'x' },
        scenarios: [
          { name: 'obj', method: 'post', path: '/a', body: { hello: 'world', n: [1, 2] } },
          { name: 'list', method: 'PUT', path: '/a', body: [1, 'two'] },
          { name: 'own', method: 'POST', path: '/a', headers: { 'Content-Type': 'application/vnd.x+json' }, body: {} },
          { name: 'text', method: 'POST', path: '/a', body: 'a=1' },
        ],
      },
    });
    const [obj, list, own, text] = config.scenarios;
    assert.equal(obj!.method, 'POST');
    assert.equal(obj!.body, '{"hello":"world","n":[1,2]}');
    assert.deepEqual(obj!.headers, { 'content-type': 'application/json' });
    assert.equal(list!.body, '[1,"two"]');
    assert.deepEqual(own!.headers, { 'Content-Type': 'application/vnd.x+json' });
    assert.equal(own!.body, '{}');
    assert.equal(text!.body, 'a=1');
    assert.deepEqual(text!.headers, {});
  });

  test('per-scenario connections and pipelining beat load defaults', () => {
    const config = resolveConfig({
      document: {
        service: { start: 'x' },
        scenarios: ['/a', { path: '/b', connections: 50, pipelining: 4 }],
        load: { connections: 5, pipelining: 2 },
      },
    });
    assert.deepEqual(
      config.scenarios.map((s) => [s.connections, s.pipelining]),
      [
        [5, 2],
        [50, 4],
      ],
    );
  });

  test('headers: values coerced to strings, names checked', () => {
    const config = resolveConfig({
      document: { service: { start: 'x' }, scenarios: [{ path: '/a', headers: { 'x-n': 5, 'x-b': true } }] },
    });
    assert.deepEqual(config.scenarios[0]!.headers, { 'x-n': '5', 'x-b': 'true' });
    assert.match(
      problems({ document: { service: { start: 'x' }, scenarios: [{ path: '/a', headers: { 'bad name': 'x' } }] } }),
      /^perfgate\.yml: scenarios\[0\]\.headers\["bad name"\] is not a header name/m,
    );
  });

  test('parseScenarioLine', () => {
    assert.deepEqual(parseScenarioLine('GET /hello'), { method: 'GET', path: '/hello' });
    assert.deepEqual(parseScenarioLine('/hello?x=1'), { method: 'GET', path: '/hello?x=1' });
    assert.deepEqual(parseScenarioLine('  delete   /items/1 '), { method: 'DELETE', path: '/items/1' });
    assert.throws(() => parseScenarioLine('FETCH /x'), {
      name: 'ConfigError',
      message: 'scenario "FETCH /x" is not allowed: FETCH is not an HTTP method; use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
    });
    assert.throws(() => parseScenarioLine('GET hello'), /"GET hello" is not a scenario: the path must start with '\/'/);
    assert.throws(() => parseScenarioLine('GET /a b'), /no spaces in the path/);
    assert.throws(() => parseScenarioLine(''), /"" is empty/);
  });
});

describe('gate', () => {
  const gateOf = (gate: unknown) => resolveConfig({ document: { ...MINIMAL, gate } }).gate;

  test('short forms: a percentage gates; off / false keeps the default limit, ungated', () => {
    const gate = gateOf({ throughput: '2.5%', latency_p50: 8, latency_p99: 'off', latency_p90: false });
    assert.deepEqual(gate.throughput, { limit: 0.025, gated: true });
    assert.deepEqual(gate.latency_p50, { limit: 0.08, gated: true });
    assert.deepEqual(gate.latency_p99, { limit: 0.15, gated: false });
    assert.deepEqual(gate.latency_p90, { limit: 0.1, gated: false });
    assert.deepEqual(gate.cpu_per_request, { limit: 0.1, gated: false });
  });

  test('long form', () => {
    const gate = gateOf({
      throughput: { limit: '7%', gated: false },
      latency_p50: { limit: '20%' },
      latency_p99: { gated: false },
      cpu_per_request: { gated: true },
    });
    assert.deepEqual(gate.throughput, { limit: 0.07, gated: false });
    assert.deepEqual(gate.latency_p50, { limit: 0.2, gated: true }, 'giving a limit gates, like the short form');
    assert.deepEqual(gate.latency_p99, { limit: 0.15, gated: false });
    assert.deepEqual(gate.cpu_per_request, { limit: 0.1, gated: true });
  });

  test('limits must be in (0%, 100%]', () => {
    assert.deepEqual(gateOf({ throughput: '100%' }).throughput, { limit: 1, gated: true });
    const message = problems({
      document: {
        ...MINIMAL,
        gate: { throughput: '0%', latency_p99: 150, latency_p50: 'fast', latency_p90: true, cpu_per_request: { limit: -1 } },
      },
    });
    assert.deepEqual(message.split('\n'), [
      'perfgate.yml: gate.throughput: "0%" is out of range; write e.g. 5% or 5 (percent), above 0% and at most 100%',
      'perfgate.yml: gate.latency_p50: "fast" is not a percentage; write e.g. 5% or 5 (percent), above 0% and at most 100%',
      'perfgate.yml: gate.latency_p90: true is not a gate rule; write a limit (5% or 5), off / false for information only, or { limit: 15%, max: 300ms }',
      'perfgate.yml: gate.latency_p99: 150 is out of range; write e.g. 5% or 5 (percent), above 0% and at most 100%',
      'perfgate.yml: gate.cpu_per_request.limit: -1 is out of range; write e.g. 5% or 5 (percent), above 0% and at most 100%',
    ]);
  });
});

describe('service', () => {
  const serviceOf = (service: object) => resolveConfig({ document: { ...MINIMAL, service } }).service;

  test('install: omitted = auto (null); false, "false", "none" or "" = skip (\'\'), never /bin/false', () => {
    assert.equal(serviceOf({ start: 'x' }).install, null);
    assert.equal(serviceOf({ start: 'x', install: 'false' }).install, '');
    assert.equal(serviceOf({ start: 'x', install: ' none\n' }).install, '');
    assert.equal(serviceOf({ start: 'x', install: false }).install, '');
    assert.equal(serviceOf({ start: 'x', install: '' }).install, '');
    assert.equal(serviceOf({ start: 'x', install: ' pnpm i \n' }).install, 'pnpm i');
  });

  test('env: scalars become strings; NODE_ENV defaults to production but can be set', () => {
    assert.deepEqual(serviceOf({ start: 'x', env: { PORT: 3000, DEBUG: false } }).env, {
      NODE_ENV: 'production',
      PORT: '3000',
      DEBUG: 'false',
    });
    assert.equal(serviceOf({ start: 'x', env: { NODE_ENV: 'test' } }).env['NODE_ENV'], 'test');
    assert.match(
      problems({ document: { ...MINIMAL, service: { start: 'x', env: { A: { b: 1 } } } } }),
      /^perfgate\.yml: service\.env\.A: \{"b":1\} is not an environment value; write a string, number or true\/false$/m,
    );
  });

  test('cwd: normalised, relative, inside the repository', () => {
    assert.equal(serviceOf({ start: 'x', cwd: './packages/api/' }).cwd, 'packages/api');
    assert.equal(serviceOf({ start: 'x', cwd: 'a/../b' }).cwd, 'b');
    assert.equal(serviceOf({ start: 'x', cwd: './' }).cwd, '.');
    assert.match(problems({ document: { ...MINIMAL, service: { start: 'x', cwd: '/srv/app' } } }), /service\.cwd: "\/srv\/app" is absolute/);
    assert.match(problems({ document: { ...MINIMAL, service: { start: 'x', cwd: 'C:\\app' } } }), /is absolute/);
    assert.match(problems({ document: { ...MINIMAL, service: { start: 'x', cwd: 'a/../../b' } } }), /is outside the repository/);
  });

  test('ready: path must start with /, timeout is a duration', () => {
    assert.deepEqual(serviceOf({ start: 'x', ready: { path: '/health', timeout: '1.5s' } }).ready, {
      path: '/health',
      timeoutMs: 1500,
    });
    assert.match(
      problems({ document: { ...MINIMAL, service: { start: 'x', ready: { path: 'health' } } } }),
      /^perfgate\.yml: service\.ready\.path: "health" is not a path; it must start with '\/'/m,
    );
  });
});

describe('durations', () => {
  const loadOf = (load: object) => resolveConfig({ document: { ...MINIMAL, load } }).load;

  test('ms, s, m, and bare numbers (seconds)', () => {
    assert.equal(loadOf({ slice: '500ms' }).sliceMs, 500);
    assert.equal(loadOf({ slice: '1.5s' }).sliceMs, 1500);
    assert.equal(loadOf({ warmup: '2m' }).warmupMs, 120_000);
    assert.equal(loadOf({ slice: 3 }).sliceMs, 3000);
    assert.equal(loadOf({ slice: '0.25' }).sliceMs, 250);
    assert.equal(loadOf({ warmup: 0 }).warmupMs, 0);
  });
});

describe('YAML and files', () => {
  test('a syntax error names the file, line and column', () => {
    assert.throws(() => parseConfigText('service:\n  start: node s.js\nscenarios: [GET /a\n', 'perfgate.yml'), (error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /^perfgate\.yml:4:1: YAML syntax error \(line 4, column 1\): Flow sequence/);
      return true;
    });
    assert.throws(() => parseConfigText('a: 1\na: 2\n', 'p.yml'), {
      name: 'ConfigError',
      message: 'p.yml:2:1: YAML syntax error (line 2, column 1): Map keys must be unique',
    });
  });

  test('loadConfigFile: missing default file is null; a named file must exist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-config-'));
    try {
      const missing = join(dir, 'perfgate.yml');
      assert.equal(loadConfigFile(missing), null);
      assert.throws(() => loadConfigFile(missing, { required: true }), (error) => {
        assert.ok(error instanceof ConfigError);
        assert.ok(error.message.startsWith(`${missing}: config file not found`), error.message);
        return true;
      });
      writeFileSync(missing, 'service:\n  start: node s.js\nscenarios: [GET /]\n');
      const loaded = loadConfigFile(missing, { required: true });
      assert.deepEqual(loaded, { document: { service: { start: 'node s.js' }, scenarios: ['GET /'] }, source: missing });
      assert.equal(resolveConfig(loaded!).service.start, 'node s.js');
      assert.throws(() => loadConfigFile(dir), /cannot read the config file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ------------------------------------------------------------------------------ JSON Schema

type Json = { [key: string]: unknown };

/**
 * Just enough of JSON Schema 2020-12 for the keywords z.toJSONSchema emits here: enough to show
 * the published schema accepts the documented examples and rejects what resolveConfig rejects.
 */
function validates(root: Json, schema: Json, value: unknown): boolean {
  if (typeof schema['$ref'] === 'string') {
    const def = (root['$defs'] as Record<string, Json>)[schema['$ref'].replace('#/$defs/', '')]!;
    if (!validates(root, def, value)) return false;
  }
  if (Array.isArray(schema['anyOf']) && !schema['anyOf'].some((s) => validates(root, s as Json, value))) return false;
  if ('const' in schema && schema['const'] !== value) return false;
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(value)) return false;
  if (schema['type'] !== undefined) {
    const types = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
    const actual =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'array'
          : Number.isInteger(value)
            ? 'integer'
            : typeof value;
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return false;
  }
  if (typeof value === 'string') {
    if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(value)) return false;
    if (typeof schema['minLength'] === 'number' && value.length < schema['minLength']) return false;
  }
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) return false;
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) return false;
    if (typeof schema['exclusiveMinimum'] === 'number' && value <= schema['exclusiveMinimum']) return false;
    if (typeof schema['exclusiveMaximum'] === 'number' && value >= schema['exclusiveMaximum']) return false;
  }
  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) return false;
    if (schema['items'] && !value.every((v) => validates(root, schema['items'] as Json, v))) return false;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const properties = (schema['properties'] as Record<string, Json> | undefined) ?? {};
    for (const key of (schema['required'] as string[] | undefined) ?? []) if (!(key in value)) return false;
    for (const [key, child] of Object.entries(value)) {
      if (properties[key]) {
        if (!validates(root, properties[key], child)) return false;
      } else if (schema['additionalProperties'] === false) return false;
      else if (typeof schema['additionalProperties'] === 'object') {
        if (!validates(root, schema['additionalProperties'] as Json, child)) return false;
      }
      if (schema['propertyNames'] && !validates(root, schema['propertyNames'] as Json, key)) return false;
    }
  }
  return true;
}

describe('JSON Schema', () => {
  const schema = configJsonSchema();

  test('is a draft 2020-12 editor schema with the published $id', () => {
    assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema['$id'], 'https://perfgate.dev/perfgate.schema.json');
    assert.equal(typeof schema['title'], 'string');
    const properties = schema['properties'] as Json;
    for (const key of ['service', 'scenarios', 'load', 'gate', 'alpha', 'seed']) assert.ok(key in properties, key);
    assert.equal(schema['additionalProperties'], false);
    assert.equal(schema['required'], undefined, 'start and scenarios may come from inputs');
  });

  test('every key has a description', () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (node === null || typeof node !== 'object') return;
      const properties = (node as Json)['properties'] as Record<string, Json> | undefined;
      for (const [key, child] of Object.entries(properties ?? {})) {
        if (typeof child['description'] !== 'string' || child['description'] === '') missing.push(`${path}${key}`);
        walk(child, `${path}${key}.`);
      }
      for (const [key, child] of Object.entries(node)) if (key !== 'properties') walk(child, path);
    };
    walk(schema, '');
    assert.deepEqual(missing, []);
  });

  test('accepts the documented examples and rejects unknown keys and bad values', () => {
    const example = parseConfigText(EXAMPLE_YAML, 'perfgate.yml');
    assert.ok(validates(schema, schema, example));
    assert.ok(validates(schema, schema, MINIMAL));
    assert.ok(validates(schema, schema, { scenarios: 'GET /a\nPOST /b' }), 'start may come from an input');
    assert.ok(validates(schema, schema, { ...MINIMAL, gate: { latency_p50: 'off', throughput: { gated: false } } }));
    assert.ok(!validates(schema, schema, { ...MINIMAL, scenarioes: [] }));
    assert.ok(!validates(schema, schema, { ...MINIMAL, load: { slice: 'fast' } }));
    assert.ok(!validates(schema, schema, { ...MINIMAL, load: { pairs: 3 } }));
    assert.ok(!validates(schema, schema, { ...MINIMAL, scenarios: [{ path: '/a', method: 'FETCH' }] }));
    assert.ok(!validates(schema, schema, { ...MINIMAL, scenarios: ['FETCH /a'] }));
    assert.ok(!validates(schema, schema, { ...MINIMAL, gate: { throughput: 'fast' } }));
  });

  test('perfgate.schema.json is what `npm run schema` writes', () => {
    assert.equal(readFileSync(SCHEMA_FILE, 'utf8'), schemaText(), 'stale: run `npm run schema`');
  });

  test('docs/configuration.md is what `npm run schema` writes', () => {
    assert.equal(readFileSync(DOCS_FILE, 'utf8'), docsText(), 'stale: run `npm run schema`');
  });
});

describe('gate: service-health rules', () => {
  const gate = (rules: Record<string, unknown>) => resolveConfig({ document: { ...MINIMAL, gate: rules } }).gate;

  test('event-loop delay: a limit and an absolute floor, both in the forms users write', () => {
    assert.deepEqual(gate({ event_loop_delay_p99: '30%' }).event_loop_delay_p99, { limit: 0.3, gated: true, min: 10_000 });
    assert.deepEqual(gate({ event_loop_delay_p99: 'off' }).event_loop_delay_p99, { limit: 0.5, gated: false, min: 10_000 });
    assert.deepEqual(gate({ event_loop_delay_p99: { min: '25ms' } }).event_loop_delay_p99, { limit: 0.5, gated: true, min: 25_000 });
    assert.deepEqual(gate({ event_loop_delay_max: { limit: '100%', min: 0.05 } }).event_loop_delay_max, { limit: 1, gated: true, min: 50_000 });
    assert.deepEqual(gate({ event_loop_delay_max: { min: '0s' } }).event_loop_delay_max, { limit: 0.5, gated: false, min: 0 });
    assert.deepEqual(gate({ gc_per_request: '20%' }).gc_per_request, { limit: 0.2, gated: true });
    assert.deepEqual(gate({ event_loop_utilization: { gated: true } }).event_loop_utilization, { limit: 0.1, gated: true });
  });

  test('heap growth: a size per 10,000 requests', () => {
    assert.deepEqual(gate({ heap_growth: '1MB' }).heap_growth, { limitMbPer10k: 1, gated: true });
    assert.deepEqual(gate({ heap_growth: '200kB' }).heap_growth, { limitMbPer10k: 0.2, gated: true });
    assert.deepEqual(gate({ heap_growth: { gated: true } }).heap_growth, { limitMbPer10k: 0.5, gated: true });
    assert.deepEqual(gate({ heap_growth: false }).heap_growth, { limitMbPer10k: 0.5, gated: false });
    assert.deepEqual(gate({ heap_growth: 2 }).heap_growth, { limitMbPer10k: 2, gated: true });
  });

  test('wrong values are named with the fix', () => {
    assert.match(problems({ document: { ...MINIMAL, gate: { event_loop_delay_p99: { min: 'soon' } } } }), /gate\.event_loop_delay_p99\.min: "soon" is not a duration/);
    assert.match(problems({ document: { ...MINIMAL, gate: { event_loop_delay_p99: { min: '2m' } } } }), /gate\.event_loop_delay_p99\.min: "2m" is out of range; use 0s to 1m/);
    assert.match(problems({ document: { ...MINIMAL, gate: { gc_per_request: { min: '5ms' } } } }), /gate\.gc_per_request/);
    assert.match(problems({ document: { ...MINIMAL, gate: { heap_growth: '1GB' } } }), /gate\.heap_growth: "1GB" is not a size; write e\.g\. 0\.5MB or 200kB/);
    assert.match(problems({ document: { ...MINIMAL, gate: { heap_growth: { limit: '0MB' } } } }), /gate\.heap_growth\.limit: "0MB" is out of range; write e\.g\. 0\.5MB/);
  });

  test('the reference snippet resolves as its comments say', () => {
    const resolved = fromYaml(SNIPPETS.gate, MINIMAL).gate;
    assert.deepEqual(resolved.event_loop_delay_p99, { limit: 0.5, gated: true, min: 20_000 });
    assert.deepEqual(resolved.heap_growth, { limitMbPer10k: 1, gated: true });
  });
});
