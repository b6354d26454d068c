/**
 * The file commands of a step that runs PR code, against a real process of "the PR's" that keeps
 * appending to GITHUB_OUTPUT and GITHUB_ENV while perfgate works and after it is done.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { FileCommandLedger, snapshotFileCommands } from '../../src/action/file-commands.js';
import { parseFileCommands } from '../helpers/github-runner.js';

test('the files hold what they held before the PR code ran plus perfgate\'s own lines, whatever a lingering process wrote', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-file-commands-'));
  const env = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_ENV: join(dir, 'env'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(env.GITHUB_OUTPUT, 'earlier<<EOF\nstep\nEOF\n');
  writeFileSync(env.GITHUB_ENV, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY, '');
  const ledger = new FileCommandLedger(snapshotFileCommands(env));

  // "The PR's" process: holds GITHUB_OUTPUT open and appends through that descriptor, and
  // appends by path to both files, every few milliseconds.
  const script = `
    const fs = require('node:fs');
    const fd = fs.openSync(${JSON.stringify(env.GITHUB_OUTPUT)}, 'a');
    setInterval(() => {
      try { fs.writeSync(fd, 'decision=pass\\n'); } catch {}
      try { fs.appendFileSync(${JSON.stringify(env.GITHUB_ENV)}, 'NODE_OPTIONS=--require /tmp/evil.js\\n'); } catch {}
    }, 5);`;
  const writer = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  t.after(() => writer.kill('SIGKILL'));
  while (readFileSync(env.GITHUB_ENV, 'utf8') === '') await sleep(10);

  ledger.setOutput('decision', 'fail');
  await ledger.appendSummary('## perfgate: 1 regression\n');
  await sleep(50);
  const tampered = ledger.seal();
  assert.deepEqual(tampered.sort(), ['GITHUB_ENV', 'GITHUB_OUTPUT']);

  // The process keeps writing through its old descriptor: into a file the runner no longer reads.
  await sleep(100);
  writer.kill('SIGKILL');
  const outputs = parseFileCommands(readFileSync(env.GITHUB_OUTPUT, 'utf8'));
  assert.deepEqual(outputs, { earlier: 'step', decision: 'fail' });
  assert.ok(!readFileSync(env.GITHUB_OUTPUT, 'utf8').includes('decision=pass'), 'nothing written through the old descriptor lands in the file');
  assert.equal(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8'), '## perfgate: 1 regression\n');

  // After the seal, perfgate's own writes go straight to the files (main's last outputs).
  ledger.setOutput('results-path', '/r.json');
  assert.equal(parseFileCommands(readFileSync(env.GITHUB_OUTPUT, 'utf8'))['results-path'], '/r.json');
});
