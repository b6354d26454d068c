/**
 * The action's own process, as the PR's code sees it: through /proc/<pid>/environ of an
 * ancestor, and through the environment of a process a library starts without an explicit one
 * (@actions/cache's tar). Real processes, real /proc (Linux only).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const TOKEN = 'ghs_environTestToken0123';
const ID_TOKEN = 'idtoken-environ-test-4567';
const RUNTIME = 'runtime-environ-test-89ab';

// Runs in a fresh node: drops and hides as main.ts and gate-mode.ts do, then shows what a
// child started with process.env inherits and what its own /proc/self/environ says.
const SCRIPT = `
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dropTokenVariables, hideFromEnviron } from './src/action/environ.ts';
import { isDroppedName } from './src/engine/process/env.ts';
const dropped = dropTokenVariables(process.env);
const hidden = hideFromEnviron(isDroppedName);
const inherited = execFileSync('/usr/bin/env', { encoding: 'utf8' });
const environ = readFileSync('/proc/self/environ', 'latin1');
process.stdout.write(JSON.stringify({ dropped, hidden, inherited, environ, runtime: process.env.ACTIONS_RUNTIME_TOKEN }));
`;

test('once the inputs hold the token, no child inherits it and /proc/<pid>/environ does not show it', { skip: process.platform !== 'linux' }, () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      'INPUT_GITHUB-TOKEN': TOKEN,
      GITHUB_TOKEN: TOKEN,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: ID_TOKEN,
      ACTIONS_RUNTIME_TOKEN: RUNTIME,
    },
  });
  const seen = JSON.parse(out) as { dropped: string[]; hidden: string[]; inherited: string; environ: string; runtime: string };
  assert.deepEqual(seen.dropped.sort(), ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN']);
  for (const secret of [TOKEN, ID_TOKEN]) {
    assert.ok(!seen.inherited.includes(secret), `a child inherits ${secret}`);
    assert.ok(!seen.environ.includes(secret), `/proc/self/environ shows ${secret}`);
  }
  // The artifact and cache clients still find the runtime token in process.env; the kernel's copy is blanked.
  assert.equal(seen.runtime, RUNTIME);
  assert.ok(!seen.environ.includes(RUNTIME), '/proc/self/environ shows the runtime token');
  assert.ok(seen.hidden.includes('ACTIONS_RUNTIME_TOKEN'), seen.hidden.join(', '));
});
