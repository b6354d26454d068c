import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import stringWidth from 'string-width';
import { DEFAULT_GATE, DEFAULT_HEAP_GROWTH } from '../../src/config/defaults.js';
import type { MetricId as AnyMetricId, PerfgateConfig } from '../../src/config/types.js';

/** The closed-loop metrics these reports show (p99.9 is recorded by fixed-rate scenarios only). */
type MetricId = Exclude<AnyMetricId, 'latency_p999' | 'errors'>;
import { type MarkdownOptions, renderMarkdown, renderTerminal, type TerminalOptions } from '../../src/report/index.js';
import type { MetricComparison, Pair, Results, RunWarning, Side, Slice } from '../../src/results/types.js';
import { METRIC_DEFINITIONS } from '../../src/assess/metrics.js';
import { hasFailures, pairNoise, tallyRequests } from '../../src/assess/samples.js';
import { collectSubjects } from '../../src/assess/subjects.js';
import type { Assessment } from '../../src/assess/types.js';
import { formatDiff, matchSnapshot } from '../helpers/snapshot.js';

/* ---------- fixtures, built by hand so every number in a snapshot can be traced ---------- */

const HOSTILE = '<img src=x onerror=alert(1)> | @org/team `code`';
const ZWJ = '\u200D';
const ANSI = /\x1b\[/;

/** Per-slice wobble, so per-pair changes have a spread (head uses a shifted copy). */
const WOBBLE = [0, 0.031, -0.022, 0.012, -0.041, 0.018, 0.007, -0.013];

interface SliceSpec {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  cpuUsPerRequest: number;
}

function slice(side: Side, spec: SliceSpec, wobble: number, extra: Partial<Slice> = {}): Slice {
  const rps = Math.round(spec.rps * (1 + wobble));
  return {
    side,
    startedAt: '2025-01-01T12:00:00.000Z',
    durationMs: 1000,
    requests: rps,
    rps,
    latencyUs: {
      p50: Math.round(spec.p50 * (1 - wobble)),
      p90: Math.round(spec.p90 * (1 - wobble)),
      p99: Math.round(spec.p99 * (1 - wobble)),
      max: spec.p99 * 3,
      mean: spec.p50 * 1.1,
    },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    cpuSeconds: (rps * spec.cpuUsPerRequest * (1 + wobble / 2)) / 1e6,
    ...extra,
  };
}

function pairs(count: number, base: SliceSpec, head: SliceSpec, headExtra: Partial<Slice> = {}): Pair[] {
  return Array.from({ length: count }, (_, index) => ({
    block: index < count / 2 ? 0 : 1,
    start: index,
    index,
    order: (index % 2 === 0 ? ['base', 'head'] : ['head', 'base']) as [Side, Side],
    base: slice('base', base, WOBBLE[index % WOBBLE.length]!),
    head: slice('head', head, WOBBLE[(index + 3) % WOBBLE.length]!, index === 2 ? headExtra : {}),
  }));
}

const HELLO: SliceSpec = { rps: 28_400, p50: 310, p90: 620, p99: 1210, cpuUsPerRequest: 35 };
const ECHO: SliceSpec = { rps: 9_100, p50: 980, p90: 1650, p99: 2900, cpuUsPerRequest: 88 };

const CONFIG: PerfgateConfig = {
  service: {
    install: null,
    build: null,
    setup: null,
    start: 'node server.js',
    cwd: '.',
    env: { NODE_ENV: 'production' },
    ready: { path: '/health', timeoutMs: 30_000 },
  },
  scenarios: [
    { name: 'GET /hello', method: 'GET', path: '/hello', headers: {}, body: null, connections: 10, pipelining: 1, rate: null, expect: null },
    { name: 'POST /echo', method: 'POST', path: '/echo', headers: {}, body: '{}', connections: 10, pipelining: 1, rate: null, expect: null },
  ],
  load: { sliceMs: 1000, pairs: 6, blocks: 2, instances: 3, warmupMs: 5000, earlyStop: false, mode: 'alternate', pin: 'off' },
  benchmarks: null,
  // The defaults for every rule but the five this report is about.
  gate: {
    ...DEFAULT_GATE,
    heap_growth: DEFAULT_HEAP_GROWTH,
    throughput: { limit: 0.05, gated: true },
    latency_p50: { limit: 0.1, gated: false },
    latency_p90: { limit: 0.1, gated: false },
    latency_p99: { limit: 0.15, gated: false },
    cpu_per_request: { limit: 0.1, gated: false },
  },
  alpha: 0.05,
  seed: 42,
  profile: { enabled: false, durationMs: 0, intervalUs: 0, scenarios: null, when: 'always', confirm: false },
};

function makeResults(overrides: Partial<Results> = {}): Results {
  return {
    schema: 'perfgate/results',
    version: 1,
    tool: { name: 'perfgate', version: '0.1.0' },
    startedAt: '2025-01-01T12:00:00.000Z',
    finishedAt: '2025-01-01T12:03:00.000Z',
    status: 'complete',
    error: null,
    seed: 42,
    config: CONFIG,
    environment: {
      cpuModel: 'AMD EPYC 7763 64-Core Processor',
      cpus: 2,
      nodeVersion: 'v24.11.1',
      os: 'Linux 6.8.0-1017-azure',
      arch: 'x64',
      totalMemoryMb: 7940,
      nodeFlags: [],
    },
    sides: {
      base: { ref: 'main', sha: 'abc1234def567890abc1234def567890abc12345', dirty: false },
      head: { ref: 'my-branch', sha: 'def5678abc123456def5678abc123456def56789', dirty: false },
    },
    scenarios: [
      { name: 'GET /hello', method: 'GET', path: '/hello', pairs: pairs(6, HELLO, { ...HELLO, rps: 24_930, p99: 1440 }) },
      {
        name: 'POST /echo',
        method: 'POST',
        path: '/echo',
        pairs: pairs(6, ECHO, { ...ECHO, cpuUsPerRequest: 72 }, { non2xx: 3 }),
      },
    ],
    warnings: [],
    ...overrides,
  };
}

const METRIC_ORDER: MetricId[] = ['throughput', 'latency_p50', 'latency_p90', 'latency_p99', 'cpu_per_request'];

function comparison(scenario: string, metric: MetricId, fields: Partial<MetricComparison>): MetricComparison {
  const rule = CONFIG.gate[metric];
  return {
    metric,
    scenario,
    gated: rule.gated,
    limit: rule.limit,
    n: 6,
    baseMedian: 1000,
    headMedian: 1000,
    change: 0.004,
    ciLow: -0.021,
    ciHigh: 0.027,
    p: 0.84,
    pAdjusted: 0.84,
    detectable: 0.031,
    verdict: 'unchanged',
    higherIsBetter: metric === 'throughput',
    noise: { pairs: null, starts: null },
    ...fields,
  };
}

/** Every metric of a scenario unchanged at the given medians, with some overridden. */
function scenarioComparisons(
  scenario: string,
  medians: Record<MetricId, number>,
  overrides: Partial<Record<MetricId, Partial<MetricComparison>>> = {},
): MetricComparison[] {
  // Listed informational-first on purpose: the report must put gated metrics first itself.
  return [...METRIC_ORDER].reverse().map((metric) =>
    comparison(scenario, metric, { baseMedian: medians[metric], headMedian: medians[metric], ...overrides[metric] }),
  );
}

/** A metric's per-pair noise as the gate derives it from the results' pairs. */
function noiseOf(results: Results, c: MetricComparison): MetricComparison['noise'] {
  const definition = METRIC_DEFINITIONS.find((d) => d.id === c.metric)!;
  const pairs = results.scenarios.find((s) => s.name === c.scenario)?.pairs ?? [];
  return { pairs: pairNoise(pairs.map((p) => definition.value(p.base)), pairs.map((p) => definition.value(p.head))), starts: null };
}

/**
 * The hand-made verdicts, with what assessResults would derive from the same results besides:
 * the per-pair noise (no per-start changes: that column says n/a) and the failed requests.
 */
function makeAnalysis(results: Results, verdicts: MetricComparison[], warnings: RunWarning[] = []): Assessment {
  const comparisons = verdicts.map((c) => ({ ...c, noise: noiseOf(results, c) }));
  const failing = comparisons.filter((c) => c.gated && c.verdict === 'regression');
  return {
    all: comparisons.map((comparison) => ({ kind: 'http', subject: { type: 'scenario', scenario: comparison.scenario }, comparison })),
    subjects: collectSubjects(results, {}),
    comparisons,
    decision: failing.length > 0 ? 'fail' : 'pass',
    regressions: comparisons.filter((c) => c.verdict === 'regression').length,
    improvements: comparisons.filter((c) => c.verdict === 'improvement').length,
    failing,
    warnings,
    failedRequests: tallyRequests(results).filter(hasFailures),
    earlyStop: null,
  };
}

const HELLO_MEDIANS: Record<MetricId, number> = {
  throughput: 28_400,
  latency_p50: 310,
  latency_p90: 620,
  latency_p99: 1210,
  cpu_per_request: 35,
};
const ECHO_MEDIANS: Record<MetricId, number> = {
  throughput: 9_100,
  latency_p50: 980,
  latency_p90: 1650,
  latency_p99: 2900,
  cpu_per_request: 88,
};

/** A gated throughput regression, an informational latency regression, an improvement. */
function failingRun(): { results: Results; analysis: Assessment } {
  const results = makeResults();
  const analysis = makeAnalysis(results, [
    ...scenarioComparisons('GET /hello', HELLO_MEDIANS, {
      throughput: {
        headMedian: 24_930,
        change: -0.1224,
        ciLow: -0.14,
        ciHigh: -0.101,
        p: 0.0021,
        pAdjusted: 0.0042,
        verdict: 'regression',
      },
      latency_p99: { headMedian: 1440, change: 0.19, ciLow: 0.11, ciHigh: 0.26, p: 0.003, pAdjusted: 0.003, verdict: 'regression' },
    }),
    ...scenarioComparisons('POST /echo', ECHO_MEDIANS, {
      cpu_per_request: { headMedian: 72, change: -0.182, ciLow: -0.205, ciHigh: -0.161, p: 0.001, pAdjusted: 0.001, verdict: 'improvement' },
      latency_p90: { change: 0.061, ciLow: -0.012, ciHigh: 0.138, p: 0.21, pAdjusted: 0.21, detectable: 0.12, verdict: 'inconclusive' },
    }),
  ]);
  return { results, analysis };
}

function passingRun(): { results: Results; analysis: Assessment } {
  const results = makeResults({
    scenarios: [
      { name: 'GET /hello', method: 'GET', path: '/hello', pairs: pairs(6, HELLO, HELLO) },
      { name: 'POST /echo', method: 'POST', path: '/echo', pairs: pairs(6, ECHO, ECHO) },
    ],
    sides: {
      base: { ref: 'main', sha: 'abc1234def567890abc1234def567890abc12345', dirty: false },
      head: { ref: 'work tree', sha: 'abc1234def567890abc1234def567890abc12345', dirty: true },
    },
  });
  const analysis = makeAnalysis(results, [
    ...scenarioComparisons('GET /hello', HELLO_MEDIANS),
    ...scenarioComparisons('POST /echo', ECHO_MEDIANS),
  ]);
  return { results, analysis };
}

/** Stopped by an error in block 2: fewer pairs than planned, and a warning. */
function incompleteRun(): { results: Results; analysis: Assessment } {
  const results = makeResults({
    status: 'failed',
    finishedAt: null,
    error: 'head service exited with code 1 during block 2\n    at Service.wait (src/engine/service.ts:88)',
    scenarios: [
      { name: 'GET /hello', method: 'GET', path: '/hello', pairs: pairs(4, HELLO, HELLO) },
      { name: 'POST /echo', method: 'POST', path: '/echo', pairs: pairs(3, ECHO, ECHO) },
    ],
  });
  const warning: RunWarning = {
    code: 'few-pairs',
    scenario: 'POST /echo',
    message: 'Only 3 pairs for POST /echo: too few for a reliable verdict (use at least 10; 60 is the default).',
  };
  const inconclusive: Partial<MetricComparison> = { ciLow: -0.09, ciHigh: 0.07, p: 0.5, pAdjusted: 0.75, detectable: 0.11, verdict: 'inconclusive' };
  const analysis = makeAnalysis(
    results,
    [
      ...scenarioComparisons('GET /hello', HELLO_MEDIANS, { throughput: inconclusive }).map((c) => ({ ...c, n: 4 })),
      ...scenarioComparisons('POST /echo', ECHO_MEDIANS, { throughput: inconclusive }).map((c) => ({ ...c, n: 3 })),
    ],
    [warning],
  );
  return { results, analysis };
}

/** User-controlled text everywhere it can appear. */
function hostileRun(): { results: Results; analysis: Assessment } {
  const results = makeResults({
    sides: {
      base: { ref: 'main', sha: 'abc1234def567890abc1234def567890abc12345', dirty: false },
      head: { ref: 'feat/<b>x</b>|@bob', sha: 'def5678abc123456def5678abc123456def56789', dirty: false },
    },
    scenarios: [{ name: HOSTILE, method: 'GET', path: '/x', pairs: pairs(6, HELLO, { ...HELLO, rps: 24_930 }, { errors: 2 }) }],
  });
  const analysis = makeAnalysis(
    results,
    scenarioComparisons(HOSTILE, HELLO_MEDIANS, {
      throughput: { headMedian: 24_930, change: -0.1224, ciLow: -0.14, ciHigh: -0.101, pAdjusted: 0.004, verdict: 'regression' },
    }),
    [{ code: 'non-2xx', scenario: HOSTILE, message: 'head answered <script>x</script> to @everyone\nsecond line' }],
  );
  return { results, analysis };
}

/** The table rows of a markdown body (lines starting with "|" after the header). */
/** The rows of the full verdict table, the last one: the table above the fold shows only what moved. */
function tableRows(markdown: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.map((l) => l.startsWith('| scenario | metric | base (median) |')).lastIndexOf(true);
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start + 2, end);
}

