// lane: beside — it renders recorded results in a browser.
// The chart of the gated changes as a reader sees it: the report's ```mermaid blocks drawn by
// Mermaid's browser build in headless Chromium, the way GitHub draws them in a comment.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { assessResults } from '../../src/assess/compare.js';
import { chartSection } from '../../src/report/document/chart.js';
import { markdownCharts } from '../../src/report/print/mermaid.js';
import type { Results } from '../../src/results/types.js';
import { withPage } from '../helpers/browser.js';
import { cleanPairs, regressedPairs } from '../helpers/github-runs.js';
import { MERMAID_DIST, openMermaidPage, renderMermaid } from '../helpers/mermaid.js';
import { resultsFromPairs } from '../helpers/results.js';

/** A quote, a tag, a directive, a mention and an entity, short enough to be shown whole: all of it must be drawn as typed. */
const HOSTILE = '"<b>%%{x}%% @ #q;';

/** A failing run: GET /hello 20% slower, the hostile scenario unchanged. */
function failingRun(): Results {
  const results = resultsFromPairs(regressedPairs());
  const clean = resultsFromPairs(cleanPairs()).scenarios[0]!;
  results.scenarios.push({ ...clean, name: HOSTILE });
  return results;
}

/** The text of each ```mermaid block of the markdown. */
function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)\n```$/gm)].map((m) => m[1]!);
}

interface DrawnChart {
  title: string;
  labels: string[];
  background: string | null;
  /** Per bar layer: its fill and the right edge of each row's bar, top row first. */
  bars: { fill: string; ends: number[] }[];
  /** Per line: its colour and x (the lines are vertical in a horizontal chart). */
  lines: { stroke: string; x: number }[];
  /** Elements that would run code or carry HTML. */
  active: number;
}

/** What the SVG with this id draws. (No named function inside: tsx would wrap it in a helper the page does not have.) */
function drawn(page: Page, id: string): Promise<DrawnChart> {
  return page.evaluate((svgId) => {
    const svg = document.getElementById(svgId)!;
    return {
      title: svg.querySelector('.chart-title text')?.textContent ?? '',
      labels: [...svg.querySelectorAll('.left-axis .label text')].map((t) => t.textContent ?? ''),
      background: svg.querySelector('rect.background')?.getAttribute('fill') ?? null,
      bars: [...svg.querySelectorAll('.plot > g[class^="bar-plot"]')].map((g) => ({
        fill: g.querySelector('rect')!.getAttribute('fill')!,
        ends: [...g.querySelectorAll('rect')].map((r) => Number(r.getAttribute('x')) + Number(r.getAttribute('width'))),
      })),
      lines: [...svg.querySelectorAll('.plot > g[class^="line-plot"] path')].map((p) => ({
        stroke: p.getAttribute('stroke')!,
        x: Number(/^M([\d.]+),/.exec(p.getAttribute('d')!)![1]),
      })),
      active: svg.querySelectorAll('script, img, foreignObject, iframe, a').length,
    };
  }, id);
}

test('Mermaid draws the chart in Chromium: the regression past the red line, the unchanged scenario inside it, every name as typed', async () => {
  const version = JSON.parse(readFileSync(join(MERMAID_DIST, '..', 'package.json'), 'utf8')).version as string;
  const results = failingRun();
  const markdown = markdownCharts(chartSection(results, assessResults(results)))!;
  const blocks = mermaidBlocks(markdown);
  assert.equal(blocks.length, 2, 'throughput and latency p99');

  await withPage(async (page, errors) => {
    await openMermaidPage(page);
    for (const [i, block] of blocks.entries()) {
      const { error } = await renderMermaid(page, block, `chart-${i}`);
      assert.equal(error, null, `Mermaid ${version} parses the chart:\n${block}`);
    }
    assert.deepEqual(errors, []);

    const throughput = await drawn(page, 'chart-0');
    assert.equal(throughput.title, 'throughput: change against its limit of 2%');
    // the names as the user wrote them (the entities turned back into characters), the verdict's mark after a regression
    // (an @ carries an invisible zero-width joiner, as in the rest of the report)
    assert.deepEqual(throughput.labels, ['GET /hello ❌', HOSTILE.replace('@', '@\u200D'), 'limit ±2%']);
    assert.equal(throughput.active, 0, 'the <b> in a name is text, no element');
    assert.equal(throughput.background, '#ffffff', "the name's %%{init}%% did not restyle the chart");

    const limit = throughput.lines.find((l) => l.stroke === '#cf222e');
    const zero = throughput.lines.find((l) => l.stroke === '#6e7781');
    assert.ok(limit && zero && limit.x > zero.x, 'the red limit line right of no change');
    // The layers as the eye sees them: the band's worse end is the coloured bar's end; its
    // better end is where the background-coloured mask (drawn last) stops.
    const band = (fill: string, row: number) => throughput.bars.find((b) => b.fill === fill)!.ends[row]!;
    const mask = throughput.bars.at(-1)!;
    assert.equal(mask.fill, '#ffffff');
    const regression = { better: mask.ends[0]!, worse: band('#ff8182', 0) };
    assert.ok(regression.better > limit.x, `the whole interval of GET /hello is past the limit: ${regression.better} > ${limit.x}`);
    assert.ok(regression.worse > regression.better + 5, 'drawn as a band, not a hairline');
    const unchanged = { better: mask.ends[1]!, worse: band('#afb8c1', 1) };
    assert.ok(unchanged.better < zero.x && unchanged.worse > zero.x && unchanged.worse < limit.x, 'the unchanged interval holds no change and stays inside the limit');
    // the estimate's tick lies inside its band
    const tick = throughput.bars.find((b) => b.fill === '#1f2328')!.ends[0]!;
    assert.ok(tick > regression.better && tick < regression.worse + 5, `tick ${tick} in ${regression.better}…${regression.worse}`);
    // the last row is the ±limit zone, between the two sides of zero
    assert.ok(band('#eaeef2', 2) - limit.x < 1 && mask.ends[2]! < zero.x, 'the zone row ends at the limit');

    const latency = await drawn(page, 'chart-1');
    assert.equal(latency.title, 'latency p99: change against its limit of 15%');
    assert.equal(latency.labels.length, 3);
  });
});

test('long names are cut to fit, so Mermaid shows every name (it leaves them all out when one is too wide)', async () => {
  const results = resultsFromPairs(regressedPairs());
  const template = results.scenarios[0]!;
  results.scenarios = [
    { ...template, name: 'W'.repeat(60) },
    { ...template, name: 'GET /api/v2/organisations/:orgId/projects/:projectId/builds?status=failed&page=2' },
    { ...template, name: `"${'<%%#x;'.repeat(12)}` },
  ];
  const [throughput] = mermaidBlocks(markdownCharts(chartSection(results, assessResults(results)))!);
  await withPage(async (page, errors) => {
    await openMermaidPage(page);
    assert.equal((await renderMermaid(page, throughput!, 'long')).error, null);
    assert.deepEqual(errors, []);
    const { labels } = await drawn(page, 'long');
    assert.equal(labels.length, 4, labels.join('\n'));
    assert.match(labels[0]!, /^W{15,}…W{5,} ❌$/);
    assert.match(labels[1]!, /^GET \/api\/v2\/organisations\/.*….*=failed&page=2 ❌$/);
    assert.match(labels[2]!, /^"<%%#x;.*….*%#x; ❌$/, 'a cut hostile name is still drawn as typed');
  });
});
