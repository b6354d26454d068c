import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../src/engine/ports.js';
import { ProcessTracker } from '../../src/engine/process/processes.js';
import { ensureZeroX, renderFlamegraphs, zeroXVersion } from '../../src/engine/phases/zerox.js';
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

test('flamegraphs: the page 0x\'s command draws, browserify run once for every later drawing; a 0x laid out otherwise is run as a command', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-zerox-'));
  try {
    const tracker = new ProcessTracker();
    const cmd = await ensureZeroX({ toolsDir: join(dir, 'tools'), env: {}, logFile: '/dev/null', tracker, logger: silentLogger });
    const env = { PATH: process.env.PATH ?? '' };
    const input = (side: string) => join(ROOT, 'test', 'fixtures', 'profiles', `payload-${side}.cpuprofile`);
    const jobs = ['head', 'base'].map((side) => ({ input: input(side), output: join(dir, `${side}.html`), title: `GET /payload · ${side}` }));
    const logFile = join(dir, 'flamegraphs.log');
    await renderFlamegraphs({ cmd, jobs, toolsDir: join(dir, 'tools'), env, logFile, tracker });
    const [bundle] = readdirSync(join(dir, 'tools')).filter((f) => f.endsWith('.js'));
    assert.ok(bundle, 'the visualizer is kept in the tools directory');
    const kept = statSync(join(dir, 'tools', bundle));

    // 0x's own command, for the same profile and title: the same page
    execFileSync(process.execPath, [cmd, '--visualize-cpu-profile', input('head'), '--output-html', join(dir, 'by-0x.html'), '--title', jobs[0]!.title, '--quiet']);
    assert.equal(readFileSync(jobs[0]!.output, 'utf8'), readFileSync(join(dir, 'by-0x.html'), 'utf8'));
    assert.match(readFileSync(jobs[1]!.output, 'utf8'), /GET \/payload · base/);

    // drawn again: the kept visualizer is read, not made anew
    rmSync(jobs[1]!.output);
    await renderFlamegraphs({ cmd, jobs: [jobs[1]!], toolsDir: join(dir, 'tools'), env, logFile, tracker });
    assert.ok(existsSync(jobs[1]!.output));
    assert.equal(statSync(join(dir, 'tools', bundle)).mtimeMs, kept.mtimeMs);

    // a 0x without lib/cpu-profile-to-tree.js: its command draws the page
    const other = join(dir, 'other-0x');
    mkdirSync(other);
    symlinkSync(cmd, join(other, 'cmd.js'));
    writeFileSync(join(other, 'package.json'), readFileSync(join(dirname(cmd), 'package.json')));
    const fallback = { ...jobs[0]!, output: join(dir, 'fallback.html') };
    await renderFlamegraphs({ cmd: join(other, 'cmd.js'), jobs: [fallback], toolsDir: join(dir, 'tools-other'), env, logFile, tracker });
    assert.equal(readFileSync(fallback.output, 'utf8'), readFileSync(join(dir, 'by-0x.html'), 'utf8'));
    assert.equal(tracker.size, 0, 'no process left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
