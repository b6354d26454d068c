import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ArtifactError, artifactPrefix, artifactUrl, extractArtifactFile } from '../../src/github/artifacts.js';
import { describeApiError } from '../../src/github/client.js';
import { pullRequestOf } from '../../src/github/event.js';
import { triggeringRunOf, UntrustedResultsError, verifyResultsOrigin } from '../../src/github/workflow-run.js';
import { buildZip, endRecord } from '../helpers/artifact-zip.js';
import { pullRequestEvent, workflowRunEvent } from '../helpers/github-events.js';

const HEAD = 'c'.repeat(40);

test('pullRequestOf: a fork is a head repository other than the base', () => {
  const own = pullRequestOf(pullRequestEvent({ number: 3, baseSha: 'a'.repeat(40), headSha: HEAD, labels: ['x'] }));
  assert.deepEqual(own, { number: 3, headSha: HEAD, baseSha: 'a'.repeat(40), baseRef: 'main', fromFork: false, labels: ['x'] });
  assert.equal(pullRequestOf(pullRequestEvent({ number: 3, baseSha: 'a'.repeat(40), headSha: HEAD, headRepo: 'mallory/shop' }))!.fromFork, true);
  assert.equal(pullRequestOf({}), null);
});

test('artifact names per gate and attempt; links to the artifact page', () => {
  assert.equal(artifactPrefix('default', 1), 'perfgate-default');
  assert.equal(artifactPrefix('api', 2), 'perfgate-api-attempt2');
  assert.equal(artifactUrl('https://github.com/', { owner: 'acme', repo: 'shop' }, '42', 7), 'https://github.com/acme/shop/actions/runs/42/artifacts/7');
});

test('API errors say which permission to add', () => {
  const forbidden = Object.assign(new Error('Resource not accessible by integration'), { status: 403 });
  assert.match(describeApiError(forbidden, 'comment on pull request #7', 'pull-requests: write'), /needs the `pull-requests: write` permission/);
  const limited = Object.assign(new Error('API rate limit exceeded'), { status: 403 });
  assert.match(describeApiError(limited, 'comment', 'pull-requests: write'), /rate limit is exhausted/);
});

test('verifyResultsOrigin: only a record that matches the workflow_run is reported', () => {
  const run = triggeringRunOf(workflowRunEvent({ runId: 5, event: 'pull_request', headSha: HEAD, headBranch: 'f', headRepo: 'mallory/shop' }));
  const record = { repository: 'acme/shop', pullRequest: 7, headSha: HEAD, baseSha: null, runId: '5', event: 'pull_request' };
  const expected = { repository: 'acme/shop', run, pullRequests: [7] };
  assert.equal(verifyResultsOrigin(record, expected), 7);
  assert.equal(verifyResultsOrigin(record, { ...expected, pullRequests: [] }), null, 'the PR moved on: nothing to comment on');
  assert.throws(() => verifyResultsOrigin(undefined, expected), (e) => e instanceof UntrustedResultsError && /no record of the GitHub run/.test(e.message));
  assert.throws(() => verifyResultsOrigin({ ...record, pullRequest: 8 }, expected), /pull request: the artifact says 8, GitHub lists #7/);
  assert.throws(
    () => verifyResultsOrigin({ ...record, headSha: '\n::add-mask::x' }, expected),
    (e) => e instanceof Error && e.message.includes('"\\n::add-mask::x"'),
    'a crafted value is quoted, so it cannot start a log line',
  );
  const push = triggeringRunOf(workflowRunEvent({ runId: 5, event: 'push', headSha: HEAD, headBranch: 'main' }));
  assert.throws(() => verifyResultsOrigin({ ...record, event: 'push' }, { repository: 'acme/shop', run: push, pullRequests: [] }), /pull request: the artifact says 7/);
  assert.throws(() => triggeringRunOf({}), /has no workflow_run/);
});

describe('the results archive is read strictly: one reading or none', () => {
  const results = '{"schemaVersion": 1}';
  const read = (zip: Buffer) => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-zip-'));
    writeFileSync(join(dir, 'a.zip'), zip);
    return extractArtifactFile(join(dir, 'a.zip'), 'results.json', 1 << 20, 'the results artifact of run 5').toString();
  };

  test('a well-formed archive, deflated or stored, reads back', () => {
    assert.equal(read(buildZip([{ name: 'report.md', data: '# r' }, { name: 'results.json', data: results }])), results);
    assert.equal(read(buildZip([{ name: 'results.json', data: results, stored: true }])), results);
    assert.equal(read(buildZip([{ name: 'results.json', data: results }], { comment: Buffer.from('made by hand') })), results);
  });

  test('two entries of one name are refused, whichever a reader would take', () => {
    const zip = buildZip([
      { name: 'results.json', data: results },
      { name: 'results.json', data: '{"forged": true}' },
    ]);
    assert.throws(() => read(zip), (e) => e instanceof ArtifactError && /two entries named "results\.json"/.test(e.message) && /Refusing to report it/.test(e.message));
  });

  test('a second end record hidden in the archive comment is refused', () => {
    // The honest archive, then a comment holding a forged directory and an end record that points at it.
    const honest = buildZip([{ name: 'results.json', data: results }]);
    const forged = buildZip([{ name: 'results.json', data: '{"forged": true}', stored: true }]);
    const forgedDirectoryAt = forged.readUInt32LE(forged.length - 6);
    const forgedDirectory = forged.subarray(forgedDirectoryAt, forged.length - 22);
    // The forged local header and data go in the comment too; offsets are from the archive's start.
    const commentStart = honest.length;
    const local = forged.subarray(0, forgedDirectoryAt);
    const directory = Buffer.from(forgedDirectory);
    directory.writeUInt32LE(commentStart, 42);
    const comment = Buffer.concat([local, directory, endRecord(1, directory.length, commentStart + local.length)]);
    const zip = Buffer.concat([honest.subarray(0, honest.length - 2), Buffer.from([comment.length & 0xff, comment.length >> 8]), comment]);
    assert.throws(() => read(zip), /2 end-of-central-directory records, not one/);
    // Without the honest end record the forged one alone reads: the refusal is about the two.
    assert.equal(JSON.parse(read(Buffer.concat([Buffer.alloc(commentStart), comment])).toString()).forged, true);
  });

  test('an entry whose bytes do not match its CRC-32 is refused', () => {
    const zip = buildZip([{ name: 'results.json', data: results, crc: 0x12345678 }]);
    assert.throws(() => read(zip), /results\.json does not match its CRC-32 \(the archive says 12345678/);
    // A byte changed in stored data after the archive was written.
    const stored = buildZip([{ name: 'results.json', data: results, stored: true }]);
    stored[30 + 'results.json'.length + 2] ^= 0x20;
    assert.throws(() => read(stored), /does not match its CRC-32/);
  });

  test('an entry that inflates past the cap or to another size than claimed is refused', () => {
    const bomb = buildZip([{ name: 'results.json', data: Buffer.alloc(4 << 20) }]);
    assert.throws(() => read(bomb), /more than 1048576/);
    const zip = buildZip([{ name: 'results.json', data: results }]);
    const at = zip.readUInt32LE(zip.length - 6);
    zip.writeUInt32LE(5, at + 24);
    assert.throws(() => read(zip), /unpacks to 20 bytes, but the archive says 5/);
  });
});
