// lane: beside — what it asserts is who the arm's starts run as and what they can see, behind a gzip culprit that costs about a third of the throughput; a neighbour's load moves neither.
/**
 * The reverted head is still the pull request's code: the third arm must start it as contained
 * as head. With `--boundary` (root makes head's user), every start says who it runs as, in which
 * cgroup, and whether it can see the token the run was given; the arm's starts must say what
 * head's own starts say, and never the token. The case is test/integration/confirm.test.ts's
 * gzip culprit, so that the arm runs; one block of few pairs (10: enough for the gate to fail on
 * a drop this large, which is what makes the arm run), and a 1 s profile.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readResults } from '../../src/results/io.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';

const TOKEN = 'ghs_confirmArmMustNotSeeThis0123456789';
const canContain = process.platform === 'linux' && process.getuid?.() === 0;

/** The lines each start printed before the service, from every .log under `dir` but those under `skip`. */
function said(dir: string, skip?: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.log') && (skip === undefined || !f.startsWith(`${skip}/`)))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').match(/^start as .*$/gm) ?? []);
}

test("the third arm starts the reverted head as head: head's user, inside the boundary, without the token", { skip: !canContain && 'needs root on Linux, to make the boundary and head\'s user' }, async () => {
  const repo = makeRepo(
    {
      'server.js': { copy: 'services/culprits/zlib-base.js' },
      'perfgate.yml': `service:
  start: echo "start as $(id -un) side $PERFGATE_SIDE in $(tr '\\n' ' ' < /proc/self/cgroup) token \${GITHUB_TOKEN:-none}" && exec node server.js
  ready: { timeout: 10s }
scenarios: [GET /]
load: { pairs: 10, blocks: 1, instances: 10, slice: 300ms, warmup: 300ms }
profile: { duration: 1s }
`,
    },
    { 'server.js': { copy: 'services/culprits/zlib-head.js' } },
  );
  const out = join(repo, '.out');
  const run = await runCli(['compare', '--base', 'main', '--out', out, '--seed', '13', '--boundary'], repo, { ...process.env, GITHUB_TOKEN: TOKEN });
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const results = readResults(join(out, 'results.json'));
  const record = results.confirmations?.[0];
  assert.equal(record?.status, 'measured', JSON.stringify(results.confirmations));
  const arm = said(join(out, 'confirm'));
  const main = said(out, 'confirm');
  const heads = new Set(main.filter((line) => / side head /.test(line)));
  const bases = new Set(main.filter((line) => / side base /.test(line)));
  assert.equal(arm.length, 20 * (record!.blocks ?? 1), `each of the arm's starts (10 a side per block) said who it runs as: ${arm.join('\n')}`);
  assert.equal(heads.size, 1, `head's starts run alike: ${[...heads].join('\n')}`);
  assert.deepEqual(new Set(arm), heads, "the arm's starts, reverted head and head alike, run as head's starts do");
  assert.notDeepEqual(heads, bases, "head's user or cgroup is not base's: the boundary contains head");
  assert.match([...heads][0]!, / token none$/);
  assert.ok(!readdirSync(out, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.log') && readFileSync(join(out, f), 'utf8').includes(TOKEN)), 'no log holds the token');
});
