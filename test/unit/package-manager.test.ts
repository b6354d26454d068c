/**
 * The install command perfgate runs when service.install is not set, from the lockfile it finds
 * (src/engine/workspace/trees.ts): real lockfiles of each package manager (test/fixtures/lockfiles).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectPackageManager } from '../../src/engine/workspace/trees.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'lockfiles');

function treeWith(lockfile: string, from: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-pm-'));
  copyFileSync(join(FIXTURES, from, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(FIXTURES, from, lockfile), join(dir, lockfile));
  return dir;
}

test('each lockfile gets its package manager’s frozen install; yarn 2+ its --immutable', () => {
  assert.equal(detectPackageManager(treeWith('package-lock.json', 'find-my-way-8.1.0'))?.install, 'npm ci');
  assert.equal(detectPackageManager(treeWith('pnpm-lock.yaml', 'pnpm-9/find-my-way-8.1.0'))?.install, 'pnpm install --frozen-lockfile --package-import-method=copy');
  assert.equal(detectPackageManager(treeWith('yarn.lock', 'yarn-1/find-my-way-8.1.0'))?.install, 'yarn install --frozen-lockfile');
  assert.equal(detectPackageManager(treeWith('yarn.lock', 'yarn-4/find-my-way-8.1.0'))?.install, 'yarn install --immutable');
});

test('no lockfile: npm install when package.json has dependencies, nothing otherwise', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-pm-'));
  writeFileSync(join(dir, 'package.json'), '{"dependencies":{"fastify":"^5.0.0"}}');
  assert.deepEqual(detectPackageManager(dir), { name: 'npm', lockfile: null, install: 'npm install' });
  writeFileSync(join(dir, 'package.json'), '{"name":"none"}');
  assert.equal(detectPackageManager(dir), null);
});
