#!/usr/bin/env node
// Runs the test suite with node's own runner (TypeScript through tsx).
// `npm test` runs everything; `npm test -- unit` (or integration, e2e) runs one layer;
// `npm test -- test/integration/init.test.ts` runs named files.
//
// Unit tests are pure. On a node that has `--test-isolation=none` (`npm test` runs on
// node_modules/.bin's Node 24), they run in runs of 4 files, each run one process that imports its
// files together: a process per file spent most of the unit layer's time starting tsx and importing
// the same modules again (90 s alone on 2 cores, 40 s together). Alone, the runs are shared by one
// worker per core and one more; on an older node, one process per file, one per core. Integration and e2e
// files put real load on real services, so they run in two lanes, one file at a time in each:
// - the load lane: the files whose assertions rest on what the load measured (a small
//   regression caught, an A/A pass at the default level, a fixed rate held, the culprit named
//   from a profile), which a second load on this 2-core machine would disturb;
// - the beside lane: the files that say so on a line of their own (`// lane: beside`, with the
//   reason). Their assertions are about behaviour, not measurement: plumbing around a tenfold
//   regression, an A/A pass at alpha 0.001, a security boundary, an init, a micro-benchmark
//   library captured (whose verdicts test 10x changes). A neighbour's load cannot change them.
// In a whole run the beside lane is a queue with the unit runs at its end. While the load lane
// measures, one item of it runs at a time, so the load lane keeps a core to itself. Once the load
// lane is done, more workers (one per core, and one more) take items from the same queue: what the
// beside files assert does not depend on a neighbour's load, and nothing is measured then. The
// unit layer is cut into runs so that it never holds one core on its own while the other has
// nothing left to take; its few slow files (`// unit: slow`) are queued first, each alone.
// Files that say `// lane: alone` run after both lanes, with nothing beside them: their fixtures
// reach for other processes on the machine (a hostile head that stops every base service it finds).
// PERFGATE_TEST_LANES=1 runs every file in one lane, one at a time.
//
// A file that fails while another file ran beside it has its failed tests run once more at the
// end, alone (the tests that passed beside the neighbour are not run again; the file's hooks are):
// on 2 shared cores a neighbour's load is the harness's doing, not the code's, and a test's
// verdict is the one it gets with nothing beside it. A file that fails alone fails the suite. The
// first failure is still printed whole, and the closing lines name each file that needed the
// second run and what ran beside it, so a test that is fragile under load stays visible.
//
// Each file's wall time is printed at the end (and written to $PERFGATE_TEST_TIMINGS as JSON
// lines, with each top-level test's time, when that is set), so the slow ones are seen.
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAzurite } from '../test/helpers/azurite.mjs';

const args = process.argv.slice(2);
const passThrough = args.filter((a) => a.startsWith('-'));
const named = args.filter((a) => !a.startsWith('-'));
const LAYERS = ['unit', 'integration', 'e2e'];

