/**
 * Scenarios of several requests: what perfgate.yml accepts and the messages for what it does not;
 * the request plan (mix order, placeholders, captures); the values files (CSV, JSON) and their errors.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/errors.js';
import { resolveConfig } from '../../src/config/load.js';
import type { ScenarioConfig } from '../../src/config/types.js';
import { loadScenarioValues, mixOrder, parseCsv, RequestPlan } from '../../src/engine/load/requests.js';
import { assessResults } from '../../src/assess/compare.js';
import { renderMarkdown, renderTerminal } from '../../src/report/index.js';
import { cleanPairs } from '../helpers/github-runs.js';
import { resultsFromPairs } from '../helpers/results.js';

function scenarios(list: unknown[], load?: object): ScenarioConfig[] {
  return resolveConfig({ document: { service: { start: 'node s.js' }, scenarios: list, ...(load && { load }) } }).scenarios;
}

function problems(list: unknown[], load?: object): string {
  try {
    scenarios(list, load);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-values-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('scenario requests in perfgate.yml', () => {
  test('the single-request form resolves exactly as before: no new keys', () => {
    const [line, mapping] = scenarios(['GET /a', { path: '/b', method: 'post', body: { x: 1 } }]);
    assert.deepEqual(Object.keys(line!).sort(), ['body', 'connections', 'expect', 'headers', 'method', 'name', 'path', 'pipelining', 'rate']);
    assert.deepEqual(mapping, {
      name: 'POST /b',
      method: 'POST',
      path: '/b',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
      connections: 10,
      pipelining: 1,
      rate: null,
      expect: null,
    });
  });

  test('a mix: names default to METHOD path, weights to 1, scenario headers go with every request, the first request is the scenario’s', () => {
    const [mix] = scenarios([
      { name: 'browse', headers: { 'x-client': 'perfgate' }, requests: [{ path: '/items', weight: 3 }, { name: 'item', path: '/items/1', method: 'put', body: 'x', headers: { 'x-client': 'own' } }] },
    ]);
    assert.equal(mix!.sequence, false);
    assert.deepEqual(
      mix!.requests!.map((r) => [r.name, r.method, r.weight, r.headers['x-client'], r.body]),
      [
        ['GET /items', 'GET', 3, 'perfgate', null],
        ['item', 'PUT', 1, 'own', 'x'],
      ],
    );
    assert.equal(mix!.path, '/items');
    assert.equal(mix!.method, 'GET');
  });

  test('a sequence with captures: sources read as body dot paths and headers', () => {
    const [seq] = scenarios([
      {
        name: 'login',
        sequence: true,
        requests: [
          { method: 'POST', path: '/login', capture: { token: 'body.session.token', first: 'body.items.0.id', session: 'header.X-Session', all: 'body' } },
          { path: '/me/{first}', headers: { authorization: 'Bearer {token}', cookie: '{session}' }, body: '{all}' },
        ],
      },
    ]);
    assert.deepEqual(seq!.requests![0]!.capture, {
      token: { from: 'body', path: ['session', 'token'] },
      first: { from: 'body', path: ['items', '0', 'id'] },
      session: { from: 'header', name: 'x-session' },
      all: { from: 'body', path: [] },
    });
  });

  test('keys that do not go together each get a message naming the fix', () => {
    const text = problems([
      { requests: [{ path: '/a' }], path: '/x', method: 'GET', body: 'b' },
      { sequence: true, path: '/a' },
      { name: 'w', sequence: true, requests: [{ path: '/a', weight: 2 }, { path: '/b' }] },
      { name: 'c', requests: [{ path: '/a', capture: { t: 'body.t' } }, { path: '/b' }] },
      { name: 'd', requests: [{ path: '/a' }, { path: '/a' }] },
      { name: 'e' },
    ]);
    const expected = [
      'scenarios[0].name is required with requests: name the scenario, e.g. name: browse',
      'scenarios[0].method: "GET" cannot be used with requests; give each request its own method',
      'scenarios[0].path: "/x" cannot be used with requests; give each request its own path',
      'scenarios[0].body: "b" cannot be used with requests; give each request its own body',
      'scenarios[1].sequence: true needs requests: list the requests to send in order under requests',
      'scenarios[2].requests[0].weight: 2 cannot be used in a sequence: every request is sent once per pass; remove weight or sequence',
      'scenarios[3].requests[0].capture: {"t":{"from":"body","path":["t"]}} needs sequence: true',
      'scenarios[4].requests[1].path: "GET /a" is also the name of requests[0]; give each request a unique name',
      'scenarios[5].path is required: the request path, e.g. /hello',
    ];
    for (const line of expected) assert.ok(text.includes(line), `${line}\nin:\n${text}`);
  });

  test('a placeholder needs a source: a capture before it, or a values file', () => {
    const text = problems([
      { name: 'a', requests: [{ path: '/items/{id}' }, { path: '/b' }] },
      { name: 'b', sequence: true, requests: [{ path: '/me', headers: { authorization: '{token}' } }, { path: '/login', capture: { token: 'body.t' } }] },
      { path: '/plain', values: 'ids.csv' },
    ]);
    assert.match(text, /scenarios\[0\]\.requests\[0\]: "\{id\}" uses \{id\}, which has no source: capture it from an earlier request of a sequence \(capture: \{ id: body\.id \}\), or name a values file with a column id/);
    assert.match(text, /scenarios\[1\]\.requests\[0\]: "\{token\}" uses \{token\} before it is captured/);
    assert.match(text, /scenarios\[2\]\.values: "ids\.csv" is not used: no \{column\} placeholder/);
    // With a values file, any placeholder may be a column: the file's header says, when it is read.
    assert.equal(scenarios([{ name: 'v', values: 'data/ids.csv', requests: [{ path: '/items/{id}' }, { path: '/b' }] }]).length, 1);
  });

  test('a capture source, a values file outside the repository, and pipelining with captures are refused with the fix', () => {
    assert.match(problems([{ name: 's', sequence: true, requests: [{ path: '/a', capture: { t: 'json.t' } }, { path: '/b/{t}' }] }]), /"json\.t" is not a capture source; write body\.<dot path>/);
    assert.match(problems([{ path: '/a/{id}', values: '../ids.csv' }]), /values: "\.\.\/ids\.csv" is not allowed; write a \.csv or \.json file inside the repository/);
    assert.match(problems([{ path: '/a/{id}', values: 'ids.txt' }]), /is not allowed; write a \.csv or \.json file/);
    assert.match(
      problems([{ name: 's', sequence: true, requests: [{ path: '/a', capture: { t: 'body.t' } }, { path: '/b/{t}' }] }], { pipelining: 4 }),
      /scenarios\[0\]\.sequence: 4 is not allowed with pipelining 4 \(load\.pipelining\): a sequence that captures values waits for each answer before the next request; set pipelining: 1 on the scenario/,
    );
  });
});

describe('the request plan', () => {
  test('a mix interleaves by weight, one full turn exact', () => {
    assert.deepEqual(mixOrder([3, 1]), [0, 0, 1, 0]);
    assert.deepEqual(mixOrder([1, 1, 1]), [0, 1, 2]);
    const order = mixOrder([5, 2, 1]);
    assert.deepEqual([0, 1, 2].map((i) => order.filter((o) => o === i).length), [5, 2, 1]);
    assert.ok(!order.join('').includes('00000'), `request 0 is spread over the turn: ${order.join('')}`);
  });

  test('fills placeholders: columns per row (URL-encoded in the path), captures in a sequence; a missing capture builds nothing', () => {
    const dir = dirWith({ 'ids.csv': 'id,name\n"a b",x\nc/d,"y ""q"""\n' });
    const [mix, seq] = scenarios([
      { name: 'mix', values: 'ids.csv', requests: [{ path: '/items/{id}', headers: { 'x-name': '{name}' }, body: { n: '{name}' } }, { path: '/list' }] },
      { name: 'seq', sequence: true, requests: [{ method: 'POST', path: '/login', capture: { t: 'body.a.0' } }, { path: '/me', headers: { authorization: 'Bearer {t}' } }] },
    ]);
    loadScenarioValues([mix!, seq!], dir);
    const plan = RequestPlan.of(mix!);
    assert.equal(plan.plain, false);
    assert.equal(plan.perRequest, true);
    assert.equal(plan.usesRow(0), true);
    assert.equal(plan.usesRow(1), false);
    const rows = plan.rowCursor()!;
    const first = plan.build(0, rows.next(), null)!;
    assert.deepEqual(first, { method: 'GET', path: '/items/a%20b', headers: { 'x-name': 'x', 'content-type': 'application/json' }, body: '{"n":"x"}' });
    assert.equal(plan.build(0, rows.next(), null)!.path, '/items/c%2Fd');
    assert.equal(plan.build(0, rows.next(), null)!.path, '/items/a%20b', 'the rows come round again');

    const sequence = RequestPlan.of(seq!);
    assert.equal(sequence.rowCursor(), null);
    assert.equal(sequence.build(1, null, {}), null, 'no token captured: the request is not built');
    const captured = {};
    assert.equal(sequence.capture(0, '{"a":[17]}', {}, captured), true);
    assert.deepEqual(sequence.build(1, null, captured), { method: 'GET', path: '/me', headers: { authorization: 'Bearer 17' }, body: null });
    assert.equal(sequence.capture(0, '{"a":[]}', {}, {}), false, 'no value at the path');
    assert.equal(sequence.capture(0, 'not json', {}, {}), false);
  });

  test('captures headers in any letter case; the first of a repeated header', () => {
    const [seq] = scenarios([{ name: 'h', sequence: true, requests: [{ path: '/a', capture: { s: 'header.x-session' } }, { path: '/b/{s}' }] }]);
    const plan = RequestPlan.of(seq!);
    const captured: Record<string, string> = {};
    assert.equal(plan.capture(0, '', { 'X-Session': ['one', 'two'] }, captured), true);
    assert.equal(captured.s, 'one');
    assert.equal(plan.needsBody(0), false);
  });

  test('a one-request scenario without values is plain: texts sent as written, braces and all', () => {
    const [single] = scenarios([{ path: '/graphql', method: 'POST', body: '{user{id}}' }]);
    const plan = RequestPlan.of(single!);
    assert.equal(plan.plain, true);
    assert.equal(plan.perRequest, false);
    assert.equal(plan.build(0, null, null)!.body, '{user{id}}');
  });
});

describe('values files', () => {
  test('CSV per RFC 4180: quoted commas, doubled quotes, line breaks in quotes, CRLF, a byte-order mark, blank lines', () => {
    assert.deepEqual(parseCsv('\uFEFFid,label\r\n1,"a, b"\r\n\r\n2,"say ""hi"""\n3,"two\nlines"'), [
      ['id', 'label'],
      ['1', 'a, b'],
      ['2', 'say "hi"'],
      ['3', 'two\nlines'],
    ]);
    assert.throws(() => parseCsv('id\n"open'), /has a quoted field that never ends/);
  });

  test('every problem with a file is named with its scenario and fix, all at once', () => {
    const dir = dirWith({
      'nocol.csv': 'sku\n1\n',
      'empty.csv': '',
      'header.csv': 'id\n',
      'ragged.csv': 'id,name\n1\n',
      'bad.json': '{"id": 1}',
      'nested.json': '[{"id": {"a": 1}}]',
    });
    const list = ['nocol.csv', 'empty.csv', 'header.csv', 'ragged.csv', 'bad.json', 'nested.json', 'missing.csv'].map((file) => ({ name: file, path: '/items/{id}', values: file }));
    assert.throws(
      () => loadScenarioValues(scenarios(list), dir),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        const expected = [
          'scenario "nocol.csv": values: nocol.csv: has no column "id", which the requests use as {id}; its columns are "sku". Add the column to the file, or fix the placeholder.',
          'scenario "empty.csv": values: empty.csv: has no rows; add at least one row of values',
          'scenario "header.csv": values: header.csv: has no rows (only the header id); add at least one row of values',
          'scenario "ragged.csv": values: ragged.csv: row 2 has 1 field, the header 2; give every row one field per column (quote fields that contain commas)',
          'scenario "bad.json": values: bad.json: is not a list; write a list of objects, e.g. [{"id": 1}, {"id": 2}]',
          'scenario "nested.json": values: nested.json: item 0: "id" is not a string, number or true/false',
          "scenario \"missing.csv\": values: missing.csv: not found in head's tree (relative to service.cwd); commit the file or fix the path",
        ];
        assert.deepEqual(error.problems, expected);
        return true;
      },
    );
  });

  test('JSON rows: every key any row has is a column; numbers and booleans as text, absent as empty', () => {
    const dir = dirWith({ 'users.json': '[{"id": 1, "admin": true}, {"id": "x"}]' });
    const [scenario] = scenarios([{ path: '/u/{id}/{admin}', values: 'users.json' }]);
    loadScenarioValues([scenario!], dir);
    const plan = RequestPlan.of(scenario!);
    const rows = plan.rowCursor()!;
    assert.equal(plan.build(0, rows.next(), null)!.path, '/u/1/true');
    assert.equal(plan.build(0, rows.next(), null)!.path, '/u/x/');
  });

  test('a plan for a scenario whose values were never read refuses to open, rather than send literal placeholders', () => {
    const [scenario] = scenarios([{ path: '/u/{id}', values: 'users.csv' }]);
    assert.throws(() => RequestPlan.of(scenario!), /its values file users\.csv was not read/);
  });
});

describe('the per-request breakdown in the report', () => {
  /** A clean run whose one scenario is a mix: list 3/4 of the responses, item 1/4 and slower on head, a few failed items on head. */
  function mixedResults() {
    const results = resultsFromPairs(cleanPairs());
    for (const pair of results.scenarios[0]!.pairs) {
      for (const side of ['base', 'head'] as const) {
        const n = pair[side].requests;
        pair[side].byRequest = [
          { name: 'list', responses: Math.round(n * 0.75), failed: 0, p50Us: 1000, p99Us: 4000 },
          { name: 'item', responses: n - Math.round(n * 0.75), failed: side === 'head' ? 2 : 0, p50Us: side === 'head' ? 3000 : 2000, p99Us: 9000 },
        ];
      }
    }
    return results;
  }

  test('markdown: a row per request with its share, p50 and p99 base → head, failed requests, and a warning when any failed', () => {
    const results = mixedResults();
    const markdown = renderMarkdown(results, assessResults(results));
    assert.match(markdown, /\*\*Per request\*\* \(medians over the slices; the verdicts above are per scenario\)/);
    assert.match(markdown, /\| GET \/hello \| list \| 75\.0% \| 1 ms → 1 ms \(0\.0%\) \| 4 ms → 4 ms \(0\.0%\) \| 0 \|/);
    assert.match(markdown, /\| {2}\| item \| 25\.0% \| 2 ms → 3 ms \(\+50\.0%\) \| 9 ms → 9 ms \(0\.0%\) \| 0 → 28 \|/);
    assert.match(markdown, /⚠️ Failed: an unexpected status, an error, or a response without the value a sequence captures from it/);
  });

  test('terminal: one line per request under its scenario', () => {
    const results = mixedResults();
    const text = renderTerminal(results, assessResults(results), { full: true });
    assert.match(text, /per request \(medians over the slices; the verdicts above are per scenario\):\nGET \/hello\n {2}list {2}75\.0% {2}p50 1 ms → 1 ms \(0\.0%\)/);
    assert.match(text, /\n {2}item {2}25\.0% {2}p50 2 ms → 3 ms \(\+50\.0%\) {2}p99 9 ms → 9 ms \(0\.0%\) {2}failed 0 → 28\n/);
  });

  test('a scenario of one request has no breakdown', () => {
    const results = resultsFromPairs(cleanPairs());
    const analysis = assessResults(results);
    assert.doesNotMatch(renderMarkdown(results, analysis), /Per request/);
    assert.doesNotMatch(renderTerminal(results, analysis, { full: true }), /per request/);
  });
});
