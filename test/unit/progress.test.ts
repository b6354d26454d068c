import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { TimeLeft, terminalProgress } from '../../src/cli/progress.js';
import type { PerfgateConfig } from '../../src/config/types.js';
import { estimateRun } from '../../src/engine/estimate.js';
import type { ProgressEvent } from '../../src/engine/ports.js';

interface Recording {
  config: PerfgateConfig;
  endMs: number;
  events: { t: number; event: ProgressEvent }[];
}

const recorded = JSON.parse(readFileSync(new URL('../fixtures/progress/example-service-regression.json', import.meta.url), 'utf8')) as Recording;
/**
 * The recording was made before a start pair served every scenario in one turn: each of its two
 * scenarios was warmed the whole 4 s per start pair, 8 slices of warm-up per start pair. The plan's
 * estimate (the prior the time left starts from) is of the schedule it replays: the current
 * schedule with the same 8 slices, 7 for the turn's first scenario and 1 for the other.
 */
const recording: Recording = { ...recorded, config: { ...recorded.config, load: { ...recorded.config.load, warmupMs: 7000 } } };

/** Replays a recording through the terminal progress; every counter or phase line with a time left, at its time. */
function replay(rec: Recording, tty: boolean, ci = false): { lines: string[]; lefts: { t: number; event: ProgressEvent; leftMs: number }[] } {
  let now = 0;
  const written: string[] = [];
  const stream = { isTTY: tty, write: (chunk: string) => written.push(chunk) } as unknown as NodeJS.WriteStream;
  const { progress } = terminalProgress(stream, { quiet: false, estimate: estimateRun(rec.config), config: rec.config, ci, now: () => now });
  const lefts: { t: number; event: ProgressEvent; leftMs: number }[] = [];
  for (const { t, event } of rec.events) {
    now = t;
    const before = written.length;
    progress(event);
    const text = written.slice(before).join('');
    const m = text.match(/~(?:(\d+):)?(\d+):(\d\d) left/);
    if (m) lefts.push({ t, event, leftMs: ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 });
  }
  return { lines: written.join('').split(/[\r\n]+/).filter(Boolean), lefts };
}

/**
 * A recording with the current schedule (bench/record-progress.mjs): the same service and head,
 * stopped by the first look (the drop was large enough for it), so two planned blocks were skipped.
 */
const look1 = JSON.parse(readFileSync(new URL('../fixtures/progress/example-service-look1.json', import.meta.url), 'utf8')) as Recording;

// The first recording is checked through the measurement only: its profile phase profiled base,
// then head, where the phase now profiles both at once, so its profiles took twice what the
// current estimate plans for them.
for (const [name, rec, minLines, throughProfiles] of [
  ['stopped by the look after block 2 (the former schedule, replayed with its estimate), through the measurement', recording, 90, false],
  ['stopped by the look after block 1, through the profiles', look1, 20, true],
] as const) {
  test(`the time left is within 25% of the truth from the first pair on, and drops when a look stops the run early: ${name}`, (ctx) => {
    const { events, endMs } = rec;
    // The look stopped the run: the first phase after the measurement began then.
    const stoppedAt = events.find((e) => e.event.phase === 'profile')!.t;
    // Until then the plan was to measure every planned block, each as long as the last one measured
    // took (boot to stop): that is the truth a forecast made before the look could aim at.
    const starts = events.filter((e) => e.event.phase === 'start');
    const lastBlock = starts.at(-1)!.event.block!;
    const lastBlockStart = starts.find((e) => e.event.block === lastBlock)!.t;
    const skippedMs = (rec.config.load.blocks - lastBlock) * (stoppedAt - lastBlockStart);
    const firstPair = events.find((e) => e.event.phase === 'measure')!.t;
    const { lefts } = replay(rec, true);
    const checked = lefts.filter((l) => l.t >= firstPair && (throughProfiles || l.t < stoppedAt));
    assert.ok(checked.length >= minLines, `a time left on every pair and phase line (${checked.length})`);
    let worst = { error: 0, t: 0, leftMs: 0, truth: 0 };
    for (const { t, leftMs } of checked) {
      const truth = endMs - t + (t < stoppedAt ? skippedMs : 0);
      // A clock in whole seconds cannot be within 25% of a few seconds: 5 s is allowed there.
      const allowed = Math.max(0.25 * truth, 5000);
      const error = Math.abs(leftMs - truth);
      if (error / allowed > worst.error) worst = { error: error / allowed, t, leftMs, truth };
      assert.ok(error <= allowed, `at ${(t / 1000).toFixed(1)} s: ~${(leftMs / 1000).toFixed(0)} s left, truth ${(truth / 1000).toFixed(0)} s`);
    }
    ctx.diagnostic(`worst: ~${(worst.leftMs / 1000).toFixed(0)} s left at ${(worst.t / 1000).toFixed(0)} s, truth ${(worst.truth / 1000).toFixed(0)} s (${(worst.error * 100).toFixed(0)}% of the error allowed)`);
    // after the stop the skipped blocks are gone: the first line after it says about the profiles' time
    const after = lefts.find((l) => l.t >= stoppedAt)!;
    assert.ok(after.leftMs < endMs - after.t + 10_000, `~${after.leftMs / 1000} s left after the stop, ${(endMs - after.t) / 1000} s in truth`);
  });
}

