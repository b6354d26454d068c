// lane: beside — it tests where results are written, on identical code.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, quickConfig } from '../helpers/repo.js';

const service = { 'server.js': "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n" };

test('a --json and --markdown that cannot be written after a complete run: the verdict printed, results.json complete and named, exit 2 for the copies', async () => {
  const config = quickConfig('scenarios: [GET /]').replace('pairs: 12', 'pairs: 6').replace('blocks: 2', 'blocks: 1').replace('instances: 12', 'instances: 3');
  const repo = makeRepo({ ...service, 'perfgate.yml': config }, { 'README.md': 'docs only' });
  const out = join(repo, '.out');
  // A file where a directory is expected refuses the write for root too (ENOTDIR), unlike a chmod.
  const file = join(repo, '.a-file');
  writeFileSync(file, '');
  const json = join(file, 'copy.json');
  const markdown = join(file, 'report.md');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--json', json, '--markdown', markdown, '--no-profile'], repo);
  assert.equal(run.code, 2, run.stderr + run.stdout);
  assert.match(run.stdout, /^perfgate: /m, 'the verdict is printed');
  assert.match(run.stdout, /GET \//);
  const resultsPath = join(out, 'results.json');
  assert.equal(readResults(resultsPath).status, 'complete');
  assert.ok(run.stderr.includes(`Cannot write the --json copy of results.json at ${json}: a part of the path is a file where a directory is expected. Choose a place you can write with --json.`), run.stderr);
  assert.ok(run.stderr.includes(`Cannot write the markdown report at ${markdown}`), run.stderr);
  assert.match(run.stderr, new RegExp(`exit status [01] on its own\\) and the complete results are in ${resultsPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. perfgate exits 2 only because these copies could not be written\\.`));
  assert.doesNotMatch(run.stderr, /\n\s+at |unexpected error/, 'no stack');
  assert.equal(existsSync(json), false);
});
