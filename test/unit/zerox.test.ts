import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../src/engine/ports.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import { ensureZeroX, zeroXVersion } from '../../src/engine/phases/zerox.js';
import { ROOT } from '../helpers/repo.js';

test('0x comes from perfgate\'s own install when it has one (nothing is installed)', async () => {
  const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', '0x', 'package.json'), 'utf8')).version;
  assert.equal(zeroXVersion(), installed);
  const tracker = new ProcessTracker();
  const cmd = await ensureZeroX({ toolsDir: '/nonexistent/tools', env: {}, logFile: '/dev/null', tracker, logger: silentLogger });
  // Node resolves through symlinks: a checkout's node_modules may be one (a worktree sharing another's).
  assert.equal(cmd, realpathSync(join(ROOT, 'node_modules', '0x', 'cmd.js')));
  assert.equal(tracker.size, 0, 'no npm process was started');
});
