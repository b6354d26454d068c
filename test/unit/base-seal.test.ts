/**
 * The seal on base's tree (src/engine/workspace/base-seal.ts) against what a hostile head can plant or
 * patch outside the tracked files and node_modules: base's untracked build output, a dependency
 * shadowed by a nearer node_modules, a file module resolution prefers to a tracked folder, an
 * .env. An honest service's log, uploads and caches in its tree stay unsealed. Both ways of
 * listing: find(1), and the walk used where find is missing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isCodePath, sealBaseTree } from '../../src/engine/workspace/base-seal.js';
import { BaseTreeChangedError } from '../../src/engine/errors.js';
import { findOnPath, settleOwnProcesses } from '../../src/engine/process/programs.js';
import type { HeadIdentity } from '../../src/engine/process/processes.js';
import type { Tree } from '../../src/engine/workspace/trees.js';

/** A built base: tracked source, an installed dependency, and untracked build output. */
function builtTree(): Tree {
  const root = mkdtempSync(join(tmpdir(), 'perfgate-seal-'));
  const files: Record<string, string> = {
    'src/server.js': "require('dep'); require('./lib');\n",
    'src/lib/index.js': 'module.exports = 1;\n',
    'package.json': '{"name":"app"}\n',
    '.gitignore': 'node_modules\ndist\nuploads\n*.log\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'base');
  mkdirSync(join(root, 'node_modules/dep'), { recursive: true });
  writeFileSync(join(root, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist/server.js'), "require('../src/server.js');\n");
  return { side: 'base', root, ref: 'main', sha: '0'.repeat(40), dirty: false };
}

/** The message verify throws, or null when the tree is as sealed. */
async function verifyMessage(tree: Tree, change: (root: string) => void, head: HeadIdentity = 'shared'): Promise<string | null> {
  const seal = await sealBaseTree(tree, tree.root, head);
  change(tree.root);
  try {
    await seal.verify('in the test');
    return null;
  } catch (e) {
    assert.ok(e instanceof BaseTreeChangedError, String(e));
    return e.message;
  }
}

const plant = (path: string, text = 'for(;;);\n') => (root: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

for (const lister of ['find', 'walk'] as const) {
  describe(`base's seal, listed by ${lister}`, () => {
    if (lister === 'walk') {
      // PATH with git only: find(1) is missing, and the seal walks the tree itself
      const onlyGit = mkdtempSync(join(tmpdir(), 'perfgate-path-'));
      symlinkSync(findOnPath('git', process.env.PATH)!, join(onlyGit, 'git'));
      settleOwnProcesses({ ...process.env, PATH: onlyGit });
      after(() => settleOwnProcesses(process.env));
    }

    test("base's untracked build output, patched: caught", async () => {
      const message = await verifyMessage(builtTree(), (root) => appendFileSync(join(root, 'dist/server.js'), 'for(;;);\n'));
      assert.match(message ?? '', /: dist\/server\.js \(written\)/);
    });

    test('the message says who could have written there: head as the same user (why), or only perfgate\'s user where head has its own', async () => {
      const patch = (root: string) => appendFileSync(join(root, 'dist/server.js'), 'for(;;);\n');
      assert.match((await verifyMessage(builtTree(), patch, 'shared')) ?? '', /runs as the same user as base's \(perfgate gives it a user of its own only inside a boundary/);
      assert.match((await verifyMessage(builtTree(), patch, 'shared-in-boundary')) ?? '', /runs as the same user as base's here \(inside the boundary, but no user of its own could be made for it\)/);
      const own = (await verifyMessage(builtTree(), patch, 'own-user')) ?? '';
      assert.match(own, /Head's code runs as its own user \(perfgate-head\) and cannot write there: a process of perfgate's own user or root did/);
      assert.doesNotMatch(own, /same user/);
    });

    test('planted where module resolution finds it first: caught, each named', async () => {
      const message = await verifyMessage(builtTree(), (root) => {
        plant('src/node_modules/dep/index.js')(root); // nearer src/server.js than node_modules/dep
        plant('src/lib.js')(root); // require('./lib') takes lib.js before lib/index.js
        plant('.env', 'NODE_OPTIONS=--cpu-prof\n')(root);
        plant('src/package.json', '{"type":"module"}\n')(root);
      });
      for (const path of ['src/node_modules/dep/index.js', 'src/lib.js', '.env', 'src/package.json']) {
        assert.match(message ?? '', new RegExp(`${path.replace(/\./g, '\\.')} \\(added\\)`), `${path}: ${message}`);
      }
    });

    test("an honest service's log, uploads and .cache folders: not sealed", async () => {
      const message = await verifyMessage(builtTree(), (root) => {
        appendFileSync(join(root, 'server.log'), 'started\n');
        plant('uploads/avatar.png', 'png')(root);
        plant('uploads/data.json', '{}')(root);
        plant('.cache/compiled/server.js')(root);
        plant('node_modules/.cache/babel/x.js')(root);
      });
      assert.equal(message, null);
    });
  });
}

test('which paths count as code outside the sealed node_modules', () => {
  const sealed = ['node_modules'];
  for (const path of ['dist/server.js', 'a.mjs', 'b.cjs', 'src/x.ts', 'addon.node', 'pkg/package.json', '.env', '.env.production', 'src/node_modules/x/README', 'lib/node_modules']) {
    assert.equal(isCodePath(path, sealed), true, path);
  }
  for (const path of ['server.log', 'uploads/a.json', 'node_modules/x/index.js', '.git/config', '.cache/x.js', 'a/.cache/b.js', 'environment.txt']) {
    assert.equal(isCodePath(path, sealed), false, path);
  }
});
