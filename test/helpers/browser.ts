/**
 * Headless Chromium for the tests that open perfgate's HTML pages: Debian's chromium (installed
 * by .ci/run) driven by playwright-core. The network is closed in CI, so everything that would
 * reach out (background networking, component updates, sync, QUIC) is off, and each launch gets
 * a fresh profile directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Runs `use` with a page in a fresh headless Chromium, closed afterwards. */
export async function withPage<T>(use: (page: Page, errors: string[]) => Promise<T>): Promise<T> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  const profile = mkdtempSync(join(tmpdir(), 'perfgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    return await use(page, errors);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Distinct colours in a PNG (decoded by the browser itself): a blank page has one or two. */
export function distinctColours(page: Page, png: Buffer): Promise<number> {
  return page.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    context.drawImage(image, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set<number>();
    for (let i = 0; i < data.length; i += 4) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
    return colours.size;
  }, png.toString('base64'));
}

/** Pixels of a canvas (by selector) close to an RGB colour. */
export function canvasPixels(page: Page, selector: string, rgb: [number, number, number]): Promise<number> {
  return page.evaluate(
    ([sel, [r, g, b]]) => {
      const canvas = document.querySelector(sel) as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i]! - r) < 40 && Math.abs(data[i + 1]! - g) < 40 && Math.abs(data[i + 2]! - b) < 40) count++;
      }
      return count;
    },
    [selector, rgb] as const,
  );
}
