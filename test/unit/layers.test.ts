import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The report renders; the assessment decides: the renderers (markdown, terminal, comment) read
 * everything they show from the Assessment that src/assess/ built, through its types and its
 * read helpers, and import nothing of assess/ that decides; assess/ imports nothing from
 * report/. A results.json is reported by assessing it again.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** What report/ may use of assess/: the Assessment's shape and the questions it answers, nothing that decides. */
const ASSESSMENT_READERS = ['assess/types.js', 'assess/read.js'];

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
    assert.ok(importsOf(join(SRC, 'assess/compare.ts')).includes('assess/samples.js'));
    assert.ok(crossings('cli', 'report').length > 0, 'the CLI renders reports');
    assert.ok(crossings('report', 'assess').length > 0, 'the reports read the assessment');
  });

  it('report/ imports only the Assessment types and read helpers from assess/: it renders, never decides', () => {
    const deciding = crossings('report', 'assess').filter((line) => !ASSESSMENT_READERS.some((allowed) => line.endsWith(` imports ${allowed}`)));
    assert.deepEqual(deciding, []);
  });

  it('report/ and action/ take the culprit from the Assessment: at most its type from profile/culprit.ts', () => {
    const valueImports = [...sources('report'), ...sources('action')].filter((file) =>
      /^import (?!type )[^;]*from '\.\.\/profile\/culprit\.js'/m.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(valueImports.map((file) => relative(SRC, file)), []);
  });

  it('assess/ imports nothing from report/: its words are its own', () => {
    assert.deepEqual(crossings('assess', 'report'), []);
  });
});
