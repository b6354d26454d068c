#!/usr/bin/env node
// How much wider a comparison with a stored baseline is than a same-runner A/B: records of one
// bench service taken in separate runs, at least an hour apart, compared with each other
// (an unpaired A/A: the same code, so every verdict other than unchanged and every shift is what
// the runs differ by), against the paired interval each run gets on its own (each record measures
// the commit on both of the engine's sides: an A/A paired by start). A benchmark, not a test.
//
//   node bench/cross-run.mjs record [--service fastify] [--out FILE] [--count 1] [--every 1h]
//                                   [--cli dist/cli.js] [--tiny]
//   node bench/cross-run.mjs report [--in FILE] [--service fastify] [--min-gap 1h] [--cli dist/cli.js]
//
// `record` runs `perfgate record` (the bundled CLI, profiles off, every block measured) on the
// service (bench/services/<service>) and appends one JSON line with its whole results.json to
// FILE; with --count N it records until FILE holds N records of the service, waiting --every
// between them, so it resumes where it stopped (run it from cron, or leave it running).
// `report` sets every later record of the service against every earlier one taken --min-gap or
// more before it: `perfgate report` of the later with the earlier as its stored baseline gives the
// unpaired change and 95% interval per gated metric; each record's own paired A/A gives the
// same-run interval. It prints both widths, their ratio, and the shifts between runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DEFAULT_FILE = join(root, 'docs', 'calibration', 'cross-run.jsonl');
/** Small enough for a smoke run of the harness itself (seconds, not minutes). */
const TINY = { pairs: 6, blocks: 1, instances: 6, slice: '200ms', warmup: '300ms' };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    service: { type: 'string', default: 'fastify' },
    out: { type: 'string', default: DEFAULT_FILE },
    in: { type: 'string', default: DEFAULT_FILE },
    count: { type: 'string', default: '1' },
    every: { type: 'string', default: '1h' },
    'min-gap': { type: 'string', default: '1h' },
    cli: { type: 'string', default: join(root, 'dist', 'cli.js') },
    tiny: { type: 'boolean', default: false },
  },
});

