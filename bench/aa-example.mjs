#!/usr/bin/env node
// A/A runs of the example service: base and head are the same code (head only touches a
// README), run through the bundled CLI at default settings. Every failing decision is a
// false fail. Prints one line per run and a summary; `--runs N` (default 10), `--out FILE`
// appends the markdown table. Extra args after `--` go to `perfgate compare`.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '10' }, out: { type: 'string' } } });
const runs = Number(values.runs);

const repo = mkdtempSync(join(tmpdir(), 'perfgate-aa-'));
const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@perfgate.invalid', ...args], { cwd: repo });
cpSync(join(root, 'examples/service'), repo, { recursive: true });
git('init', '--quiet', '--initial-branch=main');
git('add', '-A');
git('commit', '--quiet', '-m', 'base');
git('checkout', '--quiet', '-b', 'same');
writeFileSync(join(repo, 'README.md'), 'A/A: no code change\n');
git('add', '-A');
git('commit', '--quiet', '-m', 'head: docs only');

const rows = [];
for (let i = 1; i <= runs; i++) {
  const json = join(repo, `run-${i}.json`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'compare', '--base', 'main', '--json', json, '--quiet', ...positionals], {
    cwd: repo,
    encoding: 'utf8',
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (run.status === 2) {
    console.log(`run ${i}: error\n${run.stderr}`);
    rows.push({ i, seconds, decision: 'error', verdicts: run.stderr.trim().split('\n').pop() });
    continue;
  }
  const { assessResults } = await import(join(root, 'bench', 'analyze.mjs'));
  const analysis = assessResults(JSON.parse(readFileSync(json, 'utf8')));
  const verdicts = analysis.comparisons
    .filter((c) => c.gated)
    .map((c) => `${c.scenario} ${c.metric} ${(100 * c.change).toFixed(1)}% ${c.verdict}`)
    .join('; ');
  rows.push({ i, seconds, decision: analysis.decision, verdicts });
  console.log(`run ${i}: ${analysis.decision} in ${seconds} s — ${verdicts}`);
}
const fails = rows.filter((r) => r.decision === 'fail').length;
const summary = `${fails} of ${rows.length} A/A runs failed the gate (false fails); median wall time ${rows.map((r) => r.seconds).sort((a, b) => a - b)[Math.floor(rows.length / 2)]} s`;
console.log(summary);
if (values.out) {
  const table = ['| run | decision | wall time | gated verdicts |', '| --: | :-- | --: | :-- |', ...rows.map((r) => `| ${r.i} | ${r.decision} | ${r.seconds} s | ${r.verdicts} |`)];
  appendFileSync(values.out, `\n${table.join('\n')}\n\n${summary}\n`);
}
rmSync(repo, { recursive: true, force: true });
