import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { resolveConfigWithScenarios } from '../../src/config/load.js';
import { buildOverrides, OPTIONS } from '../../src/config/options.js';
import { USAGE } from '../../src/cli/main.js';
import { ROOT } from '../helpers/repo.js';

/** Inputs of the action that are not settings of perfgate.yml. */
const ACTION_ONLY = ['mode', 'baseline', 'config', 'base', 'fail-on-regression', 'github-token', 'id', 'comment', 'accept-label', 'allow-write-token', 'allow-id-token', 'results-digest'];

test('action.yml has exactly the table of options, plus its own inputs', () => {
  const inputs = Object.keys(parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')).inputs);
  assert.deepEqual(inputs.filter((i) => !ACTION_ONLY.includes(i)).sort(), OPTIONS.map((o) => o.name).sort());
  for (const name of ACTION_ONLY) assert.ok(inputs.includes(name), `action.yml lacks ${name}`);
});

test('perfgate --help lists every option and its older names', () => {
  for (const o of OPTIONS) {
    assert.match(USAGE, new RegExp(`--${o.name} `), `usage lacks --${o.name}`);
    for (const alias of o.aliases ?? []) assert.ok(USAGE.includes(`--${alias}`), `usage lacks --${alias}`);
  }
});

test('every option reaches its key in perfgate.yml, and the result validates', () => {
  const overrides = buildOverrides({
    start: 'node s.js',
    install: 'false',
    'working-directory': 'svc',
    'ready-path': '/health',
    'ready-timeout': '20s',
    pairs: '20',
    pipelining: '4',
    'benchmark-rounds': '12',
    benchmarks: ['bench/*.js', ' '],
    profile: 'false',
    'profile-duration': '2s',
  });
  assert.deepEqual(overrides, {
    service: { start: 'node s.js', install: 'false', cwd: 'svc', ready: { path: '/health', timeout: '20s' } },
    load: { pairs: 20, pipelining: 4 },
    benchmarks: { files: ['bench/*.js'], rounds: 12 },
    profile: false,
  });
  const config = resolveConfigWithScenarios({ document: { scenarios: ['GET /'] }, overrides }, []);
  assert.equal(config.scenarios[0]!.pipelining, 4);
  assert.equal(config.service.ready.timeoutMs, 20_000);
  assert.equal(config.service.install, '', 'the input "false" skips the install, as in perfgate.yml');
});

test('scenarios: a name selects from the file, a scenario line adds one, anything else names what there is', () => {
  const input = {
    document: { service: { start: 'node s.js' }, scenarios: ['GET /a', { name: 'search', path: '/s', headers: { x: '1' } }] },
  };
  const pick = (...names: string[]) => resolveConfigWithScenarios(input, names).scenarios.map((s) => s.name);
  assert.deepEqual(pick(), ['GET /a', 'search']);
  assert.deepEqual(pick('search'), ['search']);
  assert.deepEqual(resolveConfigWithScenarios(input, ['search']).scenarios[0]!.headers, { x: '1' });
  assert.deepEqual(pick('search', 'POST /new', '/b'), ['search', 'POST /new', 'GET /b']);
  assert.throws(() => pick('serch'), /scenario "serch" is not a scenario of perfgate\.yml \(it has "GET \/a", "search"\) nor a scenario line/);
  // a file without scenarios takes ad-hoc ones
  assert.deepEqual(resolveConfigWithScenarios({ document: { service: { start: 'x' } } }, ['GET /x']).scenarios.map((s) => s.name), ['GET /x']);
});

/** The node of a dotted key in the JSON Schema, through anyOf/oneOf/allOf alternatives. */
function schemaNode(node: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const n = node as Record<string, unknown>;
  if (path.length === 0) return n;
  const props = n.properties as Record<string, unknown> | undefined;
  const direct = props?.[path[0]!] !== undefined ? schemaNode(props[path[0]!], path.slice(1)) : undefined;
  if (direct) return direct;
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const alternative of (n[key] as unknown[] | undefined) ?? []) {
      const found = schemaNode(alternative, path);
      if (found) return found;
    }
  }
  return undefined;
}

test("the defaults action.yml's inputs name are the schema's defaults", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'perfgate.schema.json'), 'utf8'));
  const inputs = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')).inputs as Record<string, { description: string }>;
  let checked = 0;
  for (const [name, { description }] of Object.entries(inputs)) {
    const named = /\(([a-z_]+(?:\.[a-z_-]+)+); default ([^;)]+)\)/.exec(description);
    if (!named) continue;
    const node = schemaNode(schema, named[1]!.split('.'));
    assert.ok(node && 'default' in node, `input ${name}: perfgate.schema.json has no default for ${named[1]}`);
    assert.equal(String(node.default), named[2], `input ${name} says ${named[1]} defaults to ${named[2]}`);
    checked++;
  }
  assert.ok(checked >= 5, `only ${checked} inputs name a default`);
});
