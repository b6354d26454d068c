import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HotFunctionsSection, Table } from '../../src/report/document/types.js';
import { markdownHotFunctions, markdownTable } from '../../src/report/print/markdown.js';
import { painter, terminalGroupedTables, terminalHotFunctions, terminalTable, terminalVerdictDetails } from '../../src/report/print/terminal.js';

/** Two scenarios, the first with two rows and a fixed rate, a name from the pull request with markdown in it. */
const verdicts: Table = {
  group: 'scenario',
  columns: [
    { header: 'metric', align: 'left' },
    { header: 'base', long: 'base (median)', align: 'right' },
    { header: 'verdict', align: 'left' },
  ],
  rows: [
    {
      group: { name: 'GET /a|*b*', note: 'at a fixed 200 req/s' },
      cells: [
        { kind: 'label', text: 'throughput', gated: true },
        { kind: 'figure', text: '1.2k/s' },
        { kind: 'verdict', mark: 'fail', words: 'regression' },
      ],
    },
    {
      group: { name: 'GET /a|*b*', note: 'at a fixed 200 req/s' },
      cells: [
        { kind: 'label', text: 'latency p99' },
        { kind: 'figure', text: '3 ms' },
        { kind: 'verdict', mark: 'neutral', words: 'unchanged' },
      ],
    },
    {
      group: { name: 'GET /c' },
      cells: [
        { kind: 'label', text: 'throughput', gated: true },
        { kind: 'figure', text: '900/s' },
        { kind: 'verdict', mark: 'unknown', words: 'inconclusive' },
      ],
    },
  ],
};

describe('markdown printer', () => {
  it('names each group once, escapes its name, bolds gated labels and signs verdicts', () => {
    assert.equal(
      markdownTable(verdicts),
      [
        '| scenario | metric | base (median) | verdict |',
        '| :-- | :-- | --: | :-- |',
        '| GET /a&#124;\\*b\\*<br>at a fixed 200 req/s | **throughput** | 1.2k/s | ❌ regression |',
        '|  | latency p99 | 3 ms | unchanged |',
        '| GET /c | **throughput** | 900/s | ❔ inconclusive |',
      ].join('\n'),
    );
  });

  it('links outside text to its address, escaped, and puts a reason after its verdict', () => {
    const table: Table = {
      columns: [
        { header: 'where', align: 'left' },
        { header: 'verdict', align: 'left' },
      ],
      rows: [
        {
          cells: [
            { kind: 'text', text: 'src/[x].js:3', href: 'https://github.com/o/r/blob/0/src/x.js#L3', warn: true },
            { kind: 'verdict', mark: 'warn', words: 'not compared', detail: 'threw <Error>' },
          ],
        },
      ],
    };
    assert.equal(markdownTable(table).split('\n')[2], '| [src/\\[x\\].js:3](https://github.com/o/r/blob/0/src/x.js#L3) ⚠️ | ⚠️ not compared: threw &lt;Error&gt; |');
  });
});

