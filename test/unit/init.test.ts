import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseConfigText, resolveConfig } from '../../src/config/load.js';
import { findBenchmarkSuites, proposeBenchmarkGlobs } from '../../src/engine/phases/bench/discover.js';
import { scenariosOf } from '../../src/cli/init.js';
import { renderConfig } from '../../src/init/config-text.js';
import { fillPath, sortRoutes } from '../../src/init/routes.js';
import { ACTION_REF, renderWorkflow } from '../../src/init/workflow.js';
import { actionlintSkip, runActionlint } from '../helpers/actionlint.js';
import { ROOT } from '../helpers/repo.js';

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-init-unit-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const README_INPUTS = { start: 'node server.js', scenarios: 'GET /hello' };

test('example-workflows/perf.yml is the same workflow, its write-token step with the same pinning instruction', () => {
  const text = readFileSync(join(ROOT, 'example-workflows', 'perf.yml'), 'utf8');
  const rendered = renderWorkflow({ inputs: README_INPUTS });
  assert.deepEqual(parse(text), parse(rendered));
  // it runs as copied: no placeholder sha, and the comment above the step says how to pin it
  assert.doesNotMatch(text, /@[0-9a-f]{40}/);
  const pinning = (t: string) => t.slice(t.indexOf('# No checkout'), t.indexOf('mode: report'));
  assert.equal(pinning(text), pinning(rendered));
  assert.ok(pinning(text).includes(`${ACTION_REF}\n`));
});

