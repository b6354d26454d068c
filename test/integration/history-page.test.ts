// lane: beside — it renders recorded results in a browser.
// The history page as a reader opens it: headless Chromium, no network, uPlot inlined. Each
// metric's chart is drawn (a canvas with more than a background's colours), and the change points
// are marked: a red line at the code shift, a grey one where the kernel changed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { renderHistoryPage } from '../../src/history/page.js';
import { analyzeHistory } from '../../src/history/series.js';
import { canvasPixels, distinctColours, withPage } from '../helpers/browser.js';
import { CODE_SHIFT_AT, historyRuns, KERNEL_SHIFT_AT } from '../helpers/history.js';

test('the history page draws one chart per metric and marks the change points', async () => {
  const history = analyzeHistory(historyRuns().map((results, i) => ({ file: `run-${i}`, results })));
  const html = renderHistoryPage(history);
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!github\.com\/leeoniya)/, 'the page loads nothing from elsewhere');
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-history-page-'));
  try {
    const file = join(dir, 'history.html');
    writeFileSync(file, html);
    await withPage(async (page, errors) => {
      // Any request but the page itself would mean the page is not self-contained.
      const requests: string[] = [];
      page.on('request', (r) => {
        if (r.url() !== pathToFileURL(file).href) requests.push(r.url());
      });
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => Array.isArray((window as unknown as { perfgateCharts?: unknown[] }).perfgateCharts));
      assert.deepEqual(errors, []);
      assert.deepEqual(requests, []);
      const drawn = await page.evaluate(() =>
        (window as unknown as { perfgateCharts: { series: unknown[]; data: number[][]; root: HTMLElement }[] }).perfgateCharts.map((u) => ({
          series: u.series.length,
          points: u.data[1]!.length,
          canvases: u.root.querySelectorAll('canvas').length,
        })),
      );
      assert.equal(drawn.length, history.series.length);
      for (const chart of drawn) assert.deepEqual(chart, { series: 3, points: 36, canvases: 1 });

      const throughput = history.series.findIndex((s) => s.metric === 'throughput');
      const canvas = `#chart-${throughput} canvas`;
      const shot = await page.locator(canvas).screenshot();
      assert.ok((await distinctColours(page, shot)) > 10, 'the throughput chart is drawn');
      // The marks: red (#cf222e) for the code shift, grey (#6e7781) for the kernel's.
      assert.ok((await canvasPixels(page, canvas, [0xcf, 0x22, 0x2e])) > 100, 'a red change-point line');
      assert.ok((await canvasPixels(page, canvas, [0x6e, 0x77, 0x81])) > 50, 'a grey change-point line');
      const marked = await page.$$eval(`section:nth-of-type(${throughput + 1}) .shifts li`, (items) =>
        items.map((li) => [Number(li.getAttribute('data-index')), li.getAttribute('data-environment'), li.textContent ?? '']),
      );
      assert.equal(marked.length, 2);
      assert.deepEqual(marked[0]!.slice(0, 2), [CODE_SHIFT_AT, 'false']);
      assert.deepEqual(marked[1]!.slice(0, 2), [KERNEL_SHIFT_AT, 'true']);
      assert.match(String(marked[1]![2]), /environment changed: kernel 6\.5\.0-1025-azure → 6\.8\.0-1017-azure/);
      // The noise-only errors series has no mark at all.
      const errorsChart = history.series.findIndex((s) => s.metric === 'errors');
      assert.equal(await canvasPixels(page, `#chart-${errorsChart} canvas`, [0xcf, 0x22, 0x2e]), 0);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