/** Cell separators GitHub would split on: "|" not escaped by a backslash. */
function countPipes(row: string): number {
  return row.match(/(?<!\\)\|/g)?.length ?? 0;
}

/* ---------- snapshots ---------- */

interface SnapshotCase {
  build: () => { results: Results; analysis: Assessment };
  markdown?: MarkdownOptions;
  terminal?: TerminalOptions;
}

const SNAPSHOT_CASES: Record<string, SnapshotCase> = {
  failing: { build: failingRun, markdown: { repositoryUrl: 'https://github.com/acme/shop' } },
  passing: { build: passingRun, terminal: { fullReport: 'perfgate report /tmp/perfgate-run/results.json --full' } },
  incomplete: { build: incompleteRun },
  hostile: { build: hostileRun, markdown: { title: 'perf @org/team' }, terminal: { width: 80 } },
};

describe('report snapshots', () => {
  for (const [name, { build, markdown, terminal }] of Object.entries(SNAPSHOT_CASES)) {
    it(`${name} run: markdown`, () => {
      const { results, analysis } = build();
      matchSnapshot(`report-${name}.md`, renderMarkdown(results, analysis, markdown));
    });

    it(`${name} run: terminal`, () => {
      const { results, analysis } = build();
      matchSnapshot(`report-${name}.terminal`, renderTerminal(results, analysis, terminal));
    });
  }
});

