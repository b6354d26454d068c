import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assessResults, describeFailing } from '../../src/assess/compare.js';
import { checkLevel, decideLevel } from '../../src/assess/levels.js';
import { decideLook } from '../../src/assess/sequential.js';
import { planSequential } from '../../src/engine/plan.js';
import { buildVerdicts } from '../../src/assess/verdicts.js';
import { ConfigError, parseConfigText, resolveConfig } from '../../src/config/index.js';
import { buildOverrides } from '../../src/config/options.js';
import { scenarioRuleLines } from '../../src/cli/plan.js';
import { ruleFor } from '../../src/config/scenario-rules.js';
import { renderConfig } from '../../src/init/config-text.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import { SNIPPETS } from '../../scripts/write-schema.js';
import { ROOT } from '../helpers/repo.js';
import { resultsFromPairs } from '../helpers/results.js';

const START = { service: { start: 'node server.js' } };

function problems(document: Record<string, unknown>): string {
  try {
    resolveConfig({ document: { ...START, ...document } });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('the configuration resolved, but it should not have');
}

describe('limits per scenario', () => {
  const config = resolveConfig({
    document: {
      ...START,
      gate: { throughput: '5%', latency_p99: { max: '300ms' } },
      scenarios: [
        { name: 'checkout', path: '/checkout', gate: { throughput: '1%', latency_p99: { max: '250ms' }, latency_p50: 'off' } },
        { name: 'search', path: '/search', gate: { latency_p99: '20%', errors: { max: '0.1%' } } },
        'GET /admin',
      ],
    },
  });

  test("a scenario's limit overrides the global one for that scenario alone", () => {
    assert.deepEqual(ruleFor(config, 'checkout', 'throughput'), { limit: 0.01, gated: true });
    assert.deepEqual(ruleFor(config, 'GET /admin', 'throughput'), { limit: 0.05, gated: true });
    assert.equal(ruleFor(config, 'checkout', 'latency_p50').gated, false);
  });

  test("a mapping overrides key by key: a level keeps the global limit, a bare limit keeps the global level", () => {
    assert.deepEqual(ruleFor(config, 'checkout', 'latency_p99'), { limit: 0.15, gated: true, level: { max: 250_000, gated: true } });
    assert.deepEqual(ruleFor(config, 'search', 'latency_p99'), { limit: 0.2, gated: true, level: { max: 300_000, gated: true } });
    assert.deepEqual(ruleFor(config, 'GET /admin', 'latency_p99'), { limit: 0.15, gated: true, level: { max: 300_000, gated: true } });
    // errors keep their relative rule (1 point, gated) beside the level
    assert.deepEqual(ruleFor(config, 'search', 'errors'), { limit: 0.01, gated: true, level: { max: 0.001, gated: true } });
  });

  test('a level gates even on a metric whose relative limit does not; off and gated: false make it information', () => {
    const gate = resolveConfig({
      document: { ...START, scenarios: ['/'], gate: { latency_p50: { max: '50ms' }, latency_p90: { max: '80ms', gated: false } } },
    }).gate;
    assert.deepEqual(gate.latency_p50, { limit: 0.1, gated: false, level: { max: 50_000, gated: true } });
    assert.deepEqual(gate.latency_p90, { limit: 0.1, gated: false, level: { max: 80_000, gated: false } });
    const off = resolveConfig({ document: { ...START, gate: { latency_p99: { max: '1s' } }, scenarios: [{ path: '/', gate: { latency_p99: 'off' } }] } });
    assert.deepEqual(off.scenarios[0]!.gate?.latency_p99, { limit: 0.15, gated: false, level: { max: 1_000_000, gated: false } });
  });

  test('a scenario without its own gate resolves as before: no gate key', () => {
    assert.equal('gate' in config.scenarios[2]!, false);
  });

  test("the reference's example resolves", () => {
    const resolved = resolveConfig({ document: { ...START, ...(parseConfigText(SNIPPETS.scenarioGate, 'perfgate.yml') as object) } });
    assert.equal(ruleFor(resolved, 'checkout', 'throughput').limit, 0.01);
    assert.equal(ruleFor(resolved, 'GET /admin', 'throughput').limit, 0.05);
  });

  test('bad input names the key and the fix', () => {
    assert.match(problems({ scenarios: ['/'], gate: { throughput: { max: 5 } } }), /gate\.throughput\.max is a service level, which only latency_p50.*has no absolute level; remove max/);
    assert.match(problems({ scenarios: [{ path: '/', gate: { latency_p99: { max: 'abc' } } }] }), /scenarios\[0\]\.gate\.latency_p99\.max: "abc" is not a duration; write e\.g\. 500ms/);
    assert.match(problems({ scenarios: [{ path: '/', gate: { errors: { max: '120%' } } }] }), /gate\.errors\.max: "120%" is out of range; write e\.g\. 0\.1%/);
    assert.match(problems({ scenarios: [{ path: '/', gate: { startup_time: '5%' } }] }), /scenarios\[0\]\.gate\.startup_time is about the whole service, not one scenario; set it in the global gate/);
    assert.match(problems({ scenarios: [{ path: '/', gate: { latency_p99x: '5%' } }] }), /did you mean "latency_p99"/);
  });
});

/** The median of the Walsh averages (x_i + x_j)/2, i ≤ j, counted out: the Hodges–Lehmann estimate by its definition. */
function walshMedian(x: number[]): number {
  const averages: number[] = [];
  for (let i = 0; i < x.length; i++) for (let j = i; j < x.length; j++) averages.push((x[i]! + x[j]!) / 2);
  averages.sort((a, b) => a - b);
  const mid = averages.length / 2;
  return averages.length % 2 ? averages[Math.floor(mid)]! : (averages[mid - 1]! + averages[mid]!) / 2;
}

describe('service level statistics', () => {
  test('every start above the level: p = 1/2^n (the one pattern of sign flips that reaches the sum), the estimate on the log scale', () => {
    const values = [200, 210, 220, 230, 240, 250, 260, 270];
    const level = checkLevel(values, values.map((_, i) => i), 100, 'ratio', 0.01)!;
    assert.equal(level.n, 8);
    assert.equal(level.p, 1 / 256);
    assert.ok(Math.abs(level.estimate - 100 * Math.exp(walshMedian(values.map((v) => Math.log(v / 100))))) < 1e-9);
    // 8 units reach a 95% interval: the exact signed-rank one (wilcox.test(log(x/100), conf.int=TRUE) gives 200.0 … 270.0 here... its bounds are Walsh averages)
    assert.ok(level.low > 100 && level.high < 280);
    assert.equal(decideLevel({ ...level, max: 100 }, level.p, 0.01), 'fail');
  });

  test('a start is one unit: its slices are summarised first', () => {
    const values = [200, 260, 230, 150, 155, 160];
    const level = checkLevel(values, [0, 0, 0, 1, 1, 1], 100, 'ratio', 0.01)!;
    assert.equal(level.n, 2);
    const perStart = [walshMedian([200, 260, 230].map((v) => Math.log(v / 100))), walshMedian([150, 155, 160].map((v) => Math.log(v / 100)))];
    assert.ok(Math.abs(level.estimate - 100 * Math.exp(walshMedian(perStart))) < 1e-9);
    // two starts reach no 95% interval: never a pass on so little
    assert.equal(level.high, Number.POSITIVE_INFINITY);
  });

  test('errors: differences from the level, not ratios; five starts cannot reach 95%, so no pass and no fail at 0.01', () => {
    const shares = [0.002, 0.003, 0.004, 0.005, 0.006];
    const level = checkLevel(shares, [0, 1, 2, 3, 4], 0.001, 'difference', 0.01)!;
    assert.equal(level.p, 1 / 32);
    assert.ok(Math.abs(level.estimate - 0.004) < 1e-12);
    assert.equal(decideLevel({ ...level, max: 0.001 }, level.p, 0.01), 'inconclusive');
  });

  test('a head far below the level passes; one that sits on it is inconclusive', () => {
    const starts = Array.from({ length: 12 }, (_, i) => i);
    const below = checkLevel(starts.map((i) => 50 + i), starts, 1000, 'ratio', 0.01)!;
    assert.equal(decideLevel({ ...below, max: 1000 }, below.p, 0.01), 'pass');
    const near = checkLevel(starts.map((i) => 995 + i), starts, 1000, 'ratio', 0.01)!;
    assert.equal(decideLevel({ ...near, max: 1000 }, near.p, 0.01), 'inconclusive');
  });

  test('no error on any start against a level of 0%: a pass, not a test that cannot reject', () => {
    const level = checkLevel([0, 0, 0, 0], [0, 1, 2, 3], 0, 'difference', 0.01)!;
    assert.equal(level.testable, false);
    assert.equal(decideLevel({ ...level, max: 0 }, level.p, 0.01), 'pass');
  });

  test('a level the service never records (p99.9 of a closed loop) gives no row', () => {
    assert.equal(checkLevel([Number.NaN, Number.NaN], [0, 1], 1000, 'ratio', 0.01), null);
  });
});

const verdictsSchema = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8')));

describe('service levels in the assessment and the reports', () => {
  // 10,000 req/s on both sides: p99 is 3 ms (test/helpers/results.ts) in every slice.
  const pairs: [number, number][] = Array.from({ length: 12 }, () => [10_000, 10_000]);

  test('a p99 level far below the service fails the run, with its own row, headline and verdicts.json entry', () => {
    const results = resultsFromPairs(pairs, { gate: { latency_p99: { max: '1ms' } } });
    const analysis = assessResults(results);
    assert.equal(analysis.decision, 'fail');
    assert.deepEqual(analysis.levels?.map((l) => [l.scenario, l.metric, l.verdict]), [['GET /hello', 'latency_p99', 'fail']]);
    assert.deepEqual(describeFailing(analysis), ['latency_p99 of GET /hello 3 ms, above its service level of 1 ms']);
    const markdown = renderMarkdown(results, analysis);
    assert.match(markdown, /failing \(latency p99 level 1 ms\)/);
    assert.match(markdown, /\*\*Service levels\*\*/);
    assert.match(markdown, /above the level/);
    assert.match(renderTerminal(results, analysis), /service levels — head alone/);
    const verdicts = buildVerdicts(results, analysis);
    assert.equal(verdicts.levels?.[0]?.verdict, 'fail');
    assert.equal(verdicts.levels?.[0]?.max, 1000);
    assert.ok(verdictsSchema(JSON.parse(JSON.stringify(verdicts))), JSON.stringify(verdictsSchema.errors));
  });

  test('a level far above the service passes, and the run with it passes', () => {
    const results = resultsFromPairs(pairs, { gate: { latency_p99: { max: '1s' }, errors: { max: '0.1%' } } });
    const analysis = assessResults(results);
    assert.equal(analysis.decision, 'pass');
    assert.deepEqual(analysis.levels?.map((l) => l.verdict), ['pass', 'pass']);
    assert.match(renderMarkdown(results, analysis, {}), /within the level/);
  });

  test("a scenario's own 1% limit fails a drop the global 5% lets pass", () => {
    const drop: [number, number][] = Array.from({ length: 12 }, (_, i) => [10_000 * (1 + 0.001 * (i % 3)), 9_700 * (1 + 0.001 * (i % 3))]);
    const global = assessResults(resultsFromPairs(drop, { gate: { throughput: '5%' } }));
    assert.equal(global.decision, 'pass');
    const own = resultsFromPairs(drop, { gate: { throughput: '5%' }, scenarios: [{ path: '/hello', gate: { throughput: '1%' } }] });
    const analysis = assessResults(own);
    assert.equal(analysis.decision, 'fail');
    assert.match(renderMarkdown(own, analysis), /failing: GET \/hello throughput −3\.0% \(limit 1%\)/);
  });

  test('a run without levels has no levels in its assessment or verdicts.json', () => {
    const results = resultsFromPairs(pairs);
    const analysis = assessResults(results);
    assert.equal(analysis.levels, undefined);
    assert.equal('levels' in buildVerdicts(results, analysis), false);
  });
});

test("perfgate init's perfgate.yml shows where levels go, and its example resolves once uncommented", () => {
  const text = renderConfig({ start: { value: 'node server.js', note: 'package.json start' }, scenarios: [{ value: 'GET /', note: 'answers 200' }] });
  assert.match(text, /# {3}latency_p99: \{ max: 300ms \}/);
  const uncommented = text.replace(/^# (gate:| {2})/gm, '$1');
  const config = resolveConfig({ document: parseConfigText(uncommented, 'perfgate.yml') });
  assert.deepEqual(config.gate.latency_p99.level, { max: 300_000, gated: true });
  assert.deepEqual(config.gate.errors.level, { max: 0.001, gated: true });
});

test("--latency-p99-limit sets the limit and keeps the file's p99 service level", () => {
  const document = { ...START, scenarios: ['/'], gate: { latency_p99: { max: '300ms' } } };
  const config = resolveConfig({ document, overrides: buildOverrides({ 'latency-p99-limit': '10%' }) });
  assert.deepEqual(config.gate.latency_p99, { limit: 0.1, gated: true, level: { max: 300_000, gated: true } });
});

test('perfgate plan lists the service levels and the rules a scenario sets itself', () => {
  const config = resolveConfig({
    document: {
      ...START,
      gate: { latency_p99: { max: '300ms' }, errors: { max: '0.1%' } },
      scenarios: [{ name: 'checkout', path: '/checkout', gate: { throughput: '1%', latency_p50: { max: '50ms', gated: false } } }, 'GET /admin'],
    },
  });
  assert.deepEqual(scenarioRuleLines(config), [
    'levels   latency_p99 max 300 ms, errors max 0.1% (on head, in every scenario unless it sets its own)',
    '         checkout: throughput 1%, latency_p50 10% (information) max 50 ms (information)',
  ]);
  assert.deepEqual(scenarioRuleLines(resolveConfig({ document: { ...START, scenarios: ['/'] } })), []);
});

describe('service levels at an interim look', () => {
  /** The first of two blocks: 30 start pairs of identical sides at 10,000 req/s (p99 3 ms in every slice). */
  function atInterim(gate: Record<string, unknown>) {
    const results = resultsFromPairs(Array.from({ length: 30 }, (_, i) => [10_000 * (1 + 0.001 * (i % 5)), 10_000 * (1 + 0.001 * (i % 5))]), { load: { pairs: 60, blocks: 2 }, gate });
    results.status = 'running';
    for (const p of results.scenarios[0]!.pairs) p.block = 0;
    results.sequential = planSequential(results.config)!;
    const level = results.sequential.looks[0]!.nominalAlpha;
    return decideLook(results, 0, assessResults(results, { httpLevel: level }));
  }

  test('a level head is already significantly above stops the run as a regression', () => {
    const look = atInterim({ latency_p99: { max: '1ms' } });
    assert.equal(look.decision, 'stop-regression');
    assert.match(look.reason, /^GET \/hello latency p99 is already above its service level \(adjusted p [\d.e-]+ < [\d.]+\)$/);
  });

  test('a clear run stops only once its levels are met too, and says so', () => {
    const look = atInterim({ latency_p99: { max: '1s' } });
    assert.equal(look.decision, 'stop-clear');
    assert.match(look.reason, /and 1 service level met$/);
  });
});