describe('terminal printer', () => {
  const plain = painter(false);

  it('uses the short headers, stars gated labels and puts a fixed rate under its name', () => {
    assert.deepEqual(terminalTable(verdicts, 100, plain), [
      'scenario              metric          base  verdict',
      'GET /a|*b*            throughput *  1.2k/s  ✗ regression',
      'at a fixed 200 req/s  latency p99     3 ms  unchanged',
      'GET /c                throughput *   900/s  ? inconclusive',
    ]);
  });

  it('colours each row by its verdict only', () => {
    const lines = terminalTable(verdicts, 100, painter(true));
    assert.match(lines[1]!, /\u001b\[31m✗ regression\u001b\[39m$/);
    assert.doesNotMatch(lines[2]!, /\u001b\[3\dm/);
    assert.match(lines[3]!, /\u001b\[33m\? inconclusive\u001b\[39m$/);
  });

  it('moves a wide column last and lets it run past the width instead of cutting the names', () => {
    const table: Table = {
      columns: [
        { header: 'function', align: 'left' },
        { header: 'spent in', align: 'left', wide: true },
        { header: 'self time', align: 'left' },
      ],
      rows: [{ cells: [{ kind: 'text', text: 'handler' }, { kind: 'text', text: '+980 µs in zlib processChunkSync' }, { kind: 'figure', text: '3 µs → 1 µs' }] }],
    };
    assert.deepEqual(terminalTable(table, 20, plain), ['function  self time    spent in', 'handler   3 µs → 1 µs  +980 µs in zlib processChunkSync']);
  });

  it('cuts long names that share a start in their middle, so each keeps the end that tells it apart', () => {
    const prefix = 'GET /api/v2/organizations/:organizationId/projects/:projectId';
    const row = (name: string) => ({
      group: { name },
      cells: [
        { kind: 'label' as const, text: 'throughput', gated: true },
        { kind: 'figure' as const, text: '28.4k/s' },
        { kind: 'figure' as const, text: '24.9k/s' },
        { kind: 'figure' as const, text: '−12.2% (−14.0 … −10.1)' },
        { kind: 'verdict' as const, mark: 'fail' as const, words: 'regression' },
      ],
    });
    const table: Table = {
      group: 'scenario',
      columns: [
        { header: 'metric', align: 'left' },
        { header: 'base', align: 'right' },
        { header: 'head', align: 'right' },
        { header: 'change (95% CI)', align: 'left' },
        { header: 'verdict', align: 'left' },
      ],
      rows: [row(`${prefix}/members/:memberId`), row(`${prefix}/invitations/:memberId`)],
    };
    const names = terminalTable(table, 100, plain)
      .slice(1)
      .map((line) => line.slice(0, line.indexOf('  throughput')).trimEnd());
    assert.deepEqual(names, ['GET /api/v2/org…bers/:memberId', 'GET /api/v2/org…ions/:memberId']);
  });

  it('prints one table per group under its name, and a verdict\'s reason under the table', () => {
    const lines = terminalGroupedTables(verdicts, plain);
    assert.deepEqual(lines.filter((l) => !l.startsWith(' ') && !/ {2}/.test(l)), ['GET /a|*b*', 'GET /c']);
    const failed: Table = {
      columns: [{ header: 'benchmark', align: 'left' }, { header: 'verdict', align: 'left' }],
      rows: [{ cells: [{ kind: 'text', text: 'parse\u001b[2J' }, { kind: 'verdict', mark: 'warn', words: 'not compared', detail: 'failed on head' }] }],
    };
    assert.deepEqual(terminalVerdictDetails(failed), ['parse[2J: not compared, failed on head']);
  });
});

describe('hot-function printers', () => {
  const functions = (name: string): Table => ({
    columns: [
      { header: 'function', align: 'left' },
      { header: 'change', align: 'right' },
    ],
    rows: [{ cells: [{ kind: 'text', text: name }, { kind: 'figure', text: '+1.1 ms' }] }],
  });
  /** A scenario and a function named by the pull request, with markdown and a control character in them. */
  const section: HotFunctionsSection = {
    parts: [
      {
        title: 'Hot functions',
        scenario: 'GET /a|*b*',
        measure: { long: 'self time under the same load, CPU time per request', short: 'self time, CPU time per request' },
        profiling: '10 s per side',
        culprit: { title: 'Most new time', text: 'most new time in *render* (src/x.js:7)' },
        own: functions('render\u001b[2J'),
        ownMissing: { long: 'None sampled', short: 'none sampled' },
        other: { title: { long: 'Dependencies (top 1)', short: 'dependencies' }, table: functions('zlib') },
        packages: null,
        warnings: [{ title: 'Deoptimized by V8', items: [[{ kind: 'text', text: 'render' }, { kind: 'label', text: ': ' }, { kind: 'text', text: 'wrong <map>' }]] }],
        flamegraphs: {
          title: 'Flamegraphs',
          lead: ' (files next to results.json)',
          files: [
            { name: { long: 'head', short: 'head' }, file: 'profiles/head.html', href: 'https://example.test/head' },
            { name: { long: 'differential', short: 'diff' }, file: 'profiles/[diff].html', href: null },
          ],
        },
      },
    ],
    legend: { columns: 'Change: the time head added; new / gone: sampled on one side only', deoptimized: 'deoptimized by V8 (reasons below)', attributed: null },
    skipped: 'Not profiled, every verdict unchanged: GET /c_d_',
  };

  it('markdown: escapes what the pull request named, folds the other code away, links the flamegraphs it can', () => {
    const text = markdownHotFunctions(section)!;
    assert.match(text, /^\*\*Hot functions, GET \/a&#124;\\\*b\\\*\*\* \(self time under the same load, CPU time per request\): 10 s per side\./);
    assert.match(text, /🔎 Most new time: most new time in \\\*render\\\* \(src\/x\.js:7\)\./);
    assert.match(text, /<details><summary>Dependencies \(top 1\)<\/summary>\n\n\| function \| change \|/);
    assert.match(text, /⚠️ Deoptimized by V8: render: wrong &lt;map&gt;/);
    assert.match(text, /Flamegraphs \(files next to results\.json\): \[head\]\(https:\/\/example\.test\/head\) · differential profiles\/\\\[diff\\\]\.html/);
    assert.match(text, /<sub>Change: the time head added; new \/ gone: sampled on one side only; ⚠️ deoptimized by V8 \(reasons below\)\.<\/sub>/);
    assert.match(text, /<sub>Not profiled, every verdict unchanged: GET \/c\\_d\\_\.<\/sub>$/);
  });

  it('terminal: strips control characters, says what it leaves out, aligns the flamegraph paths', () => {
    const lines = terminalHotFunctions(section, 100, painter(false), '(own code only)');
    assert.equal(lines[1], 'hot functions, GET /a|*b* (self time, CPU time per request; 10 s per side):');
    assert.equal(lines[2], 'most new time: most new time in *render* (src/x.js:7)');
    assert.ok(lines.includes('render[2J  +1.1 ms'), lines.join('\n'));
    assert.ok(lines.includes('(own code only)') && !lines.some((l) => l.startsWith('zlib')));
    assert.ok(lines.includes('! deoptimized by V8: render: wrong <map>'));
    assert.deepEqual(lines.slice(-5, -2), ['flamegraphs: head profiles/head.html', '             diff profiles/[diff].html', 'change: the time head added; new / gone: sampled on one side only']);
    assert.deepEqual(lines.slice(-2), ['', 'Not profiled, every verdict unchanged: GET /c_d_']);
    const all = terminalHotFunctions(section, 100, painter(false), null);
    assert.ok(all.includes('dependencies:') && all.some((l) => l.startsWith('zlib')));
  });
});