function find(dir) {
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.sort().flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return find(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}

const selected = (named.length ? named : LAYERS).flatMap((a) =>
  LAYERS.includes(a) ? find(join('test', a)) : [a],
);
if (selected.length === 0) {
  console.error(`no test files under ${named.join(', ') || 'test/'}`);
  process.exit(1);
}
const pure = selected.filter((f) => f.startsWith(join('test', 'unit')));
const loaded = selected.filter((f) => !pure.includes(f));
const oneLane = process.env.PERFGATE_TEST_LANES === '1';
/** The lane a file names on a line of its own near its top (`// lane: beside`), or 'load'. */
const laneOf = (file) => readFileSync(file, 'utf8').slice(0, 4000).match(/^\/\/ lane: (beside|alone)\b/m)?.[1] ?? 'load';
const alone = oneLane ? [] : loaded.filter((f) => laneOf(f) === 'alone');
const beside = oneLane ? [] : loaded.filter((f) => laneOf(f) === 'beside');
const loadLane = loaded.filter((f) => !beside.includes(f) && !alone.includes(f));

const tapDir = mkdtempSync(join(tmpdir(), 'perfgate-tests-'));
// Every test process makes its repositories, run directories and servers' files under TMPDIR: one
// directory of this run's, removed at its end, so a run leaves nothing in /tmp (a whole run makes
// about a thousand directories, 1 GB). Sticky and open to all, as /tmp is: tests run services as
// other users (the runner's, PostgreSQL's), which must reach their own directories in it.
const scratch = mkdtempSync(join(tmpdir(), 'perfgate-suite-'));
chmodSync(scratch, 0o1777);
process.env.TMPDIR = scratch;
const counts = { pass: 0, fail: 0, skipped: 0 };
let runs = 0;

/** A TAP stream's text, or '' when the runner wrote none (it died before its first line). */
function tapText(tapFile) {
  try {
    return readFileSync(tapFile, 'utf8');
  } catch {
    return '';
  }
}

/** The totals of a TAP stream's closing lines (`# pass 12`). */
function countsOf(tapFile) {
  const found = { pass: 0, fail: 0, skipped: 0 };
  const text = tapText(tapFile);
  for (const key of Object.keys(found)) {
    const m = text.match(new RegExp(`^# ${key} (\\d+)$`, 'm'));
    if (m) found[key] = Number(m[1]);
  }
  return found;
}

const addCounts = (found) => {
  for (const key of Object.keys(counts)) counts[key] += found[key];
};

/**
 * Each failed test of a TAP stream: its name and the first lines of its error, which hold the
 * assertion's message (for a run of the CLI, its stderr and stdout). Printed again at the very
 * end, where a CI log's tail is read.
 */
function failuresOf(tapFile) {
  const lines = tapText(tapFile).split('\n');
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^( *)not ok \d+ - (.*)$/);
    if (!m) continue;
    const indent = m[1];
    const block = [];
    for (let j = i + 1; j < lines.length && !lines[j].startsWith(`${indent}  ...`); j++) block.push(lines[j].slice(indent.length + 2));
    // A suite fails with its failed subtest; the subtest's own block says why.
    if (block.some((l) => l.startsWith("failureType: 'subtestsFailed'"))) continue;
    const error = block.findIndex((l) => l.startsWith('error:'));
    const after = error < 0 ? 0 : error + 1 + block.slice(error + 1).findIndex((l) => /^(code|stack|failureType):/.test(l));
    failures.push({ name: m[2], lines: error < 0 ? block.slice(0, 20) : block.slice(error, after > error ? Math.min(after, error + 60) : error + 60) });
  }
  return failures;
}

/** The top-level tests of a TAP stream with their durations, slowest first. */
function topLevelTests(tapFile) {
  const lines = tapText(tapFile).split('\n');
  const tests = [];
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^(?:not )?ok \d+ - (.*)$/);
    if (!m) continue;
    const d = lines.slice(i + 1, i + 6).find((l) => /^ {2}duration_ms: /.test(l));
    if (d) tests.push({ name: m[1], ms: Math.round(Number(d.split(': ')[1])) });
  }
  return tests.sort((a, b) => b.ms - a.ms);
}

/**
 * One `node --test` over `files`; resolves with its exit code and wall time. With `buffered`, its
 * report is printed whole when it ends, so two lanes' reports do not interleave line by line.
 */
function runNodeTest(files, concurrency, { buffered = false, only = [], together = false } = {}) {
  const started = Date.now();
  const tap = join(tapDir, `${runs++}.tap`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        together ? '--test-isolation=none' : `--test-concurrency=${concurrency}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${tap}`,
        ...passThrough,
        ...(only.length > 0 ? [`--test-name-pattern=^(?:${only.map(escapeRegExp).join('|')})$`] : []),
        ...files,
      ],
      { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' },
    );
    const output = [];
    if (buffered) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    child.on('close', (code, signal) => {
      if (buffered) process.stdout.write(Buffer.concat(output));
      resolve({
        code: code ?? (signal ? 1 : 0),
        started,
        ms: Date.now() - started,
        tests: topLevelTests(tap),
        counts: countsOf(tap),
        failures: failuresOf(tap),
      });
    });
  });
}

