/**
 * The versions each side installed (src/engine/workspace/installed.ts), read from real
 * node_modules folders: a version pinned in package.json alone, with no lockfile, is named.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ServiceConfig } from '../../src/config/types.js';
import { installedChanges, installedPackages } from '../../src/engine/workspace/installed.js';
import type { Tree } from '../../src/engine/workspace/trees.js';

const dir = mkdtempSync(join(tmpdir(), 'perfgate-installed-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, data: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(data));
}

/** A project at `root` asking for @koa/router and koa, with the given versions installed. */
function project(root: string, router: string, extra: Record<string, string> = {}): void {
  write(join(root, 'package.json'), { name: 'app', dependencies: { '@koa/router': router, koa: '^2.15.0' } });
  write(join(root, 'node_modules/@koa/router/package.json'), { name: '@koa/router', version: router });
  write(join(root, 'node_modules/koa/package.json'), { name: 'koa', version: '2.15.3' });
  write(join(root, 'node_modules/.package-lock.json'), { name: 'app', lockfileVersion: 3 });
  for (const [name, version] of Object.entries(extra)) write(join(root, `node_modules/@koa/router/node_modules/${name}/package.json`), { name, version });
}

const tree = (side: 'base' | 'head', root: string) => ({ side, root }) as Tree;
const service = { cwd: '.' } as ServiceConfig;

test("each package folder's version, nested ones too; direct when the project asks for it", () => {
  const root = join(dir, 'one');
  project(root, '12.0.1', { 'path-to-regexp': '6.2.1' });
  const found = installedPackages(join(root, 'node_modules'), new Set(['@koa/router', 'koa']));
  assert.deepEqual(
    found.sort((a, b) => a.name.localeCompare(b.name)),
    [
      { name: '@koa/router', version: '12.0.1', direct: true },
      { name: 'koa', version: '2.15.3', direct: true },
      { name: 'path-to-regexp', version: '6.2.1', direct: false },
    ],
  );
});

test('a downgrade pinned in package.json without a lockfile is named with both versions', () => {
  const base = join(dir, 'base');
  const head = join(dir, 'head');
  project(base, '12.0.1', { 'path-to-regexp': '6.2.1' });
  project(head, '12.0.0', { 'path-to-regexp': '6.2.1' });
  assert.deepEqual(installedChanges({ base: tree('base', base), head: tree('head', head) }, { base: service, head: service }), {
    lockfile: 'node_modules',
    changed: [{ name: '@koa/router', base: ['12.0.1'], head: ['12.0.0'], direct: true }],
  });
  // the same install on both sides: nothing to name
  assert.equal(installedChanges({ base: tree('base', base), head: tree('head', base) }, { base: service, head: service }), null);
});

test('a service in a subfolder resolves from the nearest node_modules up to the root; none at all gives null', () => {
  const base = join(dir, 'mono-base');
  const head = join(dir, 'mono-head');
  project(base, '12.0.1');
  project(head, '12.0.0');
  mkdirSync(join(base, 'services/api'), { recursive: true });
  mkdirSync(join(head, 'services/api'), { recursive: true });
  const api = { cwd: 'services/api' } as ServiceConfig;
  assert.deepEqual(installedChanges({ base: tree('base', base), head: tree('head', head) }, { base: api, head: api })?.changed.map((c) => `${c.name} ${c.base} → ${c.head}`), ['@koa/router 12.0.1 → 12.0.0']);
  const bare = join(dir, 'bare');
  mkdirSync(bare);
  assert.equal(installedChanges({ base: tree('base', base), head: tree('head', bare) }, { base: service, head: service }), null);
});
