/**
 * Where perfgate finds the cgroup hierarchy, and what it says where it cannot make a boundary.
 * The boundary itself is proven end to end by test/e2e/hostile.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { findCgroupMount } from '../../src/engine/boundary.js';

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

// Run as another user, a process with neither root nor sudo gets no boundary and a reason.
const SCRIPT = `
import { openBoundary } from './src/engine/boundary.ts';
process.stdout.write(JSON.stringify(openBoundary('00000000-0000-4000-8000-000000000000', null)));
`;

test('without root and without sudo there is no boundary, and the reason says what it needs', { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, () => {
  const out = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/tmp' },
  });
  const opened = JSON.parse(out) as { unavailable?: string };
  assert.match(opened.unavailable ?? '', /needs root, and sudo was not found|no cgroup/);
});
