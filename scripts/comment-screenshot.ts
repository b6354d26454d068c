#!/usr/bin/env -S npx tsx
/**
 * The README's picture of a pull-request comment: a real recorded run (a line of
 * docs/calibration/*.jsonl, fastify with 5% more work per request by default) rendered by
 * perfgate's own renderComment, turned into HTML as GitHub shows a comment (marked for the
 * markdown, Mermaid for the chart), and photographed in headless Chromium.
 *
 *   npx tsx scripts/comment-screenshot.ts [--in docs/calibration/looks3.jsonl] [--line 22] [--out docs/comment.png]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { marked } from 'marked';
import { assessResults } from '../src/assess/compare.js';
import { renderComment } from '../src/report/comment.js';
import { upgradeResults } from '../src/results/migrate.js';
import { withPage } from '../test/helpers/browser.js';
import { openMermaidPage, renderMermaid } from '../test/helpers/mermaid.js';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({
  options: {
    in: { type: 'string', default: join('docs', 'calibration', 'looks3.jsonl') },
    line: { type: 'string', default: '22' },
    out: { type: 'string', default: join('docs', 'comment.png') },
  },
});

/** GitHub's comment look, near enough for a picture: its font, table borders and code blocks. */
const STYLE = `
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; color: #1f2328; margin: 0; background: #fff; }
#comment { width: 860px; margin: 16px; border: 1px solid #d1d9e0; border-radius: 6px; }
#head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e; }
#body { padding: 16px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; }
th { background: #f6f8fa; }
code { background: #eff1f3; border-radius: 4px; padding: 1px 4px; font-size: 85%; }
h2, h3 { margin: 12px 0 8px; }
details { margin: 6px 0; }
`;

const lines = readFileSync(join(root, values.in), 'utf8').split('\n').filter(Boolean);
const recorded = JSON.parse(lines[Number(values.line) - 1]!) as { results: unknown };
const results = upgradeResults(recorded.results, `${values.in}, line ${values.line}`);
const markdown = renderComment(results, assessResults(results), 'perf', {});
const charts: string[] = [];
const withoutCharts = markdown.replace(/```mermaid\n([\s\S]*?)```/g, (_, chart: string) => {
  charts.push(chart);
  return `<div class="chart" data-chart="${charts.length - 1}"></div>`;
});
const html = `<style>${STYLE}</style><div id="comment"><div id="head"><b>github-actions</b> commented</div><div id="body">${await marked.parse(withoutCharts)}</div></div>`;

await withPage(async (page) => {
  await openMermaidPage(page);
  await page.evaluate((body) => {
    document.body.innerHTML = body;
  }, html);
  for (const [i, chart] of charts.entries()) {
    const { error } = await renderMermaid(page, chart, `chart${i}`);
    if (error) throw new Error(`Mermaid could not draw the comment's chart: ${error}`);
    // renderMermaid appends the drawing to the body: move it where the block was
    await page.evaluate((n) => {
      const drawn = document.body.lastElementChild!;
      document.querySelector(`[data-chart="${n}"]`)!.append(drawn);
    }, i);
  }
  await page.locator('#comment').screenshot({ path: join(root, values.out) });
});
console.log(`wrote ${values.out} from ${values.in}, line ${values.line}`);
