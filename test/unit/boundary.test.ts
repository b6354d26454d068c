/**
 * Where perfgate finds the cgroup hierarchy, and what it says where it cannot make a boundary.
 * The boundary itself is proven end to end by test/e2e/hostile.test.ts; here, as root, a process
 * that hides in a cgroup of its own below the boundary's.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { findCgroupMount, openBoundary } from '../../src/engine/process/boundary.js';
import { sleep } from '../../src/engine/process/processes.js';
import { ROOT } from '../helpers/repo.js';
import { makeSharedDir } from '../helpers/runner-user.js';

test('the cgroup v2 mount is preferred; v1 falls back to the freezer hierarchy', () => {
  const v1 = [
    '30 25 0:26 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu',
    '35 25 0:31 / /sys/fs/cgroup/freezer rw,relatime shared:14 - cgroup cgroup rw,freezer',
  ];
  const v2 = '40 25 0:35 / /sys/fs/cgroup/unified\\040dir rw,relatime shared:19 - cgroup2 cgroup2 rw';
  assert.deepEqual(findCgroupMount(v1.join('\n')), { version: 1, dir: '/sys/fs/cgroup/freezer' });
  assert.deepEqual(findCgroupMount([...v1, v2].join('\n')), { version: 2, dir: '/sys/fs/cgroup/unified dir' });
  assert.equal(findCgroupMount('22 1 0:21 / /proc rw - proc proc rw'), null);
});

// Run as another user (nobody), a process with neither root nor sudo gets no boundary and a
// reason. That user may not reach this checkout (a clone in a 0700 directory), so the module runs
// bundled into a directory it can read, with a copy of this Node.
test('without root and without sudo there is no boundary, and the reason says what it needs', { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, (t) => {
  const shared = makeSharedDir();
  t.after(() => shared.remove());
  const [bundled] = buildSync({ entryPoints: [join(ROOT, 'src', 'engine', 'process', 'boundary.ts')], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'error' }).outputFiles;
  const module = shared.write('boundary.mjs', bundled!.text);
  const script = `import { openBoundary } from ${JSON.stringify(pathToFileURL(module).href)};
process.stdout.write(JSON.stringify(openBoundary('00000000-0000-4000-8000-000000000000', null)));`;
  const out = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', shared.copy('node', process.execPath), '--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: shared.dir,
    env: { PATH: process.env.PATH, HOME: '/tmp' },
  });
  const opened = JSON.parse(out) as { unavailable?: string };
  assert.match(opened.unavailable ?? '', /needs root, and sudo was not found|no cgroup/);
});

// Root here; on a runner, sudo -n. The unit layer may run as neither: then there is nothing to prove.
test('a process that moves itself into a cgroup it made below pr/, and freezes it, is killed with the boundary, and the cgroups are removed', { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, async (t) => {
  const opened = openBoundary(`${process.pid.toString(16).padStart(8, '0')}-5ub0`, null);
  if ('unavailable' in opened) {
    t.skip(opened.unavailable);
    return;
  }
  try {
    const inside = join(opened.path, 'pr');
    const hide = `mkdir -p "${inside}/hide/deeper" && echo $$ > "${inside}/hide/deeper/cgroup.procs" && { [ ! -e "${inside}/hide/cgroup.freeze" ] || echo 1 > "${inside}/hide/cgroup.freeze"; }; exec sleep 300`;
    const [file, args] = opened.wrap('/bin/sh', ['-c', hide]);
    const child = spawn(file, args, { stdio: 'ignore', detached: true });
    child.unref();
    for (let i = 0; i < 100 && readFileSync(`/proc/${child.pid}/cgroup`, 'utf8').indexOf('/pr/hide/deeper') < 0; i++) await sleep(20);
    assert.match(readFileSync(`/proc/${child.pid}/cgroup`, 'utf8'), /\/pr\/hide\/deeper\n/);
    assert.equal(await opened.kill(), 1, 'the hidden process was found and killed');
    await sleep(50);
    assert.equal(existsSync(`/proc/${child.pid}/cgroup`) && !readFileSync(`/proc/${child.pid}/stat`, 'utf8').includes(') Z '), false, 'it is gone');
  } finally {
    await opened.close();
  }
  assert.equal(existsSync(opened.path), false, 'the boundary, the cgroups made inside it too, is removed');
});
