// Rate plots for the calibration docs, drawn by Vega-Lite (vega-lite compiles the chart, vega
// renders it to SVG without a browser). One chart shape: a rate (0–100%) against the extra
// work per request on the head side, one line per series, with 95% Wilson intervals as error
// bars and the targets as dashed rules.
import * as vega from 'vega';
import { compile } from 'vega-lite';

/**
 * points: { series, effect (%), rate, lo, hi, dashed? } — rate and interval as fractions.
 * targets: { rate, label } — horizontal dashed rules.
 */
export async function renderRatePlot({ title, points, targets = [], xTitle = 'extra work per request on the head side (%)' }) {
  const values = points.map((p) => ({ ...p, line: p.dashed ? 'noisy neighbour' : 'quiet' }));
  const x = { field: 'effect', type: 'quantitative', title: xTitle, axis: { values: [...new Set(points.map((p) => p.effect))].sort((a, b) => a - b) } };
  const y = { field: 'rate', type: 'quantitative', title: 'runs failed', scale: { domain: [0, 1] }, axis: { format: '%' } };
  const colour = { field: 'series', type: 'nominal', title: null };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 420,
    height: 260,
    background: 'white',
    layer: [
      ...(targets.length > 0
        ? [
            { data: { values: targets }, mark: { type: 'rule', strokeDash: [4, 3], color: '#999' }, encoding: { y: { field: 'rate', type: 'quantitative' } } },
            {
              data: { values: targets },
              mark: { type: 'text', align: 'left', dx: 4, dy: -5, color: '#666', fontSize: 10 },
              encoding: { y: { field: 'rate', type: 'quantitative' }, x: { value: 0 }, text: { field: 'label' } },
            },
          ]
        : []),
      {
        data: { values },
        mark: { type: 'line', point: true },
        // quiet solid, noisy dashed, whatever the alphabet says; the legend draws the strokes
        encoding: {
          x,
          y,
          color: colour,
          strokeDash: {
            field: 'line',
            type: 'nominal',
            title: null,
            scale: { domain: ['quiet', 'noisy neighbour'], range: [[1, 0], [5, 3]] },
            legend: { symbolType: 'stroke', symbolStrokeWidth: 2, encode: { symbols: { update: { stroke: { value: '#333' } } } } },
          },
        },
      },
      { data: { values }, mark: { type: 'errorbar', ticks: true }, encoding: { x, y: { field: 'lo', type: 'quantitative', title: 'runs failed' }, y2: { field: 'hi' }, color: colour } },
    ],
    config: { font: 'sans-serif', legend: { labelLimit: 0 } },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}

/**
 * The A/A noise of several metrics side by side: each identical-code run's change of each metric
 * as a point, one row per kind of service, one colour per metric, and each metric's limit as a
 * pair of dashed rules in its colour. What it shows is the scale: a metric whose points sit far
 * inside its limit can be gated at it.
 * points: { cell, metric, change (fraction) }; limits: { metric, limit (fraction) }.
 */
export async function renderNoisePlot({ title, points, limits = [] }) {
  const metrics = [...new Set(points.map((p) => p.metric))];
  const colour = { field: 'metric', type: 'nominal', title: null, scale: { domain: metrics } };
  const x = { field: 'change', type: 'quantitative', title: 'change on identical code, per run', axis: { format: '+.1%' } };
  const rules = limits.flatMap((l) => [
    { metric: l.metric, change: l.limit },
    { metric: l.metric, change: -l.limit },
  ]);
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 460,
    height: { step: 9 },
    background: 'white',
    layer: [
      { data: { values: rules }, mark: { type: 'rule', strokeDash: [4, 3], opacity: 0.7 }, encoding: { x, color: colour } },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, opacity: 0.75, size: 28 },
        encoding: { x, y: { field: 'cell', type: 'nominal', title: null }, yOffset: { field: 'metric', scale: { domain: metrics } }, color: colour },
      },
    ],
    config: { font: 'sans-serif', legend: { labelLimit: 0, orient: 'top' }, axisY: { labelLimit: 0 } },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}
