#!/usr/bin/env node
// The micro-benchmark demo: a throwaway git repository holding this example in three commits —
// divideByAndSum with map/reduce in a try/catch (main), then a for loop (branch for-loop), then
// without the try/catch (branch no-try-catch) — and the bundled CLI comparing each version with
// the one before, as a pull request would: `perfgate compare --base <before> --head <after>`.
// The project vendors benchmark.js (copied from perfgate's own devDependencies), so nothing is
// downloaded: install is skipped with --install false. Extra arguments go to `perfgate compare`.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const example = join(root, 'examples/benchmarks');
const repo = mkdtempSync(join(tmpdir(), 'perfgate-bench-demo-'));
const git = (...args) =>
  execFileSync('git', ['-c', 'user.name=demo', '-c', 'user.email=demo@example.com', ...args], { cwd: repo, stdio: 'pipe' });

/** Commits the example with `version` (a file of versions/, or null for src/ as it is) as src/divide.js. */
function commit(version, message) {
  if (version) cpSync(join(example, 'versions', version), join(repo, 'src/divide.js'));
  git('add', '-A');
  git('commit', '--quiet', '-m', message);
}

const runs = [
  { base: 'main', head: 'for-loop' },
  { base: 'for-loop', head: 'no-try-catch' },
];
let failed = false;
try {
  cpSync(example, repo, { recursive: true, filter: (path) => !path.includes('/versions') && !path.endsWith('demo.mjs') });
  for (const dependency of ['benchmark', 'lodash', 'platform']) {
    cpSync(join(root, 'node_modules', dependency), join(repo, 'node_modules', dependency), { recursive: true });
  }
  git('init', '--quiet', '--initial-branch=main');
  commit(null, 'divideByAndSum: map and reduce in a try/catch');
  git('checkout', '--quiet', '-b', 'for-loop');
  commit('2-for-loop.js', 'divideByAndSum: a for loop');
  git('checkout', '--quiet', '-b', 'no-try-catch');
  commit('3-no-try-catch.js', 'divideByAndSum: no try/catch');
  console.log(`demo repository: ${repo} (main → for-loop → no-try-catch)\n`);

  for (const { base, head } of runs) {
    const args = ['compare', '--base', base, '--head', head, '--install', 'false', ...process.argv.slice(2)];
    console.log(`$ perfgate ${args.join(' ')}\n`);
    const started = Date.now();
    const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: repo, stdio: 'inherit' });
    console.log(`\ndemo: ${base} → ${head}: perfgate exited ${run.status}; wall time ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    if (run.status !== 0 && run.status !== 1) failed = true;
  }
} finally {
  rmSync(repo, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
