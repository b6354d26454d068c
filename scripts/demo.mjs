#!/usr/bin/env node
// The demo: a throwaway git repository holding the example service in two commits — base,
// then head with a slower /hello (examples/regression/payload.js) — and the bundled CLI run
// on it, exactly as a user would run `npx perfgate compare --base main`.
// Extra arguments go to `perfgate compare` (e.g. `npm run demo -- --pairs 60`).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const repo = mkdtempSync(join(tmpdir(), 'perfgate-demo-'));
const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
const started = Date.now();
try {
  cpSync(join(root, 'examples/service'), repo, { recursive: true });
  git('init', '--quiet', '--initial-branch=main');
  git('-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'add', '-A');
  git('-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'commit', '--quiet', '-m', 'example service');
  git('checkout', '--quiet', '-b', 'slower-hello');
  cpSync(join(root, 'examples/regression/payload.js'), join(repo, 'src/payload.js'));
  git('-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'commit', '--quiet', '-am', 'build the greeting the slow way');
  console.log(`demo repository: ${repo} (main = base, slower-hello = head)\n`);

  const args = ['compare', '--base', 'main', '--pairs', '30', ...process.argv.slice(2)];
  console.log(`$ perfgate ${args.join(' ')}\n`);
  const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: repo, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (run.status === 1) {
    console.log(`\ndemo: perfgate found the regression and failed the build (exit 1), as it should. Wall time ${seconds} s.`);
    process.exitCode = 0;
  } else {
    console.log(`\ndemo: perfgate exited ${run.status}; the demo expected a failing decision (exit 1). Wall time ${seconds} s.`);
    process.exitCode = 1;
  }
} finally {
  rmSync(repo, { recursive: true, force: true });
}