/** "90m", "1h", "30s" → milliseconds. */
function duration(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration such as 30s, 90m or 1h`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2]];
}

function readRecords(file, service) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .filter((line) => line.service === service);
}

/** One commit of the service in a scratch repository: perfgate records it. */
function makeRepo(service, tiny) {
  const repo = mkdtempSync(join(tmpdir(), `perfgate-cross-run-${service}-`));
  const git = (...args) => execFileSync('git', ['-c', 'user.name=cross-run', '-c', 'user.email=cross-run@perfgate.invalid', ...args], { cwd: repo });
  cpSync(join(root, 'bench', 'services', service), repo, { recursive: true });
  cpSync(join(root, 'bench', 'services', 'work.js'), join(repo, 'work.js'));
  const load = { ...(tiny ? TINY : {}), 'early-stop': false };
  writeFileSync(join(repo, 'perfgate.yml'), ['service:', '  start: node server.js', 'scenarios:', '  - GET /json', `load: ${JSON.stringify(load)}`, 'profile: false', ''].join('\n'));
  writeFileSync(join(repo, 'work.json'), '{"extra": 0}\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'record');
  return repo;
}

async function record() {
  const cli = resolve(values.cli);
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run bundle\` first.`);
  const file = resolve(values.out);
  mkdirSync(dirname(file), { recursive: true });
  const wanted = Number(values.count);
  const every = duration(values.every);
  const repo = makeRepo(values.service, values.tiny);
  try {
    for (;;) {
      const done = readRecords(file, values.service);
      if (done.length >= wanted) break;
      const last = done.at(-1);
      const wait = last ? Date.parse(last.recordedAt) + every - Date.now() : 0;
      if (wait > 0) {
        console.log(`${done.length}/${wanted} records of ${values.service}; the next in ${Math.round(wait / 60_000)} min`);
        await new Promise((r) => setTimeout(r, wait));
      }
      const json = join(repo, 'record.json');
      const started = Date.now();
      const run = spawnSync(process.execPath, [cli, 'record', '--json', json, '--quiet'], { cwd: repo, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`perfgate record failed (${run.status}):\n${run.stderr}`);
      const results = JSON.parse(readFileSync(json, 'utf8'));
      appendFileSync(file, `${JSON.stringify({ service: values.service, recordedAt: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), results })}\n`);
      console.log(`recorded ${values.service} (${done.length + 1}/${wanted}) in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** `perfgate report --verdicts` of a results file: the gated HTTP entries. */
function verdictsOf(cli, results, scratch) {
  const path = join(scratch, 'results.json');
  const verdicts = join(scratch, 'verdicts.json');
  writeFileSync(path, JSON.stringify(results));
  const run = spawnSync(process.execPath, [cli, 'report', path, '--verdicts', verdicts, '--no-color'], { encoding: 'utf8' });
  if (run.status === 2) throw new Error(`perfgate report failed:\n${run.stderr}`);
  return JSON.parse(readFileSync(verdicts, 'utf8')).metrics.filter((m) => m.kind === 'http' && m.gated);
}

/** An interval's width; NaN when a bound is unknown (too few starts). */
const width = (entry) => (entry.interval?.[0] == null || entry.interval[1] == null ? Number.NaN : entry.interval[1] - entry.interval[0]);
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (x) => `${(100 * x).toFixed(2)}%`;

function report() {
  const cli = resolve(values.cli);
  const records = readRecords(resolve(values.in), values.service);
  const gap = duration(values['min-gap']);
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-cross-run-report-'));
  try {
    // Same run: each record's own paired A/A.
    const paired = new Map();
    for (const r of records) for (const e of verdictsOf(cli, r.results, scratch)) paired.set(e.metric, [...(paired.get(e.metric) ?? []), width(e)]);
    const rows = [];
    for (let j = 0; j < records.length; j++) {
      for (let i = 0; i < j; i++) {
        const apart = Date.parse(records[j].recordedAt) - Date.parse(records[i].recordedAt);
        if (apart < gap) continue;
        const earlier = records[i].results;
        const baseline = {
          sha: earlier.sides.head.sha,
          runId: null,
          recordedAt: earlier.startedAt,
          toolVersion: earlier.tool.version,
          environment: earlier.environment,
          scenarios: earlier.scenarios,
        };
        for (const e of verdictsOf(cli, { ...records[j].results, baseline }, scratch)) {
          rows.push({ pair: `${i + 1}→${j + 1}`, hours: apart / 3_600_000, metric: e.metric, estimate: e.estimate, width: width(e), verdict: e.verdict });
        }
      }
    }
    console.log(`${records.length} records of ${values.service}; ${new Set(rows.map((r) => r.pair)).size} pairs of them at least ${values['min-gap']} apart\n`);
    console.log('| metric | same-run paired 95% width (median) | cross-run unpaired 95% width (median) | ratio | cross-run A/A shifts | verdicts |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [metric, widths] of paired) {
      const cross = rows.filter((r) => r.metric === metric);
      const counts = new Map();
      for (const r of cross) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
      const tally = [...counts].map(([v, n]) => `${n} ${v}`).join(', ');
      const unpaired = median(cross.map((r) => r.width));
      console.log(
        `| ${metric} | ${pct(median(widths))} | ${cross.length ? pct(unpaired) : '—'} | ${cross.length ? (unpaired / median(widths)).toFixed(2) : '—'} | ${cross.map((r) => pct(r.estimate)).join(', ') || '—'} | ${tally || '—'} |`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const command = positionals[0];
if (command === 'record') await record();
else if (command === 'report') report();
else {
  console.error('usage: node bench/cross-run.mjs record|report [options] (see the header of this file)');
  process.exit(2);
}