/** A test's name as a regular expression that matches it alone. */
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const timings = [];
/** Each failed test's name and error, by file, as the final run of that file left them. */
const failures = new Map();
/** The files that failed beside another file and were run again alone, with that first run. */
const retried = [];
const suiteStart = Date.now();
// One Azurite for every e2e file of the run (each keeps its blobs in a container of its own):
// starting one costs a few seconds of CPU, which each file would otherwise pay.
const e2eFiles = loaded.filter((f) => f.startsWith(join('test', 'e2e')));
const azurite = e2eFiles.length > 1 ? await startAzurite() : null;
if (azurite) {
  process.env.PERFGATE_TEST_AZURITE = azurite.url;
  process.on('exit', () => azurite.process.kill('SIGTERM'));
}
const twoLanes = loadLane.length > 0 && beside.length > 0;
/** Whether files run side by side: the two lanes, or beside files alone on several workers. */
const sideBySide = twoLanes || beside.length > 1;
/**
 * Whether this node runs test files together in one process (`--test-isolation=none`, Node 22.8
 * and later): `npm test` runs on node_modules/.bin's Node 24, `node scripts/test.mjs` on the machine's.
 */
const together = process.allowedNodeEnvironmentFlags.has('--test-isolation');
/**
 * A run of unit files under `label`: one process for them all (together), else one file at a
 * time, or side by side on every core when the unit layer runs alone in one run.
 */
async function runUnits(files, label, { buffered, oneAtATime }) {
  const r = await runNodeTest(files, oneAtATime ? 1 : Math.max(2, availableParallelism()), { buffered, together });
  const lane = buffered ? { lane: 'beside', started: r.started } : {};
  timings.push({ file: label, ...lane, ms: r.ms, code: r.code });
  addCounts(r.counts);
  if (r.code !== 0) failures.set(label, r.failures);
}
/**
 * The unit files are queued in runs that the workers share: together, runs of 4 (most take 2–4 s;
 * the few whose files spawn real processes up to 25 s beside the e2e files); one file at a time, runs of 8 (about 10 s). Small runs let the
 * workers share the tail evenly. Alone and not together, they run in one process per core instead.
 */
const unitsQueued = twoLanes || together;
const UNIT_RUN = together ? 4 : 8;
const unitRuns = [];
/**
 * A unit file that says `// unit: slow` on a line of its own (with the reason: it runs tsc builds,
 * a benchmark library's fixed-time loops) takes seconds where the others take milliseconds: its
 * run is queued first, alone, so that it does not start last and hold one worker while the
 * others have nothing left.
 */
const slowUnit = (file) => /^\/\/ unit: slow\b/m.test(readFileSync(file, 'utf8').slice(0, 4000));
const slowUnits = pure.filter(slowUnit);
const quickUnits = pure.filter((f) => !slowUnits.includes(f));
for (const file of unitsQueued ? slowUnits : []) unitRuns.push({ files: [file], label: `unit file ${file.replace(/^test\/unit\//, '')}` });
for (let i = 0; unitsQueued && i < quickUnits.length; i += UNIT_RUN) {
  const files = quickUnits.slice(i, i + UNIT_RUN);
  unitRuns.push({ files, label: `unit files ${i + 1}–${i + files.length} of ${quickUnits.length}` });
}
if (pure.length && !unitsQueued) await runUnits(pure, `${pure.length} unit files (in parallel)`, { buffered: false, oneAtATime: false });
/** Runs one file; with both lanes running, each file's report is printed whole. */
async function runFile(file, name, buffered) {
  const r = await runNodeTest([file], 1, { buffered });
  const timing = { file, lane: name, started: r.started, ms: r.ms, code: r.code, tests: r.tests };
  timings.push(timing);
  // A failure beside the other lane is decided by a run alone, at the end.
  if (r.code !== 0 && sideBySide && name !== 'alone') retried.push({ timing, first: r });
  else {
    addCounts(r.counts);
    if (r.code !== 0) failures.set(file, r.failures);
  }
}
async function runLane(files, name, buffered) {
  for (const file of files) await runFile(file, name, buffered);
}
const besideQueue = [...beside, ...unitRuns];
/** Takes the beside lane's next file (or run of unit files) until the queue is empty. */
async function besideWorker() {
  for (let next = besideQueue.shift(); next !== undefined; next = besideQueue.shift()) {
    if (typeof next === 'string') await runFile(next, 'beside', sideBySide);
    else await runUnits(next.files, next.label, { buffered: true, oneAtATime: true });
  }
}
/**
 * Workers on the beside queue once nothing measures: PERFGATE_TEST_BESIDE_WORKERS, else one more
 * than the cores, as the beside files wait on git, npm, Azurite and their services' starts as much
 * as they compute (the e2e files on 2 cores: 179 s with 2 workers, 153 s with 3, every test passing).
 */
