import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The report renders; the gate decides: the renderers (markdown, terminal, comment) read
 * everything they show from the Analysis the gate produced (src/results/types.ts), so neither
 * layer imports the other, and a results.json is reported by deriving its analysis again.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Every module a source file imports (static, dynamic, and `export … from`), as paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(SRC, resolve(dirname(file), s)));
}

function sources(dir: string): string[] {
  return readdirSync(join(SRC, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|cjs|mjs|js)$/.test(f))
    .map((f) => join(SRC, dir, f));
}

function crossings(from: string, to: string): string[] {
  return sources(from).flatMap((file) =>
    importsOf(file)
      .filter((target) => target === to || target.startsWith(`${to}/`))
      .map((target) => `${relative(SRC, file)} imports ${target}`),
  );
}

describe('layers', () => {
  it('finds the imports it looks for (the scan itself works)', () => {
    assert.ok(importsOf(join(SRC, 'gate/compare.ts')).includes('gate/samples.js'));
    assert.ok(crossings('cli', 'report').length > 0, 'the CLI renders reports');
  });

  it('report/ imports nothing from gate/: it only renders the analysis', () => {
    assert.deepEqual(crossings('report', 'gate'), []);
  });

  it('gate/ imports nothing from report/: its words are its own', () => {
    assert.deepEqual(crossings('gate', 'report'), []);
  });
});
