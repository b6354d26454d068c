#!/usr/bin/env node
// Builds dist/: the action (index.js), its post step (post.js), the CLI (cli.js) and the
// preloads the user's processes get (preload.cjs and the health.cjs and routes.cjs it loads for services,
// bench-preload.cjs for micro-benchmarks). ESM bundles, because @actions/* are ESM-only; a
// createRequire banner gives bundled CommonJS dependencies (autocannon) a working require.
// `node scripts/bundle.mjs [outdir]` — the staleness test builds into a temporary outdir
// and compares it with the committed dist/.
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
// Every import is bundled, so the published package has no runtime dependencies (they are all
// devDependencies) and `npm i -D perfgate` installs one package. 0x runs from its own files (it
// cannot be bundled): the action and the CLI install this exact version on demand
// (src/engine/phases/zerox.ts), so the version tested is the one used.
const zeroXVersion = JSON.parse(readFileSync(join(root, 'node_modules/0x/package.json'), 'utf8')).version;

export async function bundle(outdir) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    absWorkingDir: root,
    logLevel: 'warning',
    legalComments: 'none',
    // node_modules may be a symlink (a git worktree sharing another checkout's): paths in the
    // bundle stay node_modules/…, so dist/ is the same wherever it is built.
    preserveSymlinks: true,
    define: {
      __PERFGATE_VERSION__: JSON.stringify(version),
      __ZEROX_VERSION__: JSON.stringify(zeroXVersion),
      // The history page's charting library, inlined into the page it writes (src/history/chart-library.ts).
      __UPLOT_JS__: JSON.stringify(readFileSync(join(root, 'node_modules/uplot/dist/uPlot.iife.min.js'), 'utf8')),
      __UPLOT_CSS__: JSON.stringify(readFileSync(join(root, 'node_modules/uplot/dist/uPlot.min.css'), 'utf8')),
    },
    banner: {
      js: "import { createRequire as __perfgateCreateRequire } from 'node:module';\nconst require = __perfgateCreateRequire(import.meta.url);",
    },
  };
  await build({ ...common, entryPoints: { index: 'src/action/index.ts', post: 'src/action/post-index.ts', cli: 'src/cli/index.ts' }, outdir });
  // The preloads run inside the user's processes as they are: copied, not bundled.
  for (const preload of ['preload.cjs', 'health.cjs', 'counters.cjs', 'routes.cjs', 'bench-preload.cjs']) {
    copyFileSync(join(root, 'src/preload', preload), join(outdir, preload));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundle(resolve(process.argv[2] ?? join(root, 'dist')));
}
