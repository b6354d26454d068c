/**
 * The recorded profiles in test/fixtures/profiles (see record.mjs there): the payload test
 * service, base and head, profiled under load the way the engine does it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeCallTree } from '../../src/profile/aggregate.js';
import { buildCallTree, type CallTree } from '../../src/profile/call-tree.js';
import { type CpuProfile, parseCpuProfile, type SampleWindow } from '../../src/profile/cpuprofile.js';
import { type CoveredFunction, type FunctionRanges, rangesFromOffsets } from '../../src/profile/inlining.js';
import { boundSummaries } from '../../src/profile/diff.js';
import type { ProfileSummary, ScenarioProfile, SideProfile } from '../../src/results/types.js';
import { readFunctionRanges } from '../../src/engine/phases/profile.js';
import { FIXTURES } from './repo.js';

export const PROFILES = join(FIXTURES, 'profiles');
/** Where the recorded service lived (record.mjs rewrites its real directory to this). */
export const RECORDED_ROOT = '/repo';

export type FixtureSide = 'base' | 'head';

export function fixtureProfile(side: FixtureSide): CpuProfile {
  const file = join(PROFILES, `payload-${side}.cpuprofile`);
  return parseCpuProfile(readFileSync(file, 'utf8'), file);
}

/** The load window the profile was recorded under (µs, the profile's clock). */
export function fixtureWindow(side: FixtureSide): SampleWindow {
  const { startUs, endUs } = JSON.parse(readFileSync(join(PROFILES, `payload-${side}.window.json`), 'utf8'));
  return { startUs, endUs };
}

/** The recorded function ranges, resolved against the fixture sources (as the engine does against the tree). */
export function fixtureRanges(side: FixtureSide): FunctionRanges {
  const scripts = JSON.parse(readFileSync(join(PROFILES, `payload-${side}.functions.json`), 'utf8')) as Record<string, CoveredFunction[]>;
  const sources: Record<string, string> = {
    [`file://${RECORDED_ROOT}/server.js`]: join(FIXTURES, 'services', 'payload-server.js'),
    [`file://${RECORDED_ROOT}/src/payload.js`]: join(FIXTURES, 'services', `payload-${side}.js`),
  };
  const ranges: FunctionRanges = new Map();
  for (const [url, functions] of Object.entries(scripts)) {
    const source = sources[url];
    if (source) ranges.set(url, rangesFromOffsets(readFileSync(source, 'utf8'), functions));
  }
  return ranges;
}

export function fixtureTree(side: FixtureSide, options: { ranges?: boolean; window?: boolean } = {}): CallTree {
  return buildCallTree([fixtureProfile(side)], {
    root: RECORDED_ROOT,
    ...(options.window !== false && { window: fixtureWindow(side) }),
    ...(options.ranges !== false && { ranges: fixtureRanges(side) }),
  });
}

export function fixtureSummary(side: FixtureSide): ProfileSummary {
  return summarizeCallTree(fixtureTree(side));
}

/**
 * The recorded profiles as the engine stores them for GET /hello: bounded tables, about the same
 * writev time per request on both sides as in the run they come from, and the flamegraphs'
 * files named.
 */
export function fixtureScenarioProfile(): ScenarioProfile {
  const bounded = boundSummaries(fixtureSummary('base'), fixtureSummary('head'), 25);
  const side = (summary: ProfileSummary, name: FixtureSide): SideProfile => ({
    ...summary,
    profiler: 'cpu-prof',
    nodeVersion: 'v24.21.0',
    requests: name === 'base' ? 20_000 : 18_200,
    windowMs: 2000,
    wallMs: 4100,
    processes: [{ file: `profiles/get-hello/${name}/CPU.1.cpuprofile`, samples: summary.samples }],
    merged: `profiles/get-hello/${name}.cpuprofile`,
    inlinedSamples: 0,
  });
  return {
    scenario: 'GET /hello',
    durationMs: 2000,
    intervalUs: 1000,
    sides: { base: side(bounded.base, 'base'), head: side(bounded.head, 'head') },
    files: { head: 'flamegraph-get-hello-head.html', base: 'flamegraph-get-hello-base.html', diff: 'flamegraph-get-hello-diff.html' },
    renderMs: 1900,
  };
}

/** 1-based line of the first line of a fixture service file containing `text`. */
export function lineOf(file: string, text: string): number {
  const lines = readFileSync(join(FIXTURES, 'services', file), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

/** The CPU profiles a profiled run wrote into `dir` (the preload's and --cpu-prof's), with the function ranges of its FUNCTIONS files, as the engine reads them. */
export function readProfileDir(dir: string): { profiles: CpuProfile[]; ranges: FunctionRanges } {
  const names = readdirSync(dir);
  const profiles = names.filter((n) => n.endsWith('.cpuprofile')).map((n) => parseCpuProfile(readFileSync(join(dir, n), 'utf8'), n));
  const ranges = readFunctionRanges(
    dir,
    names.filter((n) => n.startsWith('FUNCTIONS.')),
    profiles,
  );
  return { profiles, ranges };
}
