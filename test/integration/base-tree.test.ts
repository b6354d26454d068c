// lane: beside — it tests the seal on base's tree, with A/A at alpha 0.001.
/**
 * A hostile head that writes into base's worktree (a sibling of its own, same user) to make base
 * slow: test/fixtures/unfair/tamper.js. perfgate seals base's tracked files, node_modules and
 * every file Node can load (its untracked build output too) right after base is installed and
 * built, before any of head's code runs, and checks the seal after head's install and build,
 * after every block and at the end (src/engine/workspace/base-seal.ts): a change stops the run with exit 2
 * and names the files. An honest service that writes its own cache and
 * log into its tree is not stopped.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { type Files, IDENTICAL_CODE_ALPHA, makeRepo, passingConfig, quickConfig } from '../helpers/repo.js';

/** What a package manager would do: the dependency copied into node_modules. */
const INSTALL = 'mkdir -p node_modules/dep && cp dep.js node_modules/dep/index.js';
const config = (install: string, extra = '', layout = quickConfig) =>
  layout(`scenarios: [GET /work]\n${extra}`).replace('service:\n  start: node server.js\n', `service:\n  start: node server.js\n  install: ${JSON.stringify(install)}\n`);
const base = (extra = '', layout = quickConfig): Files => ({
  'server.js': { copy: 'unfair/dep-server.js' },
  'dep.js': { copy: 'unfair/dep.js' },
  'work.json': '{"iterations": 200000}',
  'perfgate.yml': config(INSTALL, extra, layout),
  '.gitignore': 'node_modules\n',
});

test("head's install that patches base's node_modules stops the run before any load: exit 2, naming the file", async () => {
  const repo = makeRepo(base(), {
    'tamper.js': { copy: 'unfair/tamper.js' },
    // Head is 25% slower; its install makes base's dependency do three times the work.
    'work.json': '{"iterations": 250000}',
    'perfgate.yml': config(`${INSTALL} && node tamper.js install`),
  });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(
    run.stderr,
    /base's tree \(.*\) was changed after perfgate installed and built it, while head was installed and built \(before any service started: head's install or build wrote there\): node_modules\/dep\/index\.js \(written\)\. The pull request's code runs as the same user as base's/,
  );
  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'failed');
  assert.match(results.error!, /node_modules\/dep\/index\.js \(written\)/);
  assert.equal(results.scenarios[0]!.pairs.length, 0, 'no load was sent to a tampered base');
});

test("head's install that patches base's build output, which git ignores, stops the run before any load: exit 2, naming the file", async () => {
  // The service runs what service.build wrote into build/, ignored by git like most build output.
  const built = (install: string) =>
    config(install).replace('start: node server.js\n', 'start: node build/server.js\n  build: "mkdir -p build && cp server.js work.json build/"\n');
  const repo = makeRepo(
    { ...base(), 'perfgate.yml': built(INSTALL), '.gitignore': 'node_modules\nbuild\n' },
    { 'tamper.js': { copy: 'unfair/tamper.js' }, 'work.json': '{"iterations": 250000}', 'perfgate.yml': built(`${INSTALL} && node tamper.js build`) },
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /was changed after perfgate installed and built it, while head was installed and built \(before any service started: head's install or build wrote there\): build\/server\.js \(written\)\./);
  assert.equal(readResults(join(out, 'results.json')).scenarios[0]!.pairs.length, 0, 'no load was sent to a tampered base');
});

test("head's service that writes base's server.js and puts its content and mtime back is caught at the end of the block", async () => {
  const repo = makeRepo(base(), {
    'server.js': { copy: 'unfair/tamper-server.js' },
    'dep-server.js': { copy: 'unfair/dep-server.js' },
    'tamper.js': { copy: 'unfair/tamper.js' },
    'work.json': '{"iterations": 250000}',
  });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  // Content and modification time are as they were; the change time the kernel set is not.
  assert.match(run.stderr, /was changed after perfgate installed and built it, during block 1 of 2 \(while both sides' services ran\): server\.js \(written, its size and modification time put back\)/);
  const results = readResults(join(out, 'results.json'));
  assert.equal(results.status, 'failed');
  assert.equal(results.scenarios[0]!.pairs.length, 6, "the block's pairs are kept, and no other block was measured");
});

test("an honest service that writes its own cache (node_modules/.cache) and log into its tree is not stopped", async () => {
  // Identical code that only has to pass: the least load, still in two blocks, each sealed.
  const honest = base(IDENTICAL_CODE_ALPHA, passingConfig);
  honest['server.js'] = { copy: 'unfair/cache-server.js' };
  honest['dep-server.js'] = { copy: 'unfair/dep-server.js' };
  const repo = makeRepo(honest, { 'README.md': 'docs only' });
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '5'], repo);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stderr, /base's tree sealed: \d+ files, tracked, installed or loadable as code \(\d+ ms\)/);
  assert.equal(readResults(join(out, 'results.json')).status, 'complete');
});
