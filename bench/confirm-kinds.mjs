#!/usr/bin/env node
// How right the third arm (reverting the culprit) is, per kind of regression, on services written
// for this script, not for the tests: own code (an express catalog that compiles a search regex per
// product), a dependency (a plain http service whose vendored "slugger" package, bumped in
// package.json without a lockfile, rebuilds its character table on every call) and a decoy (a
// report service whose drop is a wait added to its access check, while the profile's new CPU work
// is a small extra formatting step in another function). Each run is `perfgate compare` at the
// defaults (3 blocks of 8 start pairs, a look after each; profile.confirm on, the arm one block of
// 8 start pairs, up to 3) with slices of 500 ms instead of 1 s, to keep a clear drop near a minute. A hit: own code and dependency confirmed, decoy "explains little".
//
//   flock /tmp/perfgate-load.lock node bench/confirm-kinds.mjs [--runs 3] [--only own] [--out docs/calibration/confirm-kinds.jsonl]
// docs/calibration.md has its table ("The culprit's confirmation, preliminary").
// Resumable: one JSON line per run is appended to --out; runs already there are not run again.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const { readResults } = await import('../src/results/io.ts');
const { assessResults } = await import('../src/assess/compare.ts');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'calibration', 'confirm-kinds.jsonl');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, only: { type: 'string' }, out: { type: 'string', default: OUT } } });

const CONFIG = (extra = '') => `service:
  start: node server.js
  ready: { timeout: 10s }
${extra}scenarios: [GET /]
load: { slice: 500ms, warmup: 1s }
profile: { duration: 2s }
`;

const catalog = (search) => `const express = require('express');
const products = Array.from({ length: 300 }, (_, i) => ({ id: i, name: 'product ' + i + ' trail shoe blue', tags: ['run', 'trail', 'c' + (i % 7)] }));
function matching(query) {
${search}
}
const app = express();
app.get('/', (req, res) => res.json(matching(req.query.q || 'trail')));
app.listen(Number(process.env.PORT), () => {});
`;

const slugger = (perCall) => `${perCall ? '' : 'const TABLE = build();\n'}function build() {
  const table = new Map();
  for (let c = 0; c < 4096; c++) table.set(String.fromCharCode(c), /[a-z0-9]/i.test(String.fromCharCode(c)) ? String.fromCharCode(c).toLowerCase() : '-');
  return table;
}
module.exports = function slug(text) {
  const table = ${perCall ? 'build()' : 'TABLE'};
  let out = '';
  for (const ch of text) out += table.get(ch) ?? '-';
  return out;
};
`;

const sluggerPackage = (version, perCall) => ({
  [`vendor/slugger-${version}/package.json`]: JSON.stringify({ name: 'slugger', version, main: 'index.js' }),
  [`vendor/slugger-${version}/index.js`]: slugger(perCall),
});

const titles = `const http = require('node:http');
const slug = require('slugger');
const titles = Array.from({ length: 20 }, (_, i) => 'Release notes ' + i + ': faster starts');
http.createServer((req, res) => res.end(JSON.stringify(titles.map(slug)))).listen(Number(process.env.PORT));
`;

// Installs the slugger version package.json names from vendor/: a dependency pinned in package.json, no lockfile.
const INSTALL = `const { cpSync, readFileSync, rmSync } = require('node:fs');
const version = JSON.parse(readFileSync('package.json', 'utf8')).dependencies.slugger;
rmSync('node_modules/slugger', { recursive: true, force: true });
cpSync('vendor/slugger-' + version, 'node_modules/slugger', { recursive: true });
`;

const report = (check, format) => `const http = require('node:http');
const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, amount: i * 3.7, region: 'r' + (i % 5) }));
async function allowed(req) {
${check}
}
function format(list) {
${format}
}
http.createServer(async (req, res) => {
  if (!(await allowed(req))) return res.writeHead(403).end();
  res.end(format(rows));
}).listen(Number(process.env.PORT));
`;