test('in a CI log: one line per block and phase, not one per start or per pair', () => {
  const { lines } = replay(recording, false);
  assert.equal(lines.filter((l) => l.includes('starting')).length, 2, 'one starting line per block measured');
  const measuring = lines.filter((l) => l.includes('measuring'));
  // per block and scenario, the line of its last pair
  assert.deepEqual(
    measuring.map((l) => l.match(/measuring (block \d\/\d · [^·]+?) · pair (\d+)/)!.slice(1).join(' ')),
    ['block 1/3 · GET /hello 24', 'block 1/3 · POST /echo 24', 'block 2/3 · GET /hello 48', 'block 2/3 · POST /echo 48'],
  );
  // CI set on a terminal prints the same lines, never a rewritten one
  const ci = replay(recording, true, true);
  assert.deepEqual(ci.lines, lines);
  // preparing, per block: starting, warming up and measuring each scenario, stopping; 2 profiles, flamegraphs, done
  assert.equal(lines.length, 17, lines.join('\n'));
});

test('the time left drops by the profiles the verdicts left out (profile.when: changed)', () => {
  // both scenarios planned for profiles (the recording's run profiled one)
  const config = { ...recording.config, profile: { ...recording.config.profile!, scenarios: null, when: 'changed' as const } };
  const estimate = estimateRun(config);
  const profileMs = estimate.phases.find((p) => p.phase === 'profile')!.ms;
  assert.match(estimate.phases.find((p) => p.phase === 'profile')!.detail, /at most: a scenario whose gated verdicts are all unchanged or no regression is not profiled/);
  const stoppedAt = recording.events.find((e) => e.event.phase === 'profile')!.t;
  const leftAtProfiles = (skipOne: boolean) => {
    const left = new TimeLeft(estimate, config);
    for (const { t, event } of recording.events.filter((e) => e.t < stoppedAt)) left.observe(event, t);
    // the engine says how many of the 2 planned scenarios it profiles
    if (skipOne) left.observe({ phase: 'profile', pair: 0, pairs: 1, message: 'profiling 1 of 2 scenarios' }, stoppedAt);
    left.observe({ phase: 'profile', side: 'base', scenario: 'GET /hello' }, stoppedAt);
    return left.leftMs(stoppedAt)!;
  };
  const all = leftAtProfiles(false);
  const one = leftAtProfiles(true);
  assert.ok(Math.abs(all - one - profileMs / 2) < 1, `one of two scenarios profiled: ${all} → ${one} ms left (the phase: ${profileMs} ms)`);
});

test("a failing scenario's third arm is in the time left once the engine announces it, counted down by its pairs; a passing run's total has none", () => {
  const config = { ...look1.config, profile: { ...look1.config.profile!, confirm: true } };
  const estimate = estimateRun(config);
  const armMs = estimate.confirmArmMs;
  assert.ok(armMs > 20_000, `one arm is a block of 24 pairs: ${armMs} ms`);
  const done = look1.events.find((e) => e.event.phase === 'done')!.t;
  const recorded = look1.events.filter((e) => e.event.phase !== 'done');
  // The arm as the engine runs it, 10% slower than planned: announced, reverted and built, then
  // one block of the first block's 24 pairs of GET /hello with the HTTP phase's own events.
  const took = armMs * 1.1;
  const at = (share: number) => Math.round(done + share * took);
  const arm: { t: number; event: ProgressEvent }[] = [
    { t: at(0), event: { phase: 'confirm', pair: 0, pairs: 1 } },
    { t: at(0), event: { phase: 'confirm', scenario: 'GET /hello', pair: 1, pairs: 2, message: 'resolvePermissions' } },
    { t: at(0.05), event: { phase: 'start', side: 'base', block: 1, blocks: 1 } },
    { t: at(0.15), event: { phase: 'warmup', scenario: 'GET /hello', block: 1, blocks: 1 } },
    ...Array.from({ length: 24 }, (_, i) => ({ t: at(0.3 + (0.7 * (i + 1)) / 24), event: { phase: 'measure', scenario: 'GET /hello', block: 1, blocks: 1, pair: i + 1, pairs: 24 } as ProgressEvent })),
    { t: at(1), event: { phase: 'done' } },
  ];
  const failing: Recording = { config, endMs: at(1), events: [...recorded, ...arm] };
  const { lefts, lines } = replay(failing, false);
  const during = lefts.filter((l) => l.t >= done);
  assert.ok(during.length >= 3, `the arm's lines carry a time left: ${lines.slice(-6).join('\n')}`);
  for (const { t, leftMs, event } of during) {
    const truth = failing.endMs - t;
    assert.ok(Math.abs(leftMs - truth) <= Math.max(0.25 * truth, 5000), `${event.phase} at ${t} ms: ~${leftMs} ms left, truth ${truth} ms`);
  }
  assert.ok(lines.some((l) => /GET \/hello: reverting this PR's change to resolvePermissions \(\d+:\d\d elapsed, ~\d+:\d\d left\)/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /measuring GET \/hello · head against resolvePermissions reverted · pair 24\/24/.test(l)), lines.join('\n'));
  // The next culprit's arm, when the first explained too little, is one arm more.
  const left = new TimeLeft(estimate, config);
  for (const { t, event } of failing.events.filter((e) => e.t <= at(0))) left.observe(event, t);
  const before = left.leftMs(at(0))!;
  left.observe({ phase: 'confirm', scenario: 'GET /hello', pair: 2, pairs: 2, message: 'render' }, at(0));
  assert.equal(left.leftMs(at(0))! - before, armMs);
  // A further block of an arm whose answer is unclear is one block more.
  left.observe({ phase: 'confirm', scenario: 'GET /hello', pair: 2, pairs: 2, block: 2, blocks: 3, message: 'render' }, at(0));
  assert.equal(left.leftMs(at(0))! - before, armMs + estimate.confirmBlockMs);
  // A passing run announces no arm: after its profiles, nothing of the arm's time is left.
  const passing = new TimeLeft(estimate, config);
  for (const { t, event } of recorded) passing.observe(event, t);
  assert.ok(passing.leftMs(done)! < 5000, `${passing.leftMs(done)} ms left after the profiles of a passing run`);
});