/* ---------- behaviour ---------- */

describe('renderMarkdown', () => {
  it('answers first: the decision and the worst gated change with its limit; the counts under it', () => {
    const { results, analysis } = failingRun();
    const [heading, , counts] = renderMarkdown(results, analysis).split('\n');
    assert.equal(heading, '## perfgate: ❌ failing: GET /hello throughput −12.2% (limit 5%)');
    // the inconclusive row is an ungated one: the counts say so, so no one looks for it in the gate
    assert.equal(counts, '2 regressions (1 gated) · 1 improvement · 6 unchanged · 1 inconclusive (none gated)');
  });

  it('says passing when nothing regressed', () => {
    const { results, analysis } = passingRun();
    const markdown = renderMarkdown(results, analysis);
    assert.match(markdown.split('\n')[0]!, /^## perfgate: ✅ passing$/);
    assert.match(markdown.split('\n')[2]!, /^0 regressions · 0 improvements · 10 unchanged$/);
    assert.match(markdown, /head work tree@\u200Dabc1234 \(uncommitted changes\)/);
  });

  it('nothing changed: one line says so, the tables fold away, at most 12 visible lines; a failing run keeps its table in view', () => {
    const visible = (markdown: string) => markdown.replace(/<details>[\s\S]*?<\/details>/g, '').split('\n').filter((l) => l.trim() !== '');
    const quiet = renderMarkdown(passingRun().results, passingRun().analysis);
    assert.ok(visible(quiet).length <= 12, visible(quiet).join('\n'));
    assert.match(visible(quiet).join('\n'), /\*\*Nothing changed beyond its limit:\*\* all 2 gated metrics are unchanged \(GET \/hello: throughput \+0\.4% /);
    // the chart folds away with the table, first inside the fold
    assert.match(quiet, /<details><summary>Every metric<\/summary>\n\n```mermaid\n[\s\S]*?\n```\n\n<sub>Each bar [^\n]*<\/sub>\n\n\| scenario \| metric \|/);
    const failing = renderMarkdown(failingRun().results, failingRun().analysis);
    assert.ok(!failing.includes('Nothing changed'));
    assert.ok(visible(failing).some((l) => l.startsWith('| scenario | metric |')), 'the verdict table is in view');
  });

  it('links the base and head shas to their commits when the repository is known, and only then', () => {
    const { results, analysis } = failingRun();
    const line = (options: MarkdownOptions) => renderMarkdown(results, analysis, options).split('\n').find((l) => l.startsWith('base '))!;
    assert.equal(
      line({ repositoryUrl: 'https://github.example/acme/shop/' }).split(' · ')[0],
      `base main@${ZWJ}[abc1234](https://github.example/acme/shop/commit/abc1234def567890abc1234def567890abc12345) → head my-branch@${ZWJ}[def5678](https://github.example/acme/shop/commit/def5678abc123456def5678abc123456def56789)`,
    );
    assert.match(line({}), new RegExp(`^base main@${ZWJ}abc1234 → head my-branch@${ZWJ}def5678 · `));
    // the action records the repository in results.json: a later `perfgate report` links too
    const recorded = { ...results, github: { repository: 'acme/shop', pullRequest: 7, headSha: null, baseSha: null, runId: '1', event: 'pull_request' } };
    assert.match(renderMarkdown(recorded, analysis), /head my-branch@\u200D\[def5678\]\(https:\/\/github\.com\/acme\/shop\/commit\/def5678abc/);
    // a work tree with uncommitted changes is no commit: its sha stays text
    const { results: dirty, analysis: clean } = passingRun();
    assert.match(
      renderMarkdown(dirty, clean, { repositoryUrl: 'https://github.com/acme/shop' }),
      new RegExp(`^base main@${ZWJ}\\[abc1234\\]\\(https://github\\.com/acme/shop/commit/abc1234def[0-9a-f]+\\) → head work tree@${ZWJ}abc1234 \\(uncommitted changes\\) · `, 'm'),
    );
    // a ref the PR named cannot turn the sha into a mention or break the link
    const hostile = hostileRun();
    const text = renderMarkdown(hostile.results, hostile.analysis, { repositoryUrl: 'https://github.com/acme/shop' });
    assert.match(text, new RegExp(`head feat/&lt;b&gt;x&lt;/b&gt;&#124;@${ZWJ}bob@${ZWJ}\\[def5678\\]\\(https://github\\.com/acme/shop/commit/def5678abc123456def5678abc123456def56789\\)`));
  });

  it('uses the title option', () => {
    const { results, analysis } = passingRun();
    assert.match(renderMarkdown(results, analysis, { title: 'api perf' }), /^## api perf: /);
  });

  it('names every failing limit once', () => {
    const { results, analysis } = failingRun();
    // The p99 regression made gated, and a second throughput regression in the other scenario.
    const both = makeAnalysis(
      results,
      analysis.comparisons.map((c) => {
        if (c.metric === 'latency_p99' && c.verdict === 'regression') return { ...c, gated: true };
        if (c.metric === 'throughput' && c.scenario === 'POST /echo') return { ...c, verdict: 'regression' as const };
        return c;
      }),
    );
    assert.match(renderMarkdown(results, both), /❌ failing: GET \/hello throughput −12\.2% \(limit 5%\) \(and 2 more gated regressions\)/);
  });

  it('marks gated and informational regressions differently', () => {
    const { results, analysis } = failingRun();
    const rows = tableRows(renderMarkdown(results, analysis));
    assert.match(rows.find((r) => r.includes('**throughput**'))!, /❌ regression \|$/);
    assert.match(rows.find((r) => r.includes('latency p99'))!, /⚠️ regression \|$/);
    assert.match(rows.find((r) => r.includes('CPU / request') && r.includes('72 µs'))!, /✅ improvement \|$/);
    assert.match(rows.find((r) => r.includes('latency p90') && r.includes('❔'))!, /❔ inconclusive \|$/);
  });

  it('puts gated metrics first within each scenario, scenarios in run order', () => {
    const { results, analysis } = failingRun();
    const rows = tableRows(renderMarkdown(results, analysis));
    assert.equal(rows.length, 10);
    assert.match(rows[0]!, /^\| GET \/hello \| \*\*throughput\*\* \| 28\.4k\/s \| 24\.9k\/s \| −12\.2% \(−14\.0 … −10\.1\) \|/);
    assert.match(rows[1]!, /^\| {2}\| latency p50 \|/);
    assert.match(rows[5]!, /^\| POST \/echo \| \*\*throughput\*\* \|/);
  });

  it('shows the noise band the analysis carries and the detectable change beside the limit', () => {
    const { results, analysis } = failingRun();
    const markdown = renderMarkdown(results, analysis);
    const noiseRow = markdown.split('\n').find((l) => l.startsWith('| GET /hello | **throughput** | ('))!;
    // a hand-made analysis has no per-start changes: that column says n/a
    assert.match(noiseRow, /^\| GET \/hello \| \*\*throughput\*\* \| \(−1[0-9]\.\d … −[0-9]+\.\d\) \| n\/a \| 3\.1% \| 5% \| 6 \|$/);
  });

  it('lists failed requests per side', () => {
    const { results, analysis } = failingRun();
    assert.match(renderMarkdown(results, analysis), /\| POST \/echo \| head \| [\d,]+ \| 3 \| 0 \| 0 \|/);
  });

  it('says prominently that an incomplete run is incomplete, with the error', () => {
    const { results, analysis } = incompleteRun();
    const lines = renderMarkdown(results, analysis).split('\n');
    assert.match(lines[0]!, /⚠️ incomplete run$/);
    assert.equal(
      lines[4],
      '> ⚠️ **Incomplete run:** the run failed: head service exited with code 1 during block 2 at Service.wait (src/engine/service.ts:88). The verdicts use the 3–4 of 6 pairs measured so far.',
    );
  });

  it('renders hostile names inert', () => {
    const { results, analysis } = hostileRun();
    const markdown = renderMarkdown(results, analysis, { title: 'perf @org/team' });
    assert.doesNotMatch(markdown, /<img|<script|<b>/);
    assert.doesNotMatch(markdown, /@(?!\u200D)/, 'every @ is followed by a zero-width joiner');
    // the only backticks are the chart's fences, and in the chart the name's <, @ and ` are Mermaid entities
    assert.doesNotMatch(markdown.replace(/^```(?:mermaid)?$/gm, ''), /`/);
    assert.match(markdown, /x-axis \["#60;img src=x onerror=alert\(1\)> …code#96; ❌", "limit ±5%"\]/);
    const rows = tableRows(markdown);
    for (const row of rows) assert.equal(countPipes(row), 7, `one row, six cells: ${row}`);
    assert.ok(
      rows[0]!.startsWith(`| &lt;img src=x onerror=alert(1)&gt; &#124; @${ZWJ}org/team &#96;code&#96; | **throughput** |`),
      rows[0],
    );
    assert.match(markdown, /head feat\/&lt;b&gt;x&lt;\/b&gt;&#124;@\u200Dbob@\u200Ddef5678/);
    assert.match(markdown, /head answered &lt;script&gt;x&lt;\/script&gt; to @\u200Deveryone second line/);
  });

  it('says so when nothing was compared', () => {
    const { results } = incompleteRun();
    const empty = { ...results, scenarios: results.scenarios.map((s) => ({ ...s, pairs: [] })) };
    const markdown = renderMarkdown(empty, makeAnalysis(empty, []));
    assert.match(markdown, /_Nothing was compared: no pair was measured\._/);
    assert.match(markdown, /0 of 6 pairs measured so far/);
    assert.doesNotMatch(markdown, /\*\*Bold\*\*|\*\*Noise\.\*\*/);
    assert.match(renderTerminal(empty, makeAnalysis(empty, [])), /nothing was compared/);
  });

  it('ends with the perfgate version', () => {
    const { results, analysis } = passingRun();
    assert.match(renderMarkdown(results, analysis), /<sub>perfgate 0\.1\.0<\/sub>\n$/);
  });

  it('does not change its inputs', () => {
    const { results, analysis } = failingRun();
    const before = JSON.stringify([results, analysis]);
    renderMarkdown(results, analysis);
    renderTerminal(results, analysis, { color: true });
    assert.equal(JSON.stringify([results, analysis]), before);
  });
});

describe('renderTerminal', () => {
  it('folds a run where nothing changed like the comment: the headline, one line, where the tables are, the warnings', () => {
    const { results, analysis } = passingRun();
    const folded = renderTerminal(results, analysis);
    assert.doesNotMatch(folded, /change \(95% CI\)|smallest detectable/);
    assert.match(folded, /\nEvery metric: --full\n$/, 'without a hint from the caller it names the flag');
    const warned = { ...analysis, warnings: [{ code: 'not-production' as const, message: 'service.env.NODE_ENV is "development"' }] };
    assert.match(renderTerminal(results, warned), /--full\n\nwarnings:\n {2}! service\.env\.NODE_ENV is "development" \(not-production\)\n$/, 'warnings never fold');
    const full = renderTerminal(results, analysis, { full: true });
    assert.match(full, /^GET \/hello {2}throughput \* /m);
    assert.doesNotMatch(full, /Nothing changed/);
    assert.equal(full.split('\n').slice(0, 2).join('\n'), folded.split('\n').slice(0, 2).join('\n'), 'the same headline');
  });

  it('keeps the full report for failing, gated-inconclusive and incomplete runs; an informational inconclusive row folds', () => {
    for (const build of [failingRun, incompleteRun]) {
      const { results, analysis } = build();
      assert.match(renderTerminal(results, analysis), /^scenario +metric +base +head +change \(95% CI\) +verdict$/m, build.name);
    }
    const { results, analysis } = passingRun();
    const inconclusive = (metric: string) =>
      makeAnalysis(
        results,
        analysis.comparisons.map((c) => (c.metric === metric ? { ...c, verdict: 'inconclusive' as const } : c)),
      );
    assert.match(renderTerminal(results, inconclusive('throughput')), /^scenario +metric/m);
    assert.match(renderTerminal(results, inconclusive('latency_p90')), /^Nothing changed beyond its limit/m);
  });

  it('has no ANSI codes unless colour is asked for', () => {
    const { results, analysis } = failingRun();
    assert.doesNotMatch(renderTerminal(results, analysis), ANSI);
    assert.doesNotMatch(renderTerminal(results, analysis, { color: false }), ANSI);
  });

  it('colours a gated regression red, an informational one yellow, improvements green', () => {
    const { results, analysis } = failingRun();
    const text = renderTerminal(results, analysis, { color: true });
    assert.match(text, /\x1b\[31m✗ regression\x1b\[39m/);
    assert.match(text, /\x1b\[33m! regression\x1b\[39m/);
    assert.match(text, /\x1b\[32m✓ improvement\x1b\[39m/);
    assert.match(text, /\x1b\[33m\? inconclusive\x1b\[39m/);
    assert.match(text, /\x1b\[31m✗ failing: GET \/hello throughput −12\.2% \(limit 5%\)\x1b\[39m/);
  });

  it('colours a pass green', () => {
    const { results, analysis } = passingRun();
    assert.match(renderTerminal(results, analysis, { color: true }), /\x1b\[32m✓ passing\x1b\[39m/);
  });

  it('aligns the table columns', () => {
    const { results, analysis } = failingRun();
    const lines = renderTerminal(results, analysis).split('\n');
    const header = lines.indexOf('every metric:') + 1;
    const table = lines.slice(header, header + 11);
    const verdictColumn = table[0]!.indexOf('verdict');
    for (const line of table) assert.ok(/^[✗!✓?u]/.test(line.slice(verdictColumn)) || line === table[0], line);
  });

  it('prints the smallest detectable change where it explains a verdict: gated and inconclusive', () => {
    const { results, analysis } = failingRun();
    const detectable = (a: Assessment) => renderTerminal(results, a).split('\n').filter((l) => l.startsWith('smallest detectable change'));
    assert.deepEqual(detectable(analysis), []);
    const undecided = makeAnalysis(
      results,
      analysis.comparisons.map((c) => (c.metric === 'throughput' && c.scenario === 'POST /echo' ? { ...c, verdict: 'inconclusive' as const } : c)),
    );
    assert.deepEqual(detectable(undecided), ['smallest detectable change, POST /echo throughput: 3.1% (limit 5%)']);
  });

  it('keeps escape sequences in names from reaching the terminal', () => {
    const { results, analysis } = hostileRun();
    const evil = 'x\x1b]0;owned\x07\x1b[2J';
    const renamed = {
      ...results,
      scenarios: results.scenarios.map((s) => ({ ...s, name: evil })),
    };
    const text = renderTerminal(renamed, makeAnalysis(renamed, analysis.comparisons.map((c) => ({ ...c, scenario: evil }))));
    assert.doesNotMatch(text, /[\x07\x1b]/);
  });

  it('shortens scenario names to fit the width', () => {
    const { results, analysis } = hostileRun();
    const lines = renderTerminal(results, analysis, { width: 80 }).split('\n');
    const header = lines.findIndex((l) => l.startsWith('scenario'));
    for (const line of lines.slice(header, header + 6)) assert.ok(line.length <= 80, `${line.length}: ${line}`);
  });
});

describe('renderTerminal with wide characters', () => {
  const VERDICT = /(?:verdict|unchanged|[✗!✓?] [a-z]+)$/;
  /** The failing run with its two scenarios renamed. */
  function renamedRun(names: Record<string, string>): { results: Results; analysis: Assessment } {
    const { results, analysis } = failingRun();
    return {
      results: { ...results, scenarios: results.scenarios.map((s) => ({ ...s, name: names[s.name] ?? s.name })) },
      analysis: { ...analysis, comparisons: analysis.comparisons.map((c) => ({ ...c, scenario: names[c.scenario] ?? c.scenario })) },
    };
  }
  const tableOf = (text: string): string[] => {
    // The full table, under the story's rows that moved.
    const lines = text.split('\n');
    const header = lines.indexOf('every metric:') + 1;
    return lines.slice(header, lines.indexOf('', header)).filter((l) => VERDICT.test(l));
  };

  it('aligns columns by display width: CJK and emoji take two columns', () => {
    const { results, analysis } = renamedRun({ 'GET /hello': 'GET /検索', 'POST /echo': 'POST /🚀' });
    const table = tableOf(renderTerminal(results, analysis, { color: false }));
    assert.ok(table.some((l) => l.startsWith('GET /検索  ')) && table.some((l) => l.startsWith('POST /🚀  ')));
    const verdictColumns = new Set(table.map((l) => stringWidth(l.slice(0, l.search(VERDICT)))));
    assert.equal(verdictColumns.size, 1, table.join('\n'));
    // Display columns, not UTF-16 units: the header has no wide character, so it is the reference.
    assert.equal([...verdictColumns][0], table[0]!.search(VERDICT));
  });

  it('never cuts two names to the same text in a 100-column terminal: the names run wider instead', () => {
    const names = { 'GET /hello': 'GET /api/customers/:customerId/v1/orders/:orderId/items', 'POST /echo': 'GET /api/customers/:customerId/v2/orders/:orderId/items' };
    const { results, analysis } = renamedRun(names);
    const table = tableOf(renderTerminal(results, analysis, { color: false, width: 100 }));
    const shown = table.filter((line) => line.startsWith('GET')).map((line) => line.split('  ')[0]);
    assert.equal(shown.length, 2, table.join('\n'));
    assert.notEqual(shown[0], shown[1], table.join('\n'));
    assert.ok(shown.every((name) => name!.includes('…')), 'still shortened from the middle');
  });

  it('shortens a wide name on whole characters (a flag is two code points, one character), within the width', () => {
    const flag = '🇯🇵';
    const { results, analysis } = renamedRun({ 'GET /hello': `GET /${flag.repeat(30)}`, 'POST /echo': `POST /${'検'.repeat(30)}` });
    const table = tableOf(renderTerminal(results, analysis, { color: false, width: 90 }));
    assert.equal(table.length, 11);
    for (const line of table) {
      assert.ok(stringWidth(line) <= 90, `${stringWidth(line)}: ${line}`);
      assert.doesNotMatch(line.replaceAll(flag, ''), /[\u{1f1e6}-\u{1f1ff}]/u, 'no half of a flag');
    }
    // 17 columns for names, cut in the middle: the method and what fits of 8 columns, the …, then the end.
    assert.ok(table.some((l) => l.startsWith(`GET /${flag}…${flag.repeat(4)}   throughput`)), table.join('\n'));
    assert.ok(table.some((l) => l.startsWith(`POST /検…${'検'.repeat(4)}  throughput`)), table.join('\n'));
  });
});

describe('matchSnapshot diff', () => {
  it('shows removed and added lines with context', () => {
    const expected = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n');
    const actual = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h'].join('\n');
    assert.equal(formatDiff(expected, actual), ['…', '  c', '  d', '- e', '+ E', '  f', '  g', '…'].join('\n'));
  });

  it('makes escapes and trailing spaces visible', () => {
    assert.equal(formatDiff('x', '\x1b[31mx  '), '- x\n+ \\u001b[31mx··');
  });
});
