/**
 * Mermaid in a browser page, as GitHub draws a ```mermaid block: the package's ESM build
 * (node_modules/mermaid/dist/mermaid.esm.min.mjs and the chunks it imports), served to the page
 * from a made-up origin by playwright's request routing, so nothing reaches the network.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';

const ORIGIN = 'http://perfgate.test';
/** The installed package's dist directory (its package.json sits next to it). */
export const MERMAID_DIST = join(dirname(createRequire(import.meta.url).resolve('mermaid/package.json')), 'dist');

/** Opens an empty page that can import Mermaid from `${ORIGIN}/mermaid/…`. */
export async function openMermaidPage(page: Page): Promise<void> {
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><html><body></body></html>' });
    const file = normalize(join(MERMAID_DIST, path.replace(/^\/mermaid\//, '')));
    if (!path.startsWith('/mermaid/') || !file.startsWith(MERMAID_DIST)) return route.fulfill({ status: 404, body: '' });
    return route.fulfill({ contentType: 'text/javascript', body: readFileSync(file) });
  });
  await page.goto(`${ORIGIN}/`);
}

/**
 * Renders Mermaid text into a new element of the page, as mermaid.render does for GitHub; the
 * SVG's id is `id`. Resolves to Mermaid's error message when it cannot parse the text.
 */
export function renderMermaid(page: Page, text: string, id: string): Promise<{ error: string | null }> {
  return page.evaluate(
    async ([source, svgId, url]) => {
      const { default: mermaid } = await import(url);
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
      try {
        const { svg } = await mermaid.render(svgId, source);
        const holder = document.createElement('div');
        holder.innerHTML = svg;
        document.body.append(holder);
        return { error: null };
      } catch (e) {
        return { error: String(e) };
      }
    },
    [text, id, `${ORIGIN}/mermaid/mermaid.esm.min.mjs`] as const,
  );
}
