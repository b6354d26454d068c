#!/usr/bin/env node
// How long a pull request waits for its answer, with every default and the install included: the
// three-route Express service of bench/three-routes.mjs (a JSON hello, a user by id, a POST that
// validates its body), as a no-op (README only), as a regression (GET /users/:id does `extra`
// more CPU work per request) and as a one-route no-op (perfgate.yml with GET /users/42 alone).
// Each run is timed end to end (`node dist/cli.js compare`, the trees made, installed, measured,
// profiled and reported) and appended as a JSON line to --out, so a session that ends mid-way
// loses at most the run under way: run it again and it goes on to --runs per kind.
// A benchmark: never beside the test suite (flock /tmp/perfgate-load.lock node bench/answer-times.mjs).
//
//   node bench/answer-times.mjs [--kinds noop,regress,noop-one] [--runs 5] [--extra 0.43]
//                               [--out docs/calibration/answer-times.jsonl]
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    kinds: { type: 'string', default: 'noop,regress,noop-one' },
    runs: { type: 'string', default: '5' },
    extra: { type: 'string', default: '0.43' },
    out: { type: 'string', default: join(root, 'docs', 'calibration', 'answer-times.jsonl') },
  },
});
const RUNS = Number(values.runs);
/** A repository with branches base, regress and same (bench/three-routes.mjs), one route or three. */
function makeRepository(oneRoute) {
  const dir = mkdtempSync(join(tmpdir(), 'answer-times-'));
  const args = [join(root, 'bench', 'three-routes.mjs'), '--dir', dir, '--extra', values.extra, ...(oneRoute ? ['--one-route'] : [])];
  execFileSync(process.execPath, args, { stdio: 'pipe' });
  return dir;
}

/** One timed compare: exit code, wall time, the looks taken, the headline. */
function timedRun(dir, head, out) {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'compare', '--base', 'base', '--head', head, '--out', out], { cwd: dir, env: { ...process.env, CI: 'true' } });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.resume();
    child.on('close', (code) => {
      const ms = Date.now() - started;
      let looks = null;
      let pairs = null;
      let profiled = null;
      try {
        const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
        looks = (results.sequential?.taken ?? []).map((l) => l.decision);
        pairs = Math.min(...results.scenarios.map((s) => s.pairs.length));
        profiled = (results.profiles ?? []).map((p) => p.scenario);
      } catch {}
      done({ code, ms, looks, pairs, profiled, headline: stdout.split('\n').find((l) => l.trim() !== '') ?? '' });
    });
  });
}

const done = existsSync(values.out)
  ? readFileSync(values.out, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
  : [];
const node = process.version;
for (const kind of values.kinds.split(',')) {
  const had = done.filter((r) => r.kind === kind).length;
  if (had >= RUNS) continue;
  const dir = makeRepository(kind === 'noop-one');
  const head = kind === 'regress' ? 'regress' : 'same';
  for (let i = had; i < RUNS; i++) {
    const run = await timedRun(dir, head, `${dir}-${kind}-${i}`);
    const record = { at: new Date().toISOString(), kind, run: i + 1, commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim(), node, cpus: cpus().length, ...run };
    appendFileSync(values.out, `${JSON.stringify(record)}\n`);
    console.log(`${kind} ${i + 1}/${RUNS}: exit ${run.code} in ${(run.ms / 1000).toFixed(0)} s, looks ${run.looks?.join(' → ')}: ${run.headline}`);
  }
}