const besideWorkers = Math.max(1, Number(process.env.PERFGATE_TEST_BESIDE_WORKERS) || availableParallelism() + 1);
await Promise.all([
  (async () => {
    await runLane(loadLane, 'load', twoLanes);
    await Promise.all(Array.from({ length: besideWorkers - 1 }, besideWorker));
  })(),
  besideWorker(),
]);
await runLane(alone, 'alone', false);
for (const { timing, first } of retried) {
  const overlaps = (t) => t !== timing && t.lane && t.started < first.started + first.ms && timing.started < t.started + t.ms;
  timing.besides = timings.filter(overlaps).map((t) => t.file);
  // Only the tests that failed (their file's hooks run with them): the others passed beside the
  // neighbour already. A run that left no test named (it died) is run whole.
  // A subtest made inside a test's body runs only with its parent, which a name pattern skips:
  // when fewer tests ran than failed, the whole file runs again.
  let only = [...new Set(first.failures.map((f) => f.name))];
  console.log(`\n${timing.file} failed while ${timing.besides.join(', ') || 'another file'} ran beside it: ${only.length ? `${only.length} failed test${only.length === 1 ? '' : 's'}` : 'the file'} run again, alone`);
  let r = await runNodeTest([timing.file], 1, { only });
  if (only.length > 0 && r.counts.pass + r.counts.fail < only.length) {
    console.log(`${timing.file}: the failed tests did not all run by name: the whole file again, alone`);
    only = [];
    r = await runNodeTest([timing.file], 1);
  }
  timing.alone = { ms: r.ms, code: r.code };
  addCounts(only.length ? { pass: first.counts.pass + r.counts.pass, fail: r.counts.fail, skipped: first.counts.skipped } : r.counts);
  if (r.code !== 0) failures.set(timing.file, r.failures);
}
const total = Date.now() - suiteStart;
const width = Math.max(...timings.map((t) => t.file.length));
console.log('\nwall time per file, slowest first:');
for (const t of [...timings].sort((a, b) => b.ms - a.ms)) {
  const lane = (twoLanes || alone.length > 0) && t.lane ? `  (${t.lane})` : '';
  const outcome = !t.code ? '' : !t.alone ? '  FAILED' : t.alone.code ? '  FAILED, and FAILED alone' : '  failed beside, passed alone';
  console.log(`  ${t.file.padEnd(width)}  ${(t.ms / 1000).toFixed(1).padStart(7)} s${lane}${outcome}`);
}
console.log(`  ${'all'.padEnd(width)}  ${(total / 1000).toFixed(1).padStart(7)} s`);
if (process.env.PERFGATE_TEST_TIMINGS) {
  const at = new Date().toISOString();
  for (const t of timings) appendFileSync(process.env.PERFGATE_TEST_TIMINGS, `${JSON.stringify({ at, ...t })}\n`);
}
rmSync(tapDir, { recursive: true, force: true });
if (azurite && azurite.process.exitCode === null) {
  const exited = new Promise((resolve) => azurite.process.once('exit', resolve));
  azurite.process.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
}
try {
  rmSync(scratch, { recursive: true, force: true });
} catch (e) {
  console.log(`\nthe tests' temporary directory ${scratch} could not be removed whole: ${e.message}`);
}
const passedAlone = retried.filter((r) => r.timing.alone.code === 0);
if (passedAlone.length) {
  console.log('\nfailed beside another file, passed alone (fragile under a neighbour\'s load; their first failures are above):');
  for (const { timing, first } of passedAlone) {
    console.log(`  ${timing.file}: ${first.failures.map((f) => f.name).join('; ')} (beside ${timing.besides.join(', ')})`);
  }
}
for (const [file, list] of failures) {
  for (const failure of list) console.log(`\nFAILED ${file}: ${failure.name}\n${failure.lines.map((l) => `  ${l}`).join('\n')}`);
}
// One closing line for the whole suite: each file's runner printed only its own totals.
console.log(`\n${counts.pass} passed, ${counts.fail} failed, ${counts.skipped} skipped${passedAlone.length ? ` (${passedAlone.length} file${passedAlone.length === 1 ? '' : 's'} passed only alone)` : ''}`);
process.exit(failures.size > 0 ? 1 : 0);
