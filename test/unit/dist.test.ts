import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/repo.js';

test('dist/ is what the bundler makes from the source (rebuild and commit it with every change)', async () => {
  const { bundle } = await import(join(ROOT, 'scripts', 'bundle.mjs'));
  const fresh = mkdtempSync(join(tmpdir(), 'perfgate-dist-'));
  await bundle(fresh);
  const committed = join(ROOT, 'dist');
  assert.deepEqual(readdirSync(committed).sort(), readdirSync(fresh).sort(), 'dist/ has other files than a fresh build: run npm run bundle');
  for (const file of readdirSync(fresh)) {
    const same = readFileSync(join(fresh, file), 'utf8') === readFileSync(join(committed, file), 'utf8');
    assert.ok(same, `dist/${file} is stale: run npm run bundle and commit dist/`);
  }
});

test('action.yml runs the committed bundles on Node 24', () => {
  const yml = readFileSync(join(ROOT, 'action.yml'), 'utf8');
  assert.match(yml, /using: node24/);
  assert.match(yml, /main: dist\/index\.js/);
  assert.match(yml, /post: dist\/post\.js/);
});
