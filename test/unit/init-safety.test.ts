/**
 * What init and plan may send, and how they judge an answer: the routes that say they write are
 * never asked (by path or by handler name, whole words only), a 2xx whose JSON says it failed is
 * not an answer to measure, a quoted body cannot drive the terminal, and the files init writes
 * follow the project (a gitignored lockfile, a database driver).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { scenariosOf } from '../../src/cli/init.js';
import { parseConfigText, resolveConfig } from '../../src/config/load.js';
import { answersAsExpected, bodyMismatch, bodyProblem, brokenRouteMessage, failureInBody, oneLine, quoteAnswer, type RouteAnswer, whyNotAsked, writingWord } from '../../src/engine/service/probe.js';
import { checkoutPackageManager } from '../../src/engine/workspace/trees.js';
import { renderConfig } from '../../src/init/config-text.js';
import { detectDatabases } from '../../src/init/detect.js';
import { safeProbePaths } from '../../src/init/probe.js';
import { sortRoutes } from '../../src/init/routes.js';
import { renderWorkflow } from '../../src/init/workflow.js';

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-init-safety-'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

test('a path or handler name that says it writes: whole words of camelCase, kebab and snake segments, not substrings', () => {
  const writes = {
    '/users/empty': 'empty',
    '/products/drop': 'drop',
    '/users/init': 'init',
    '/users/add/1': 'add',
    '/users/remove/1': 'remove',
    '/users/create': 'create',
    '/logout': 'logout',
    '/auth/sign-out': 'signout',
    '/auth/signOut': 'signout',
    '/cron/run': 'cron',
    '/reports/run': 'run',
    '/admin/reset_cache': 'reset',
    '/db/seed': 'seed',
    '/api/v2/deleteAll': 'delete',
    '/jobs/trigger': 'trigger',
    '/files/upload': 'upload',
    '/posts/new': 'new',
    '/tasks?action=delete': 'delete',
  };
  for (const [path, word] of Object.entries(writes)) assert.equal(writingWord(path), word, path);
  for (const path of ['/users/1/address', '/news', '/settings', '/uploads/a.png', '/runs', '/stats/daily', '/products/dropdown-options', '/users/initials', '/search/autocomplete', '/', '/health']) {
    assert.equal(writingWord(path), null, path);
  }
  assert.equal(writingWord('bound truncateUsers'), 'truncate', "a handler's name");
  assert.equal(writingWord('getUserAddress'), null);
});

test('init and plan ask GET and HEAD only, and say why they do not ask a route', () => {
  assert.equal(whyNotAsked({ method: 'GET', path: '/users/:id' }), null);
  assert.equal(whyNotAsked({ method: 'HEAD', path: '/users' }), null);
  assert.equal(whyNotAsked({ method: 'POST', path: '/users' }), 'POST changes data');
  assert.equal(whyNotAsked({ method: 'get', path: '/users/empty' }), 'its path says it writes ("empty")');
  assert.equal(whyNotAsked({ method: 'GET', path: '/stats', handlers: ['requireAdmin', 'resetStats'] }), 'its handler resetStats says it writes ("reset")');
});

test('registered GET routes that say they write are skipped with why, and the usual paths they answer at are not asked', () => {
  const sorted = sortRoutes([
    { method: 'GET', path: '/', handlers: ['seedDatabase'] },
    { method: 'GET', path: '/users', handlers: ['listUsers'] },
    { method: 'GET', path: '/users/empty' },
    { method: 'GET', path: '/users/add/:n' },
    { method: 'GET', path: '/users/:id/address' },
    { method: 'POST', path: '/users' },
  ]);
  assert.deepEqual(sorted.reads.map((r) => r.path), ['/users', '/users/1/address']);
  assert.deepEqual(sorted.writes.map((r) => `${r.method} ${r.path}`), ['POST /users']);
  assert.deepEqual(sorted.skipped, [
    { route: 'GET /', why: 'its handler seedDatabase says it writes ("seed")', writes: true, path: '/' },
    { route: 'GET /users/empty', why: 'its path says it writes ("empty")', writes: true, path: '/users/empty' },
    { route: 'GET /users/add/:n', why: 'its path says it writes ("add")', writes: true, path: '/users/add/1' },
  ]);
  assert.deepEqual(safeProbePaths(['/health', '/healthz', '/ready', '/'], sorted), ['/health', '/healthz', '/ready'], 'GET / is seedDatabase here');
});

const answer = (status: number, raw: string): RouteAnswer => ({ status, description: `it answered ${status} "${oneLine(raw)}"`, sample: "", body: oneLine(raw), failure: failureInBody(raw), raw });

test('a 2xx whose JSON says it failed is not what a scenario expects, unless the scenario declares its status', () => {
  assert.equal(failureInBody('{"success":false,"error":"connect ECONNREFUSED 127.0.0.1:5432"}'), '"success": false');
  assert.equal(failureInBody('{"data":null,"errors":[{"message":"db down"}]}'), '"errors": [{"message":"db down"}]');
  assert.equal(failureInBody('{"error":"connect ECONNREFUSED"}'), '"error": "connect ECONNREFUSED"');
  assert.equal(failureInBody('{"status":"error","message":"x"}'), '"status": "error"');
  assert.equal(failureInBody('{"ok":false}'), '"ok": false');
  for (const fine of ['{"error":null,"data":[1]}', '{"errors":[]}', '{"error":""}', '{"success":true}', '[{"error":"in an item"}]', 'error', '', '{"users":[{"id":1}]}', '{"status":"ok"}']) {
    assert.equal(failureInBody(fine), null, fine);
  }
  const failing = answer(200, '{"success":false,"error":"connect ECONNREFUSED"}');
  assert.equal(answersAsExpected({ expect: null }, failing), false);
  assert.equal(answersAsExpected({ expect: [200] }, failing), true, 'a declared status is judged by status only');
  assert.equal(answersAsExpected({ expect: null }, answer(200, '{"users":[]}')), true);
});

test("expect:'s body and json are matched against the whole body, and a mismatch says how it differs", () => {
  const ok = answer(200, '{"success":true,"data":{"items":[{"id":7}]},"note":null}');
  const down = answer(200, '{"success":false,"error":"connect ECONNREFUSED"}');
  const json = { expect: null, expectBody: { json: { success: true, 'data.items.0.id': 7, note: null } } };
  assert.equal(answersAsExpected(json, ok), true);
  assert.deepEqual(bodyProblem(json, down), { kind: 'mismatch', text: 'success is false, not true' });
  assert.equal(bodyMismatch({ json: { 'data.items.0.id': 7 } }, '{"data":{"items":[]}}'), 'data.items.0.id is absent, not 7');
  assert.equal(bodyMismatch({ json: { success: true } }, '<html>down</html>'), 'it is not JSON');
  assert.equal(bodyMismatch({ json: { count: 3 } }, '{"count":"3"}'), 'count is "3", not 3', 'a number is not its text');
  // Text is looked for in the whole body, beyond the part a message quotes.
  const long = answer(200, `${'x'.repeat(500)} ready`);
  assert.equal(answersAsExpected({ expect: [200], expectBody: { contains: 'ready' } }, long), true);
  assert.deepEqual(bodyProblem({ expect: [200], expectBody: { contains: 'ok' } }, answer(200, 'maintenance')), { kind: 'mismatch', text: 'it does not contain "ok"' });
  assert.equal(answersAsExpected({ expect: [503], expectBody: { contains: 'maintenance' } }, answer(503, 'maintenance')), true);
  assert.equal(answersAsExpected({ expect: null, expectBody: { contains: 'maintenance' } }, answer(503, 'maintenance')), false, 'the status is checked as well');
  // Declaring a body turns the guess about failing 2xx bodies off: the route says what it answers.
  assert.equal(answersAsExpected({ expect: null, expectBody: { contains: 'ECONNREFUSED' } }, down), true);
  assert.match(
    brokenRouteMessage({ name: 'GET /a', method: 'GET', path: '/a', expect: [200], expectBody: { contains: 'ok', json: { success: true } } }, 'on head', 'it answered 200 "x"', bodyProblem(json, down)),
    /, a body that does not match expect: \(success is false, not true\)\. perfgate expects 200 with a body that contains "ok" and has success true\. Fix the request/,
  );
});

test('a quoted body is one short line that cannot move the cursor, recolour or reorder the terminal', () => {
  assert.equal(oneLine('\u001b[2J\u001b[31mred\u001b[0m\r\nnext\u0007 \u202eevil'), 'red next evil');
  assert.equal(oneLine('\u001b]8;;https://x\u0007link\u001b]8;;\u0007'), 'link');
  assert.equal(oneLine('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot GET /healthz</pre>\n</body>\n</html>\n'), 'Cannot GET /healthz');
  assert.equal(oneLine('<pre>Cannot GET /x</pre>'), '<pre>Cannot GET /x</pre>', 'a fragment is quoted as it came');
  // Express's development error page: the stack in a <pre>, indented with &nbsp; and broken with <br>.
  const express = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Error: a &lt;b&gt; &amp; &#39;c&#x27;<br> &nbsp; &nbsp;at handler (/srv/app/server.js:9:11)<br> &nbsp; &nbsp;at Layer.handle</pre>\n</body>\n</html>\n';
  assert.equal(oneLine(express), "Error: a <b> & 'c' at handler (/srv/app/server.js:9:11) at Layer.handle");
  assert.equal(oneLine(express, 20), 'Error: a <b> & \'c\' a…', 'cut after the markup is gone, so the quote is text');
  assert.equal(oneLine('<!doctype html><p>&bogus; &#0;</p><!-- note -->'), '&bogus; &#0;', 'an unknown reference stays as written');
  assert.equal(quoteAnswer(answer(200, `[${'{"id":1},'.repeat(30)}]`)), `200 "${`[${'{"id":1},'.repeat(30)}]`.slice(0, 72)}…"`);
  assert.equal(quoteAnswer(answer(204, '')), '204 with an empty body');
  assert.equal(quoteAnswer({ status: null, description: 'it did not answer within 2 s', sample: '', body: '', failure: null, raw: '' }), 'did not answer within 2 s');
});

test('init: a route that answered 2xx with a failure body is marked, not measured; a writing GET is named, never written as a scenario', () => {
  const route = (path: string) => ({ method: 'GET', path, route: path, filled: [] });
  const good = answer(200, '[{"id":1}]');
  const failing = answer(200, '{"success":false,"error":"connect ECONNREFUSED 127.0.0.1:5432"}');
  const findings = {
    answers: [{ path: '/', status: 200, answer: good }],
    routes: { frameworks: ['express'], routes: [] },
    sorted: { reads: [route('/users'), route('/products')], writes: [], skipped: [{ route: 'GET /users/empty', why: 'its path says it writes ("empty")', writes: true, path: '/users/empty' }] },
    asked: [
      { request: route('/users'), answer: failing },
      { request: route('/products'), answer: good },
    ],
  };
  const { entries, after, broken } = scenariosOf([], findings.answers, findings, null);
  assert.deepEqual(entries.map((e) => `${e.commented ? '# ' : ''}${e.value}`), ['GET /products', '# GET /users']);
  assert.match(entries[1]!.note, /^answered 200 "\{"success":false,"error":"connect ECONNREFUSED 127\.0\.0\.1:5432"\}", a body that says it failed \("success": false\), when init asked: give the service what it needs first/);
  assert.deepEqual(broken?.map((b) => b.request.path), ['/users']);
  assert.deepEqual(after, ['not asked and not written, as their path or handler says they change data: GET /users/empty']);
  assert.ok(!entries.some((e) => e.value.includes('empty')));
});

test('database drivers in dependencies: service containers and their variables in the workflow, a setup hint in perfgate.yml', () => {
  const dir = tempDir({ 'package.json': JSON.stringify({ dependencies: { express: '5', 'pg-promise': '11', ioredis: '5', knex: '3' }, devDependencies: { mysql2: '3' } }) });
  const databases = detectDatabases(dir);
  assert.deepEqual(databases, {
    servers: [
      { kind: 'postgres', drivers: ['pg-promise'] },
      { kind: 'redis', drivers: ['ioredis'] },
    ],
    unknown: [],
  }, "knex uses pg-promise's server; a devDependency is for tests");
  const workflow = parse(renderWorkflow({ databases }));
  assert.deepEqual(Object.keys(workflow.jobs.measure.services), ['postgres', 'redis']);
  assert.equal(workflow.jobs.measure.services.postgres.image, 'postgres:16');
  assert.match(workflow.jobs.measure.services.postgres.options, /--health-cmd "pg_isready -U postgres"/);
  assert.deepEqual(workflow.jobs.measure.env, {
    PGHOST: '127.0.0.1',
    PGPORT: 5432,
    PGUSER: 'postgres',
    PGPASSWORD: 'perfgate',
    DATABASE_URL: 'postgres://postgres:perfgate@127.0.0.1:5432/postgres',
    REDIS_URL: 'redis://127.0.0.1:6379',
  });
  assert.equal(parse(renderWorkflow({})).jobs.measure.services, undefined, 'no driver, no container');
  const ormOnly = renderWorkflow({ databases: detectDatabases(tempDir({ 'package.json': JSON.stringify({ dependencies: { '@prisma/client': '6' } }) })) });
  assert.match(ormOnly, /# package\.json has @prisma\/client but no driver init knows: .*\n.*example-workflows\/perf-postgres\.yml/);
  const config = renderConfig({ start: { value: 'npm start', note: 'n' }, scenarios: [{ value: 'GET /', note: 'n' }], databaseDrivers: ['pg-promise'] });
  assert.match(config, /^ {2}# setup: node scripts\/db-setup\.js # package\.json has pg-promise: a database per side/m);
  assert.equal(resolveConfig({ document: parseConfigText(config, 'perfgate.yml') }).service.setup, null, 'the hint is a comment');
});

test('a lockfile git ignores is not in the run\'s checkout: the install is npm install, and init and plan say why', async () => {
  const dir = tempDir({ 'package.json': JSON.stringify({ dependencies: { express: '5' } }), 'package-lock.json': '{"lockfileVersion":3}', '.gitignore': 'package-lock.json\n' });
  execFileSync('git', ['init', '--quiet'], { cwd: dir });
  assert.deepEqual(await checkoutPackageManager(dir), { packageManager: { name: 'npm', lockfile: null, install: 'npm install' }, ignored: ['package-lock.json'] });
  writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
  assert.deepEqual(await checkoutPackageManager(dir), { packageManager: { name: 'npm', lockfile: 'package-lock.json', install: 'npm ci' }, ignored: [] });
});
