import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRandom } from '../../src/stats/random.js';
import type { Results } from '../../src/results/types.js';
import type { StoredArtifact } from './artifact-service.js';
import type { FakePlatform } from './github-runner.js';
import { resultsFromPairs } from './results.js';

/** Commits of the made-up history, and where it shifts: a code change, then a kernel update. */
export const HISTORY_COMMITS = 36;
export const CODE_SHIFT_AT = 12;
export const KERNEL_SHIFT_AT = 24;

/** The head throughput of commit `i`, req/s, with ±1% noise: 1000, then 10% slower, then 15% faster than that. */
function throughputAt(i: number, rand: () => number): number {
  const level = i < CODE_SHIFT_AT ? 1000 : i < KERNEL_SHIFT_AT ? 900 : 1035;
  return level * (1 + (rand() - 0.5) * 0.02);
}

function sha(i: number): string {
  return (i + 1).toString(16).padStart(2, '0').repeat(20);
}

/** The runs of main, one per commit, in commit order. */
export function historyRuns(): Results[] {
  const rand = createRandom(29);
  return Array.from({ length: HISTORY_COMMITS }, (_, i) => {
    const head = throughputAt(i, rand);
    const results = resultsFromPairs(Array.from({ length: 8 }, (): [number, number] => [head * (1 + (rand() - 0.5) * 0.01), head * (1 + (rand() - 0.5) * 0.01)]));
    results.startedAt = new Date(Date.UTC(2026, 9, 1) + i * 86_400_000).toISOString();
    results.sides.head.sha = sha(i);
    results.sides.base.sha = sha(Math.max(0, i - 1));
    const kernel = i < KERNEL_SHIFT_AT ? '6.5.0-1025-azure' : '6.8.0-1017-azure';
    results.environment = { ...results.environment, os: `linux ${kernel}`, kernel, osImage: 'ubuntu24 20261001.1', v8Version: '13.6.233.10' };
    results.github = { repository: 'acme/shop', pullRequest: null, headSha: sha(i), baseSha: sha(Math.max(0, i - 1)), runId: String(1000 + i), event: 'push' };
    return results;
  });
}

/** A directory as a download of the runs' artifacts: run-<n>/results.json, plus the files given (path → text). */
export function writeHistoryDir(runs: Results[], extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-history-'));
  runs.forEach((r, i) => {
    mkdirSync(join(dir, `run-${String(i).padStart(3, '0')}`));
    writeFileSync(join(dir, `run-${String(i).padStart(3, '0')}`, 'results.json'), JSON.stringify(r));
  });
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A run of a workflow on GitHub that uploaded one results artifact, for `history --github`. */
export interface HistoryRunSpec {
  runId: number;
  results: Results;
  /** Default push. */
  event?: string;
  /** owner/name whose code the run checked out (default acme/shop; another makes it a fork's). */
  headRepo?: string;
  /** Default main. */
  headBranch?: string;
  /** Default: the results' head commit. */
  headSha?: string;
  /** Default perfgate-default (the gate's results artifact). */
  artifactName?: string;
  createdAt?: string;
}

/** Registers the run with the fake API and uploads its artifact with the toolkit, results.json inside as a measuring run zips it. */
export async function stageHistoryRun(platform: FakePlatform, spec: HistoryRunSpec): Promise<StoredArtifact> {
  platform.github.runs.set(spec.runId, {
    event: spec.event ?? 'push',
    headSha: spec.headSha ?? spec.results.sides.head.sha,
    headBranch: spec.headBranch ?? 'main',
    headRepo: spec.headRepo ?? 'acme/shop',
    workflow: 'perf.yml',
    createdAt: spec.createdAt ?? spec.results.startedAt,
  });
  return platform.artifacts.upload(spec.runId, spec.artifactName ?? 'perfgate-default', { 'results.json': JSON.stringify(spec.results, null, 2), 'report.md': '# report\n' });
}
