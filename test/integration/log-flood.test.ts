// lane: beside — it tests what a run keeps of a service's output and says about it; its head dies before any verdict.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { processesIn } from '../helpers/processes.js';
import { ECHO_SCENARIO, ECHO_SERVICE, makeRepo, quickConfig } from '../helpers/repo.js';

/** Bytes under `dir`, files of every depth. */
function sizeOf(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((n, entry) => n + statSync(join(entry.parentPath, entry.name)).size, 0);
}

// Head as a service with a debug logger left on: 2 MB at every start's boot, 1 MB more under
// load; its third start (PERFGATE_START=2) then loses its database: the error that names the
// cause, then a driver's dump of the connection's state, then exit 1.
const FLOODING_SERVER = `
const http = require('node:http');
const line = 'debug: ' + 'x'.repeat(92) + '\\n';
process.stdout.write(line.repeat(20000));
let first = true;
http.createServer((req, res) => {
  if (first && process.env.PERFGATE_START === '2') {
    first = false;
    process.stdout.write(line.repeat(10000), () => {
      console.error(new Error('Connection terminated unexpectedly').stack);
      for (let i = 0; i < 40; i++) console.error('  _connectionState' + i + ': { pending: ' + i + ', queue: [] },');
      process.exit(1);
    });
  }
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => res.end(raw));
}).listen(3000);
`;

test("a service that floods its log: each start's log kept within its cap, one warning that names the side, the scenario and how much, and a later crash's first error still quoted", async (t) => {
  const config = quickConfig(ECHO_SCENARIO).replace('pairs: 12', 'pairs: 6').replace('blocks: 2', 'blocks: 1').replace('instances: 12', 'instances: 3').replace('slice: 300ms', 'slice: 100ms');
  const repo = makeRepo({ ...ECHO_SERVICE, 'perfgate.yml': config }, { 'server.js': FLOODING_SERVER });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out], repo);

  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /The head service exited with code 1 while/);
  // the cause sits above 40 lines of dump, at the end of 3 MB of output of which the log keeps 256 KiB
  assert.match(run.stderr, /_connectionState39/, "the log's last lines");
  assert.match(run.stderr, /--- the first error in the log, line \d+ ---\nError: Connection terminated unexpectedly\n {4}at /, 'the first error, with its stack');

  // three head starts printed 7 MB in all: the run directory keeps a few hundred kB
  const size = sizeOf(out);
  t.diagnostic(`run directory ${size} bytes, logs/head.log ${statSync(join(out, 'logs', 'head.log')).size} bytes`);
  assert.ok(size < 2_000_000, `the run directory holds ${size} bytes`);
  assert.match(statSync(join(out, 'logs', 'head.log')).size.toString(), /^\d{6}$/, 'head.log is kept in hundreds of kB');

  const message = /The head service printed up to 3 MB per start, 7 MB in all \([\d.]+ MB of it under load, the most while scenario "echo" was measured \([\d.]+ MB\)\); 3 of its 3 starts printed more than its log keeps\. perfgate kept the first 64 KiB and the last 192 KiB of each start's output in logs\/head\.log and left out 6\.\d+ MB\. .*log less under load, e\.g\. set the logger's level through the service's env/;
  const warnings = readResults(join(out, 'results.json')).warnings.filter((w) => w.code === 'noisy-service');
  assert.equal(warnings.length, 1, 'one warning for the run');
  assert.match(warnings[0]!.message, message);
  t.diagnostic(warnings[0]!.message);
  assert.equal(warnings[0]!.scenario, 'echo');
  assert.match(run.stderr, message, 'and in the log');
  assert.deepEqual(processesIn(repo), [], 'nothing is left running');
});
