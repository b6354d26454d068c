/**
 * uPlot (github.com/leeoniya/uPlot, MIT), the charting library of the history page, as text to
 * inline: the page must draw with no network (a job summary's artifact, a file opened offline).
 * About 51 kB minified with its 2 kB stylesheet. The bundler injects both (scripts/bundle.mjs);
 * from source they are read from node_modules.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

declare const __UPLOT_JS__: string | undefined;
declare const __UPLOT_CSS__: string | undefined;

export function chartLibrary(): { js: string; css: string } {
  if (typeof __UPLOT_JS__ === 'string' && typeof __UPLOT_CSS__ === 'string') return { js: __UPLOT_JS__, css: __UPLOT_CSS__ };
  const dist = join(dirname(createRequire(import.meta.url).resolve('uplot')), '.');
  return { js: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'), css: readFileSync(join(dist, 'uPlot.min.css'), 'utf8') };
}
