/**
 * The guard's write probes against a local server that answers as GitHub does (a refusal is 403
 * "Resource not accessible by integration", a permitted request with a missing field is 422): a
 * rate-limited answer says nothing about the token, so it must read as unknown (which refuses a
 * pull request's run), never as "cannot write".
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { installationTokenWrites, tokenCanWrite } from '../../src/action/guard.js';
import { createClient, rateLimited as rateLimitedError } from '../../src/github/client.js';
import { FakeGitHub, OWNER, REPO, rateLimited } from '../helpers/github-api.js';

const quiet = { info() {}, warn() {}, debug() {} };
const repo = { owner: OWNER, repo: REPO };
let github: FakeGitHub;
before(async () => {
  github = await FakeGitHub.start();
});
after(() => github.stop());

const probeClient = (token: string) => createClient(token, quiet, github.url, { throttle: false });

test('a token that can write is found out by its probes, and one that cannot is not; nothing is created', async () => {
  assert.deepEqual(await installationTokenWrites(probeClient('ghs_writeToken'), repo), ['contents: write', 'pull-requests: write', 'issues: write']);
  assert.deepEqual(await installationTokenWrites(probeClient('ghs_readOnlyForkToken'), repo), []);
  assert.equal(await tokenCanWrite(probeClient('ghs_readOnlyForkToken'), repo, 'ghs_readOnlyForkToken'), false);
  assert.ok(github.writes().every((w) => w.status === 403 || w.status === 422), 'every probe was refused or invalid: none created anything');
});

test("a rate-limited probe leaves the token's permission unknown, not read-only", async () => {
  github.failNext('POST', /\/issues$/, rateLimited());
  assert.equal(await installationTokenWrites(probeClient('ghs_readOnlyForkToken'), repo), null);
  github.failNext('POST', /\/git\/refs$/, rateLimited());
  assert.equal(await tokenCanWrite(probeClient('ghs_readOnlyForkToken'), repo, 'ghs_readOnlyForkToken'), null);
  github.failNext('POST', /\/pulls$/, { status: 403, headers: { 'x-ratelimit-remaining': '0' }, body: { message: 'You have exceeded a secondary rate limit' } });
  assert.equal(await installationTokenWrites(probeClient('ghs_readOnlyForkToken'), repo), null);
  assert.ok(rateLimitedError(Object.assign(new Error('Too many requests'), { status: 429 })), 'a 429 is a rate limit too');
  assert.ok(!rateLimitedError(Object.assign(new Error('Resource not accessible by integration'), { status: 403 })), 'a refusal is not');
});