const KINDS = {
  own: {
    truth: 'confirmed',
    base: { 'server.js': catalog("  const words = query.split(' ');\n  return products.filter((p) => words.every((w) => p.name.includes(w)));") },
    head: { 'server.js': catalog("  return products.filter((p) => query.split(' ').every((w) => new RegExp('\\\\b' + w + '\\\\b', 'i').test(p.name + ' ' + p.tags.join(' '))));") },
    modules: true,
  },
  dependency: {
    truth: 'confirmed',
    base: { 'server.js': titles, 'install.js': INSTALL, 'package.json': JSON.stringify({ name: 'titles', private: true, dependencies: { slugger: '1.0.0' } }), ...sluggerPackage('1.0.0', false), ...sluggerPackage('1.1.0', true) },
    head: { 'package.json': JSON.stringify({ name: 'titles', private: true, dependencies: { slugger: '1.1.0' } }) },
    extra: '  install: node install.js\n',
  },
  decoy: {
    truth: 'explains-little',
    base: { 'server.js': report('  return req.headers["x-user"] !== "blocked";', '  return JSON.stringify(list);') },
    head: {
      'server.js': report(
        '  await new Promise((r) => setTimeout(r, 4));\n  return req.headers["x-user"] !== "blocked";',
        '  const text = JSON.stringify(list);\n  return JSON.stringify(JSON.parse(text));',
      ),
    },
  },
};

function git(dir, ...args) {
  execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
}

function write(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

function makeRepo(kind) {
  const dir = mkdtempSync(join(tmpdir(), `confirm-kinds-${kind.name}-`));
  git(dir, 'init', '--quiet', '--initial-branch=main');
  write(dir, { ...kind.base, 'perfgate.yml': CONFIG(kind.extra ?? ''), '.gitignore': 'node_modules\n.out\n' });
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=b', '-c', 'user.email=b@b.invalid', 'commit', '--quiet', '-m', 'base');
  git(dir, 'checkout', '--quiet', '-b', 'head');
  write(dir, kind.head);
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=b', '-c', 'user.email=b@b.invalid', 'commit', '--quiet', '--allow-empty', '-m', 'head');
  // express from perfgate's own install: no registry needed (a symlink, copied as one into each tree).
  if (kind.modules) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

const done = existsSync(values.out) ? readFileSync(values.out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
/** A stream that keeps what is written to it. */
const sink = () => {
  const chunks = [];
  return { isTTY: false, write: (c) => chunks.push(String(c)) > 0, text: () => chunks.join('') };
};
for (const [name, kind] of Object.entries(KINDS)) {
  if (values.only && !name.includes(values.only)) continue;
  for (let run = 0; run < Number(values.runs); run++) {
    if (done.some((d) => d.kind === name && d.run === run)) continue;
    const dir = makeRepo({ ...kind, name });
    const started = Date.now();
    const [stdout, stderr] = [sink(), sink()];
    const code = await main(['compare', '--base', 'main', '--out', join(dir, '.out'), '--seed', String(100 + run)], { stdout, stderr, env: process.env, cwd: dir });
    if (!existsSync(join(dir, '.out', 'results.json'))) throw new Error(`${name}: no results.json (exit ${code}): ${stderr.text().slice(-2000)}`);
    const results = readResults(join(dir, '.out', 'results.json'));
    const subject = assessResults(results).subjects.find((s) => s.type === 'scenario');
    const found = subject?.type === 'scenario' ? subject.confirmation : null;
    const record = results.confirmations?.[0];
    const row = {
      kind: name,
      run,
      at: new Date().toISOString(),
      exit: code,
      headline: stdout.text().split('\n').slice(0, 3).join(' / '),
      culprit: found ? (found.culprit.package ?? found.culprit.name) : null,
      status: found?.status ?? 'none',
      reason: found?.reason ?? null,
      points: found?.points ?? null,
      givenBack: found?.givenBack ?? null,
      blocks: record?.blocks ?? null,
      armMs: record?.wallMs ?? null,
      runMs: Date.now() - started,
      hit: found?.status === kind.truth,
    };
    appendFileSync(values.out, `${JSON.stringify(row)}\n`);
    done.push(row);
    console.error(row.headline);
    console.error(`${name} #${run}: ${row.status} (${row.culprit}) ${row.givenBack?.estimate?.toFixed(1)} of ${row.points?.toFixed(1)} points, ${row.blocks} block(s), arm ${row.armMs} ms`);
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log('| kind | right | share given back (each run) | blocks | arm wall time |\n| :-- | --: | :-- | :-- | :-- |');
for (const [name, kind] of Object.entries(KINDS)) {
  const rows = done.filter((d) => d.kind === name);
  if (rows.length === 0) continue;
  const share = rows.map((r) => (r.givenBack && r.points ? `${Math.round((100 * r.givenBack.estimate) / r.points)}%` : r.status)).join(', ');
  console.log(`| ${name} (${kind.truth}) | ${rows.filter((r) => r.hit).length}/${rows.length} | ${share} | ${rows.map((r) => r.blocks).join(', ')} | ${rows.map((r) => `${((r.armMs ?? 0) / 1000).toFixed(1)} s`).join(', ')} |`);
}
