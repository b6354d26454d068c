/**
 * The history page: one self-contained HTML file with one uPlot chart per scenario and gated
 * metric, head's value at each commit, the mean of each stretch between change points, and a
 * line at each change point (red: only the code changed; grey and dashed: the runner's
 * environment changed there too). Everything is inline, the library included. Pure: (history) → text.
 */
import { formatMetricName, formatValue } from '../report/format.js';
import { formatChange } from '../stats/format.js';
import { chartLibrary } from './chart-library.js';
import type { History } from './series.js';
import { describeEnvironmentChange } from './summary.js';

export const CODE_SHIFT_COLOUR = '#cf222e';
export const ENVIRONMENT_SHIFT_COLOUR = '#6e7781';

/** Text for an HTML element or attribute. */
function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON inside a <script> element: no "</script>" or "<!--" can end or change it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function renderHistoryPage(history: History): string {
  const { js, css } = chartLibrary();
  const charts = history.series.map((s, i) => ({
    id: `chart-${i}`,
    title: `${s.scenario} — ${formatMetricName(s.metric)}`,
    shas: s.points.map((p) => p.sha.slice(0, 7)),
    values: s.points.map((p) => p.value),
    labels: s.points.map((p) => formatValue(s.metric, p.value)),
    // The mean of each stretch between change points, drawn as steps.
    means: stretchMeans(
      s.points.map((p) => p.value),
      s.shifts.map((x) => x.index),
    ),
    shifts: s.shifts.map((x) => ({ index: x.index, environment: x.environment.length > 0 })),
  }));
  const sections = history.series
    .map((s, i) => {
      const items = s.shifts
        .map((x) => {
          const cause = describeEnvironmentChange(x.environment) ?? 'this commit';
          return `<li data-index="${x.index}" data-environment="${x.environment.length > 0}"><code>${escapeHtml(x.sha.slice(0, 7))}</code> ${escapeHtml(x.time.slice(0, 10))}: ${escapeHtml(formatValue(s.metric, x.meanBefore))} → ${escapeHtml(formatValue(s.metric, x.meanAfter))} (${escapeHtml(formatChange(x.change))}), ${escapeHtml(cause)}</li>`;
        })
        .join('\n');
      return `<section class="series" data-shifts="${s.shifts.length}">
<h2>${escapeHtml(charts[i]!.title)}</h2>
<div class="chart" id="chart-${i}"></div>
${s.shifts.length ? `<ul class="shifts">\n${items}\n</ul>` : '<p class="none">No change point.</p>'}
</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>perfgate history</title>
<style>${css}
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; }
.series { margin-bottom: 32px; }
.shifts li[data-environment="true"] { color: ${ENVIRONMENT_SHIFT_COLOUR}; }
</style>
</head>
<body>
<h1>perfgate history</h1>
<p>${history.runs} commits. Head's median per commit; the stepped line is the mean between change points (E-divisive means, Otava's split and merge). Red line: a shift at a commit; grey dashed: the runner's environment changed there too.</p>
${sections || '<p>No gated metric in these runs.</p>'}
<script>${js.replace(/<\/script/gi, '<\\/script')}</script>
<script id="history-data" type="application/json">${scriptJson(charts)}</script>
<script>
(function () {
  var charts = JSON.parse(document.getElementById('history-data').textContent);
  window.perfgateCharts = charts.map(function (c) {
    var x = c.values.map(function (_, i) { return i; });
    var markShifts = function (u) {
      var ctx = u.ctx;
      c.shifts.forEach(function (s) {
        var left = Math.round(u.valToPos(s.index - 0.5, 'x', true));
        ctx.save();
        ctx.strokeStyle = s.environment ? '${ENVIRONMENT_SHIFT_COLOUR}' : '${CODE_SHIFT_COLOUR}';
        ctx.lineWidth = 2 * devicePixelRatio;
        if (s.environment) ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(left, u.bbox.top);
        ctx.lineTo(left, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      });
    };
    return new uPlot({
      title: c.title,
      width: 960,
      height: 320,
      scales: { x: { time: false } },
      axes: [
        { values: function (u, ticks) { return ticks.map(function (t) { return Number.isInteger(t) && c.shas[t] ? c.shas[t] : ''; }); } },
        {},
      ],
      series: [
        { label: 'commit', value: function (u, v) { return v == null ? '' : c.shas[v] || ''; } },
        { label: 'head median', stroke: '#0969da', width: 1.5, points: { show: true, size: 5 }, value: function (u, v, si, i) { return i == null ? '' : c.labels[i]; } },
        { label: 'mean between change points', stroke: '#8250df', width: 2, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } },
      ],
      hooks: { draw: [markShifts] },
    }, [x, c.values, c.means], document.getElementById(c.id));
  });
})();
</script>
</body>
</html>
`;
}

function stretchMeans(values: readonly number[], cuts: readonly number[]): number[] {
  const bounds = [0, ...cuts, values.length];
  const out: number[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const stretch = values.slice(bounds[i], bounds[i + 1]);
    const mean = stretch.reduce((s, v) => s + v, 0) / stretch.length;
    for (const _ of stretch) out.push(mean);
  }
  return out;
}
