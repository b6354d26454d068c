/**
 * What a failure message shows of a log (src/engine/process/log-excerpt.ts): the last lines, and
 * the first error with its stack when it is further up.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explainLog, firstError, firstErrorInFile, ownPlace } from '../../src/engine/process/log-excerpt.js';

const dir = mkdtempSync(join(tmpdir(), 'perfgate-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const log = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

test("Node's uncaught exception: the throwing line and caret above the error, then its stack", () => {
  const lines = [
    '$ node server.js   (head, port 4000)',
    'listening',
    '/srv/app/server.js:12',
    "    throw new TypeError('user is undefined');",
    '    ^',
    '',
    "TypeError: user is undefined",
    '    at handler (/srv/app/server.js:12:11)',
    '    at Server.emit (node:events:519:28)',
    '',
    'Node.js v24.11.0',
  ];
  assert.deepEqual(firstError(lines), { line: 3, text: lines.slice(2, 9).join('\n') });
});

test('the usual runtimes: an error code, a Python traceback, a Go panic, a Java exception', () => {
  assert.equal(firstError(['ok', 'Error [ERR_MODULE_NOT_FOUND]: Cannot find package', '    at resolve (x)'])?.line, 2);
  const traceback = ['Traceback (most recent call last):', '  File "app.py", line 3, in <module>', '    rows = db[1]', 'KeyError: 1', 'shutting down'];
  assert.equal(firstError(traceback)?.text, traceback.slice(0, 4).join('\n'));
  assert.equal(firstError(['panic: runtime error: index out of range', '', 'goroutine 1 [running]:'])?.line, 1);
  assert.equal(firstError(['Exception in thread "main" java.lang.IllegalStateException: no db', '\tat App.main(App.java:9)'])?.text.split('\n').length, 2);
  assert.equal(firstError(['GET / 200 1.2 ms', 'error rate 0%', 'errors: none']), null, 'a word in a line is not an error report');
});

test("a database driver's unhandled 'error' event above its dump of the connection: the server's reason, named `error`, is the first error", () => {
  const lines = [
    '$ node server.js   (base, port 43041)',
    'node:events:502',
    "      throw er; // Unhandled 'error' event",
    '      ^',
    '',
    'error: terminating connection due to administrator command',
    '    at parseErrorMessage (/srv/app/node_modules/pg-protocol/dist/parser.js:306:11)',
    '    at Parser.handlePacket (/srv/app/node_modules/pg-protocol/dist/parser.js:143:27)',
    "Emitted 'error' event on BoundPool instance at:",
    '    at Client.idleListener (/srv/app/node_modules/pg-pool/index.js:62:10)',
    '  client: Client {',
    '    _events: [Object: null prototype] { error: [Function (anonymous)] },',
    '        error: [Function: bound _handleErrorEvent],',
  ];
  const error = firstError(lines);
  assert.equal(error?.line, 2, 'from the place Node printed above it');
  assert.match(error!.text, /^node:events:502\n[\s\S]*\nerror: terminating connection due to administrator command\n {4}at parseErrorMessage/);
  assert.equal(firstError(lines.slice(9)), null, "the dump's `error:` keys are not errors");
});

test('an error among the last lines is shown once; one above them is added after them', () => {
  const near = log('near.log', 'starting\nError: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle\n');
  assert.equal(explainLog(near, 20), 'starting\nError: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle');
  const dump = Array.from({ length: 30 }, (_, i) => `  field${i}: ${i},`).join('\n');
  const far = log('far.log', `starting\nError: Connection terminated unexpectedly\n    at Client.end (pg/client.js:1:1)\n${dump}\n`);
  const shown = explainLog(far, 5);
  assert.equal(shown, `${dump.split('\n').slice(-5).join('\n')}\n--- the first error in the log, line 2 ---\nError: Connection terminated unexpectedly\n    at Client.end (pg/client.js:1:1)`);
});

test('a log of many megabytes: its first error from the start, its last lines from the end', () => {
  const filler = 'x'.repeat(99);
  const big = log('big.log', `Error: first\n    at boot (a.js:1:1)\n${`${filler}\n`.repeat(30_000)}the end\n`);
  assert.equal(explainLog(big, 2), `${filler}\nthe end\n--- the first error in the log, line 1 ---\nError: first\n    at boot (a.js:1:1)`);
  assert.equal(explainLog(join(dir, 'missing.log')), '');
});

test("an error's place is the first frame in the project's own code, relative to its root", () => {
  const stack = [
    'TypeError: user is undefined',
    '    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)',
    '    at resolvePermissions (/srv/app/src/server.js:14:11)',
    '    at next (node:internal/process/task_queues:105:5)',
  ].join('\n');
  assert.equal(ownPlace(stack, '/srv/app'), 'src/server.js:14');
  assert.equal(ownPlace('/srv/app/server.js:12\n    throw e;\n    ^\n\nError: x', '/srv/app'), 'server.js:12', "Node's source place above an uncaught error");
  assert.equal(ownPlace('Error: x\n    at file:///srv/app/index.mjs:3:9', '/srv/app'), 'index.mjs:3', 'an ES module frame');
  assert.equal(ownPlace(stack, '/elsewhere'), null, 'no frame inside the tree');
});

test('the first error of a log file, or null when it has none or does not exist', () => {
  const path = log('express.log', 'listening on 4000\nError: boom\n    at /srv/app/server.js:9:11\n    at Layer.handle (/srv/app/node_modules/x.js:1:1)\nlater\n');
  assert.deepEqual(firstErrorInFile(path), { line: 2, text: 'Error: boom\n    at /srv/app/server.js:9:11\n    at Layer.handle (/srv/app/node_modules/x.js:1:1)' });
  assert.equal(firstErrorInFile(log('quiet.log', 'listening\n')), null);
  assert.equal(firstErrorInFile(join(dir, 'absent.log')), null);
});
