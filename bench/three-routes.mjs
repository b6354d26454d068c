#!/usr/bin/env node
// The timing check of issue 27 ("three routes in five minutes"): a repository with the
// three-route Express service (bench/services/three-routes) in three commits, for a timed
// `perfgate compare` with every default, install included. A benchmark: run it on a quiet machine.
//
//   node bench/three-routes.mjs [--dir DIR] [--extra 0.43] [--one-route]
//
// --one-route: the same service with GET /users/42 its only scenario (a one-route pull request).
//
// Commits: `base`; `regress`, where GET /users/:id does `extra` more CPU work per request
// (0.43 of the route's 60 µs: about −30% throughput where the route costs that); `same`, which
// changes only README.md. It prints the commands to time; each run's wall time is the `time`
// line, its results.json says where the time went (install logs, looks taken).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { dir: { type: 'string' }, extra: { type: 'string', default: '0.43' }, 'one-route': { type: 'boolean', default: false } } });
const dir = values.dir ? resolve(values.dir) : mkdtempSync(join(tmpdir(), 'three-routes-'));
const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@perfgate.invalid', ...args], { cwd: dir, stdio: 'pipe' });

cpSync(join(root, 'bench', 'services', 'three-routes'), dir, { recursive: true });
cpSync(join(root, 'bench', 'services', 'work.js'), join(dir, 'work.js'));
writeFileSync(join(dir, 'work.json'), '{"extra": 0}\n');
writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
writeFileSync(join(dir, 'README.md'), 'Three routes.\n');
if (values['one-route']) writeFileSync(join(dir, 'perfgate.yml'), 'service:\n  start: node server.js\nscenarios:\n  - GET /users/42\n');
git('init', '--quiet', '--initial-branch=base');
git('add', '-A');
git('commit', '--quiet', '-m', 'base');
git('checkout', '--quiet', '-b', 'regress');
writeFileSync(join(dir, 'work.json'), `{"extra": ${Number(values.extra)}}\n`);
git('commit', '--quiet', '-am', `GET /users/:id does ${values.extra} more work`);
git('checkout', '--quiet', '-b', 'same', 'base');
writeFileSync(join(dir, 'README.md'), 'Three routes, one README line more.\n');
git('commit', '--quiet', '-am', 'README only');
git('checkout', '--quiet', 'base');

const cli = join(root, 'dist', 'cli.js');
console.log(`repository: ${dir} (branches base, regress, same)
time (cd ${dir} && node ${cli} compare --base base --head regress --out ${dir}-regress)   # expect exit 1, GET /users/42 throughput
time (cd ${dir} && node ${cli} compare --base base --head same --out ${dir}-same)         # expect exit 0
node ${cli} plan --config perfgate.yml                                                     # (in ${dir}) the estimate`);