test('one action reference everywhere: perfgate/perfgate@v1, or pinned by sha with "# v1"', () => {
  const texts = [
    ['README.md', readme],
    ['action.yml', readFileSync(join(ROOT, 'action.yml'), 'utf8')],
    ...['perf.yml', 'perf-comment.yml', 'perf-manual.yml'].map((f) => [f, readFileSync(join(ROOT, 'example-workflows', f), 'utf8')]),
    ['gate.yml', readFileSync(join(ROOT, '.github', 'workflows', 'gate.yml'), 'utf8')],
    ['init', renderWorkflow({ packageManager: 'pnpm' })],
  ];
  for (const [name, text] of texts) {
    const references = text!.match(/[\w.-]+\/perfgate@(?:<full|[\w.-]*\w)/g) ?? [];
    assert.ok(references.length > 0, `${name} names the action`);
    for (const reference of references) assert.match(reference, /^perfgate\/perfgate@(?:v1|[0-9a-f]{40}|<full)$/, `${name}: ${reference}`);
    assert.doesNotMatch(text!, /OWNER\/perfgate/, name);
  }
  assert.match(readme, /perfgate\/perfgate@<full commit sha> # v1/);
});

test('README: users first, the two fresh-clone commands at the top of "Developing"', () => {
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(headings, ['Add it to a repository', 'Requirements', 'The CLI', 'Documentation', 'Developing']);
  assert.ok(readme.split('\n').length <= 200, 'the README starts small: everything else is in docs/');
  const developing = readme.slice(readme.indexOf('## Developing'));
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(developing)?.[1]?.split('\n').map((l) => l.split('#')[0]!.trim()).filter(Boolean);
  assert.deepEqual(firstBlock, ['npm ci && npm run demo', 'bash .ci/run']);
  for (const requirement of [/Linux runner/, /Node ≥ 20/, /fetch-depth: 0/, /npm install --save-dev perfgate/, /npx perfgate init/]) assert.match(readme, requirement);
});

test('the workflow init writes: pnpm and yarn through corepack, the Node version file, the time limit', () => {
  const npm = parse(renderWorkflow({ packageManager: 'npm' }));
  assert.deepEqual(npm.jobs.measure.steps.map((s: { uses?: string; run?: string }) => s.uses ?? s.run), [
    'actions/checkout@v6',
    'actions/setup-node@v6',
    'perfgate/perfgate@v1',
  ]);
  assert.deepEqual(npm.jobs.measure.steps[2].with, { comment: 'never' }, 'settings come from perfgate.yml');
  assert.deepEqual(npm.jobs.comment.steps, [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, written as is
    { uses: 'perfgate/perfgate@v1', with: { mode: 'report', 'results-digest': '${{ needs.measure.outputs.results-digest }}' } },
  ]);
  const pnpm = parse(renderWorkflow({ packageManager: 'pnpm', nodeVersionFile: '.nvmrc', timeoutMinutes: 44 }));
  assert.equal(pnpm.jobs.measure.steps[2].run, 'corepack enable');
  assert.deepEqual(pnpm.jobs.measure.steps[1].with, { 'node-version-file': '.nvmrc' });
  assert.equal(pnpm.jobs.measure['timeout-minutes'], 44);
});

test('actionlint passes on every workflow init can write', { skip: actionlintSkip }, () => {
  const dir = tempDir({});
  const files: string[] = [];
  const everyDatabase = {
    servers: [
      { kind: 'postgres' as const, drivers: ['pg'] },
      { kind: 'mysql' as const, drivers: ['mysql2'] },
      { kind: 'mongodb' as const, drivers: ['mongoose'] },
      { kind: 'redis' as const, drivers: ['ioredis'] },
    ],
    unknown: [],
  };
  const variants = [
    {},
    { packageManager: 'yarn' as const, nodeVersionFile: '.node-version' },
    { inputs: README_INPUTS },
    { databases: everyDatabase },
    { databases: { servers: [], unknown: ['knex'] } },
  ];
  for (const [i, options] of variants.entries()) {
    const file = join(dir, `perf-${i}.yml`);
    writeFileSync(file, renderWorkflow(options));
    files.push(file);
  }
  const run = runActionlint(files);
  assert.equal(run.status, 0, run.output);
});

test('benchmark suites: files that load benchmark.js, tinybench or mitata, and vitest bench files, as the run searches for them', () => {
  const dir = tempDir({
    'bench/parse.bench.js': "const { Bench } = require('tinybench');\n",
    'bench/sub/sort.bench.mjs': "import { bench, run } from 'mitata';\n",
    'bench/helpers.js': 'module.exports = {};\n',
    'src/server.js': "require('node:http');\n",
    'legacy.js': "var Benchmark = require( \"benchmark\" );\n",
    'node_modules/x/index.js': "require('tinybench');\n",
    '.cache/a.js': "require('tinybench');\n",
    'src/sum.bench.ts': "import { bench } from 'vitest';\n",
    // a vitest test file imports vitest too, and is not a suite
    'src/sum.test.ts': "import { expect, test } from 'vitest';\n",
  });
  assert.deepEqual(findBenchmarkSuites(dir), [
    { path: 'bench/parse.bench.js', library: 'tinybench' },
    { path: 'bench/sub/sort.bench.mjs', library: 'mitata' },
    { path: 'legacy.js', library: 'benchmark' },
    { path: 'src/sum.bench.ts', library: 'vitest' },
  ]);
  // the glob matches exactly the suites, never bench/helpers.js
  assert.deepEqual(proposeBenchmarkGlobs(dir, ['bench/parse.bench.js', 'bench/sub/sort.bench.mjs']), ['bench/**/*.bench.{js,mjs}']);
  assert.deepEqual(proposeBenchmarkGlobs(dir, ['bench/parse.bench.js']), ['bench/**/*.bench.js']);
  assert.deepEqual(proposeBenchmarkGlobs(dir, ['bench/parse.bench.js', 'legacy.js']), ['bench/parse.bench.js', 'legacy.js'], 'no glob fits: the files');
  assert.deepEqual(proposeBenchmarkGlobs(dir, []), []);
  // the repository's own fixtures: one glob for all eleven library suites... and none of the others
  const fixtures = join(ROOT, 'test', 'fixtures', 'bench');
  const suites = findBenchmarkSuites(fixtures).map((s) => s.path);
  assert.ok(suites.includes('tinybench-esm.bench.mjs') && suites.includes('benchmark-cjs.bench.js') && suites.includes('mitata-cjs.bench.cjs'));
  assert.ok(!suites.includes('work.cjs'));
});

test('the perfgate.yml init renders loads with perfgate\'s loader, notes and all', () => {
  const text = renderConfig({
    start: { value: 'npm start', note: 'package.json scripts.start: node server.js' },
    cwd: 'services/api',
    install: 'npm ci',
    readyPath: { value: '/health', note: 'answered 200' },
    readyTimeout: '45s',
    scenarios: [{ value: 'GET /', note: 'answered 200' }],
    benchmarks: { value: ['bench/**/*.bench.js', 'x: y.js'], note: 'micro-benchmarks' },
    schemaPath: './node_modules/perfgate/perfgate.schema.json',
  });
  assert.match(text, /^# yaml-language-server: \$schema=\.\/node_modules\/perfgate\/perfgate\.schema\.json\n/);
  const config = resolveConfig({ document: parseConfigText(text, 'perfgate.yml') });
  assert.equal(config.service.start, 'npm start');
  assert.equal(config.service.cwd, 'services/api');
  assert.equal(config.service.install, null, 'the lockfile decides; install is a comment only');
  assert.deepEqual(config.service.ready, { path: '/health', timeoutMs: 45_000 });
  assert.deepEqual(config.scenarios.map((s) => s.name), ['GET /']);
  assert.deepEqual(config.benchmarks?.files, ['bench/**/*.bench.js', 'x: y.js']);
  // micro-benchmarks alone: no service section, no scenarios
  const benchOnly = resolveConfig({ document: parseConfigText(renderConfig({ scenarios: [], benchmarks: { value: ['b/*.js'], note: 'n' } }), 'perfgate.yml') });
  assert.equal(benchOnly.service.start, null);
  assert.deepEqual(benchOnly.scenarios, []);
});

test('a registered path as one request: parameters filled with 1, optional groups dropped, wildcards and patterns left out', () => {
  assert.deepEqual(fillPath('/users/:id'), { path: '/users/1', filled: ['id'] });
  assert.deepEqual(fillPath('/a/:from-:to/b'), { path: '/a/1-1/b', filled: ['from', 'to'] }, 'fastify: two parameters in one segment');
  assert.deepEqual(fillPath('/users/:id(\\d+)'), { path: '/users/1', filled: ['id'] }, "a parameter's own pattern");
  assert.deepEqual(fillPath('/users/:id?'), { path: '/users/1', filled: ['id'] }, 'express 4 optional parameter');
  assert.deepEqual(fillPath('/books{/:page}'), { path: '/books', filled: [] }, 'express 5 optional group');
  assert.deepEqual(fillPath('/'), { path: '/', filled: [] });
  for (const wildcard of ['/files/*', '/files/*path', '/files/{*splat}', '*']) assert.deepEqual(fillPath(wildcard), { why: 'a wildcard' }, wildcard);
  assert.deepEqual(fillPath('/ab+cd'), { why: 'a pattern' });
  assert.deepEqual(fillPath('/ab?cd'), { why: 'a pattern' }, 'express 4: an optional character, not a query');
  assert.deepEqual(fillPath('/a b'), { why: 'not a request path' });
});

test('registered routes sorted: GET to ask, POST/PUT/PATCH/DELETE never sent, HEAD and OPTIONS dropped, duplicates once', () => {
  const sorted = sortRoutes([
    { method: 'HEAD', path: '/items' },
    { method: 'GET', path: '/items' },
    { method: 'GET', path: '/items' },
    { method: 'ALL', path: '/any' },
    { method: 'POST', path: '/items' },
    { method: 'DELETE', path: '/items/:id' },
    { method: 'OPTIONS', path: '/items' },
    { method: 'GET', path: '/static/*' },
    { method: 'PROPFIND', path: '/dav' },
  ]);
  assert.deepEqual(sorted.reads.map((r) => `${r.method} ${r.path}`), ['GET /items', 'GET /any']);
  assert.deepEqual(sorted.writes.map((r) => `${r.method} ${r.path} ${r.filled.join()}`), ['POST /items ', 'DELETE /items/1 id']);
  assert.deepEqual(sorted.skipped, [
    { route: 'GET /static/*', why: 'a wildcard' },
    { route: 'PROPFIND /dav', why: 'PROPFIND is not a method a scenario sends' },
  ]);
});

test('routes init writes commented out stay out of the configuration; a raw mapping loads as written once uncommented', () => {
  const base = { start: { value: 'npm start', note: 'n' }, scenarios: [] };
  const text = renderConfig({
    ...base,
    scenarios: [
      { value: 'GET /users', note: 'answered 200' },
      { value: 'GET /orders/1', commented: true, note: 'answered 404 "{"error":"no order 1"}" when init asked: fix the path' },
      { value: '{ method: POST, path: /users, body: {} }', raw: true, commented: true, note: 'needs a body' },
    ],
    scenariosNote: 'routes express registered',
    scenariosAfter: ['3 more GET routes not asked'],
  });
  assert.match(text, /^scenarios: # routes express registered$/m);
  assert.match(text, /^ {2}# - \{ method: POST, path: \/users, body: \{\} \} # needs a body$/m);
  assert.match(text, /^ {2}# 3 more GET routes not asked$/m);
  const config = resolveConfig({ document: parseConfigText(text, 'perfgate.yml') });
  assert.deepEqual(config.scenarios.map((s) => s.name), ['GET /users']);
  const uncommented = resolveConfig({ document: parseConfigText(text.replace(/ {2}# - /g, '  - '), 'perfgate.yml') });
  assert.deepEqual(uncommented.scenarios.map((s) => `${s.method} ${s.path} ${s.body ?? ''}`), ['GET /users ', 'GET /orders/1 ', 'POST /users {}']);
});

test('scenarios from the routes read: the first 3 that answered measured, health routes left to ready.path, the rest commented out with why', () => {
  const route = (path: string, filled: string[] = []) => ({ method: 'GET', path, route: path, filled });
  const ok = (status: number) => ({ status, description: `it answered ${status} "x"`, sample: ' "x"', body: 'x', failure: null, raw: 'x' });
  const reads = ['/health', '/a', '/b/1', '/c', '/d', '/e'].map((p) => route(p, p === '/b/1' ? ['id'] : []));
  const findings = {
    answers: [{ path: '/health', status: 200, answer: ok(200) }],
    routes: { frameworks: ['express'], routes: [] },
    sorted: { reads: [...reads, ...Array.from({ length: 25 }, (_, i) => route(`/more/${i}`))], writes: [{ method: 'PATCH', path: '/a', route: '/a', filled: [] }], skipped: [] },
    asked: [...reads.map((request) => ({ request, answer: ok(request.path === '/d' ? 500 : 200) }))],
  };
  const { entries, after, broken, note } = scenariosOf([], findings.answers, findings, '/health');
  assert.deepEqual(
    entries.map((e) => `${e.commented ? '# ' : ''}${e.value}`),
    ['GET /a', 'GET /b/1', 'GET /c', '# GET /e', '# GET /d', '# { method: PATCH, path: /a, body: {} }'],
  );
  assert.match(entries[1]!.note, /:id filled with 1/);
  assert.match(entries[3]!.note, /^answered 200; not measured: init measures the first 3 routes that answered, and each scenario adds ~\d+m \d+s to every run$/);
  assert.match(entries[4]!.note, /^answered 500 "x" when init asked: fix the path, or measure it as it answers: \{ method: GET, path: \/d, expect: \[500\] \}$/);
  assert.deepEqual(after, ['25 more GET routes not asked: init asks the first 20 express registered']);
  assert.deepEqual(broken?.map((b) => b.request.path), ['/d']);
  assert.match(note!, /^routes express registered/);
  // scenarios given as flags are written as given, whatever was read
  assert.deepEqual(scenariosOf(['GET /x'], findings.answers, findings, '/health').entries, [{ value: 'GET /x', note: 'from --scenarios' }]);
});
