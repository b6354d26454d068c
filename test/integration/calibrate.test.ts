// lane: beside — it tests the calibration harness's records, resumption and tables, not what its tiny runs measured.
// The calibration harness on a tiny setting, so it cannot rot: real runs of the bundled CLI
// against the calibration service, resumed from its file, then the report's table and plot.
// (Its statistics helpers are checked against R's values here too.)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../helpers/repo.js';

const harness = join(ROOT, 'bench', 'calibrate.mjs');
const dir = mkdtempSync(join(tmpdir(), 'perfgate-calibrate-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'runs.jsonl');

function calibrate(...args: string[]) {
  const run = spawnSync(process.execPath, [harness, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  assert.equal(run.status, 0, `calibrate ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}
const lines = () =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

test('t-test p and Wilson intervals match R', async () => {
  const { tTwoSidedP, wilson } = await import(harness);
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)) + 1e-12, `${a} vs R ${b}`);
  // 2 * pt(-abs(t), df)
  close(tTwoSidedP(2.5, 10), 0.0314468442366088);
  close(tTwoSidedP(-3.1, 57.3), 0.00299903090722375);
  close(tTwoSidedP(0.4, 3.5), 0.712344893534444);
  close(tTwoSidedP(6, 100), 3.17249150280286e-8);
  // prop.test(k, n, correct = FALSE)$conf.int
  const [lo, hi] = wilson(3, 20);
  close(lo, 0.0523687458962166);
  close(hi, 0.360418864740757);
  close(wilson(0, 8)[1], 0.32440756488388);
});

test('runs each cell, resumes without repeating a run, and reports every rule', () => {
  const first = calibrate('run', '--tiny', '--runs', '1', '--effects', '0,10', '--out', file);
  assert.match(first, /tiny\/10%\/quiet run 1: exit [01]/);
  assert.equal(lines().length, 2);
  for (const line of lines()) {
    assert.equal(line.error, undefined, line.error);
    assert.equal(line.results.status, 'complete');
    assert.equal(line.results.scenarios[0].pairs.length, 6, 'every pair is recorded (early stop off while recording)');
  }
  // Resuming: a cell that has its runs gets none; a new target adds only what is missing.
  const again = calibrate('run', '--tiny', '--runs', '1', '--effects', '0,10', '--out', file);
  assert.doesNotMatch(again, /run \d:/);
  calibrate('run', '--tiny', '--runs', '2', '--effects', '0', '--out', file);
  assert.deepEqual(
    lines().map((l) => `${l.effect}:${l.run}`),
    ['0:1', '10:1', '0:2'],
  );

  const doc = join(dir, 'calibration.md');
  writeFileSync(doc, '# calibration\n\n<!-- calibration-table:start -->\nold\n<!-- calibration-table:end -->\n\nafter\n');
  const svg = join(dir, 'plot.svg');
  const table = calibrate('report', '--in', file, '--doc', doc, '--svg', svg);
  assert.match(table, /\| rule \| A\/A: false fails \| \+10% work: caught \|/);
  for (const rule of ['perfgate, default (interim look + final)', 'one 5-slice run per side, fail below −5%', 'Welch t-test on slice throughputs']) {
    assert.ok(table.includes(`| ${rule}`), `no row for ${rule}`);
  }
  assert.match(table, /\| perfgate, default \(interim look \+ final\) \| \d\/2 = \d+% \(\d+%–\d+%\) \| \d\/1 = /);
  // 2 A/A runs recombine into 2·1 runs; the other cell's one run has no other to recombine with
  assert.match(table, /\| perfgate, default, on block-recombined runs \(not independent\) \| \d\/2 = [\d.]+% \| — \|/);
  assert.match(table, /measured throughput drop \(median of runs\) \| -?\d+\.\d% \| -?\d+\.\d% \|/);
  const written = readFileSync(doc, 'utf8');
  assert.ok(written.includes(table) && written.endsWith('after\n') && !written.includes('old'));
  // the resample check on test/fixtures/slices, with and without replacement
  const resampled = calibrate('resample', '--n', '20');
  assert.match(resampled, /^with replacement: A\/A false fails \d+\/20 = [\d.]+%, 5% more work caught \d+\/20 = [\d.]+%$/m);
  assert.match(resampled, /^without replacement: /m);
  const plot = readFileSync(svg, 'utf8');
  assert.match(plot, /^<svg /);
  for (const label of ['perfgate today', 'perfgate before', 'one run, −5% ratio', 'one run, −10% ratio', 'Welch t-test']) {
    assert.ok(plot.includes(`>${label}`), `the legend names ${label}`);
  }
  assert.equal((plot.match(/aria-roledescription="line mark"/g) ?? []).length, 5, 'one line per plotted rule');
});

test('the start-pool harness records a tiny run of a calibration service and draws gate runs from its starts', () => {
  const starts = join(ROOT, 'bench', 'calibrate-starts.mjs');
  const pool = join(dir, 'starts.jsonl');
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [starts, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `calibrate-starts ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  run('record', '--tiny', '--kinds', 'http', '--effects', '0', '--out', pool);
  const recorded = readFileSync(pool, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(recorded.length, 1);
  assert.equal(recorded[0].error, undefined, JSON.stringify(recorded[0].error));
  assert.match(recorded[0].verdicts.decision, /^(pass|fail)$/, 'the CLI\'s own decision is recorded');
  assert.equal(recorded[0].verdicts.decision === 'fail', recorded[0].exit === 1);
  const pairs = recorded[0].results.scenarios[0].pairs;
  assert.ok(
    pairs.some((p: { base: { health?: { processes: unknown[] } } }) => (p.base.health?.processes.length ?? 0) > 0),
    'per-process health is kept: the gated health verdicts are derived from it',
  );
  assert.deepEqual([...new Set(pairs.map((p: { start: number }) => p.start))].sort(), [0, 1], 'two start pairs, each its own');
  // resumes: a second record adds nothing
  run('record', '--tiny', '--kinds', 'http', '--effects', '0', '--out', pool);
  assert.equal(readFileSync(pool, 'utf8').trim().split('\n').length, 1);
  const svg = join(dir, 'starts.svg');
  // drawn in the layout the run was recorded in, so the recorded run is also a real run of it
  const tiny = JSON.stringify({ pairs: 6, blocks: 1, instances: 2, slice: '150ms', warmup: '300ms', 'early-stop': false });
  const table = run('report', '--in', pool, '--draws', '5', '--svg', svg, '--draw-load', tiny);
  const plot = readFileSync(svg, 'utf8');
  assert.match(plot, /^<svg /);
  assert.ok(plot.includes('>http<'), 'the kind is a line of the plot');
  assert.match(table, /#### http/);
  assert.match(table, /\| 0% \| quiet \| simultaneous \| 1 · 2 \|/);
  // the recorded run itself, as the CLI decided it
  const failed = recorded[0].exit === 1 ? 1 : 0;
  const unchanged = recorded[0].verdicts.metrics.find((m: { metric: string; gated: boolean }) => m.gated && m.metric === 'throughput').verdict === 'unchanged' ? 1 : 0;
  assert.match(table, new RegExp(`\\| 0% \\| quiet \\| 1 \\| ${failed}/1 = \\d+% \\([^)]*\\) \\| ${unchanged}/1 = `));
  // drawn in the defaults' layout, the tiny run only lends its start pairs: no real run of it
  const defaults = run('report', '--in', pool, '--draws', '5');
  assert.match(defaults, /\| 0% \| quiet \| simultaneous \| 1 · 2 \|/);
  assert.doesNotMatch(defaults, /\| 0% \| quiet \| 1 \| \d\/1 = /, 'a run recorded in another layout is not counted as a real run of the defaults');
});

/** The pid of a running `cli.js compare` whose parent is `parent`, if there is one. */
function compareChildOf(parent: number): number | null {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('compare')) return Number(pid);
    } catch {}
  }
  return null;
}

test('a harness stopped with SIGTERM stops the compare it runs and appends nothing', async () => {
  const starts = join(ROOT, 'bench', 'calibrate-starts.mjs');
  const pool = join(dir, 'stopped.jsonl');
  const harnessProcess = spawn(process.execPath, [starts, 'record', '--tiny', '--kinds', 'http', '--effects', '0', '--out', pool], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  harnessProcess.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => harnessProcess.on('close', (code) => resolve(code)));
  let child: number | null = null;
  for (let i = 0; i < 600 && child === null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    child = compareChildOf(harnessProcess.pid!);
  }
  assert.ok(child, 'the harness started a compare');
  await new Promise((r) => setTimeout(r, 1500)); // inside the compare: worktree, services
  harnessProcess.kill('SIGTERM');
  assert.equal(await exited, 143, stderr);
  assert.match(stderr, /stopped by SIGTERM/);
  assert.equal(existsSync(`/proc/${child}`), false, 'the compare is gone when the harness is');
  assert.equal(existsSync(pool) ? readFileSync(pool, 'utf8').trim() : '', '', 'nothing appended for the stopped run');
});
