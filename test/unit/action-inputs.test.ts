import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeAccessReasons } from '../../src/action/guard.js';
import { readInputs, resolveComment } from '../../src/action/inputs.js';

/** readInputs with only these inputs set, as the runner passes them (INPUT_<NAME>). */
function inputsOf(given: Record<string, string>) {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('INPUT_')) delete process.env[name];
  for (const [name, value] of Object.entries(given)) process.env[`INPUT_${name.toUpperCase()}`] = value;
  try {
    return readInputs();
  } finally {
    process.env = saved;
  }
}

test('a one-job workflow with the defaults is not refused: the measuring step leaves the comment to a report job', () => {
  const inputs = inputsOf({ start: 'node server.js', scenarios: 'GET /hello' });
  assert.equal(inputs.github.comment, 'never');
  assert.equal(inputs.github.commentAuto, true);
  // what gate mode asks the guard on a same-repository pull request with a token
  const workspace = mkdtempSync(join(tmpdir(), 'perfgate-guard-'));
  try {
    const reasons = writeAccessReasons({ workspace, runnerTemp: undefined, wouldComment: inputs.github.comment !== 'never', tokenWrites: null });
    assert.deepEqual(reasons, []);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('comment: auto comments where that is safe or accepted; an explicit choice stands', () => {
  assert.equal(resolveComment('auto', 'report', false), 'always');
  assert.equal(resolveComment('auto', 'gate', true), 'always', 'allow-write-token: the workflow accepted a write token next to the PR code');
  assert.equal(resolveComment('auto', 'gate', false), 'never');
  assert.equal(resolveComment('on-regression', 'gate', false), 'on-regression', 'the guard then refuses it, saying why');
  assert.equal(inputsOf({ mode: 'report' }).github.comment, 'always');
  assert.throws(() => inputsOf({ comment: 'sometimes' }), /Input comment is "sometimes"; use auto, always, on-change, on-regression or never\./);
});
