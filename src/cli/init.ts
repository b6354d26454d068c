/**
 * `perfgate init`: writes perfgate.yml and .github/workflows/perf.yml from what the repository
 * has (start script, lockfile, benchmark suites, and the routes that answer when the service is
 * started once). It asks nothing, so it runs the same in a terminal and in CI, and it never
 * overwrites a file: an existing one is kept and what init would have written is printed.
 */
import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseConfigText, resolveConfig } from '../config/load.js';
import type { OptionValues } from '../config/options.js';
import type { PerfgateConfig } from '../config/types.js';
import { DURATION_HINT, DURATION_PATTERN, parseDurationMs } from '../config/units.js';
import { scrubEnv, secretsFrom } from '../engine/process/env.js';
import { PerfgateError, ServiceError } from '../engine/errors.js';
import { estimateRun, formatMs } from '../engine/estimate.js';
import { repositoryRoot } from '../engine/workspace/trees.js';
import { isFailing2xx, quoteAnswer, type RouteAnswer, StartOnceError } from '../engine/service/probe.js';
import { type InitConfig, type Noted, renderConfig, type ScenarioEntry } from '../init/config-text.js';
import { DATABASE_NAMES, detectProject, type ProjectFacts } from '../init/detect.js';
import {
  type AskedRoute,
  HEALTH_PATHS,
  MAX_ASKED_ROUTES,
  type ProbeAnswer,
  type ProbeFindings,
  type ProbePlan,
  PROBE_PATHS,
  probeService,
} from '../init/probe.js';
import { filledNote, READABLE_FRAMEWORKS, type RouteRequest, SAMPLE_PARAMETER } from '../init/routes.js';
import { DEFAULT_TIMEOUT_MINUTES, renderWorkflow } from '../init/workflow.js';

export const CONFIG_PATH = 'perfgate.yml';
export const WORKFLOW_PATH = '.github/workflows/perf.yml';
/** How long the probe waits for the service to listen, unless --ready-timeout says otherwise. */
const PROBE_TIMEOUT_MS = 20_000;
/** The settings init writes into perfgate.yml; the others are edited in the file afterwards. */
export const INIT_SETTINGS = ['start', 'working-directory', 'ready-path', 'ready-timeout', 'scenarios', 'benchmarks'] as const;

export interface InitIo {
  stdout: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface InitRequest {
  settings: OptionValues;
  /** Start the service once and GET the usual paths (off: --no-probe). */
  probe: boolean;
}

const is2xx = (status: number) => status >= 200 && status < 300;
/** An answer a scenario can be measured on: a 2xx whose body does not say it failed. */
const answeredWell = (answer: RouteAnswer) => answer.status !== null && is2xx(answer.status) && answer.failure === null;
const list = (value: string | string[] | undefined): string[] => (Array.isArray(value) ? value : value ? [value] : []).map((v) => v.trim()).filter(Boolean);

export async function runInit(request: InitRequest, io: InitIo): Promise<void> {
  const { settings } = request;
  const root = await repositoryRoot(io.cwd);
  const dir = settings['working-directory'] ? resolve(root, settings['working-directory'] as string) : realpathSync(io.cwd);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new PerfgateError(`--working-directory: ${dir} is not a directory of the repository ${root}.`);
  }
  const cwd = relative(root, dir).split('\\').join('/') || '.';
  if (cwd.startsWith('..')) throw new PerfgateError(`${dir} is outside the repository ${root}: run perfgate init inside it.`);
  const readyTimeout = settings['ready-timeout'] as string | undefined;
  if (readyTimeout !== undefined && !DURATION_PATTERN.test(readyTimeout.trim())) {
    throw new PerfgateError(`--ready-timeout: "${readyTimeout}" is not a duration; ${DURATION_HINT}.`);
  }
  const facts = await detectProject(root, dir);
  // Printed as it goes: the routes init will ask are on the screen before the first request.
  const say = (...lines: string[]) => io.stdout.write(`${lines.join('\n')}\n`);
  say(`perfgate init in ${root}${cwd === '.' ? '' : ` (service in ${cwd})`}`, '');

  const start: Noted<string> | undefined = settings.start
    ? { value: (settings.start as string).trim(), note: 'from --start' }
    : facts.start
      ? { value: facts.start.command, note: facts.start.from }
      : undefined;
  const givenBenchmarks = list(settings.benchmarks);
  const benchmarkGlobs = givenBenchmarks.length ? givenBenchmarks : facts.benchmarkGlobs;
  if (!start && benchmarkGlobs.length === 0) {
    throw new PerfgateError(
      `init found no command that starts the service in ${dir}: package.json has no "start" script, no "main" file, and there is no server.js or index.js. ` +
        'Pass the command: npx perfgate init --start "node src/server.js" (it is run through a shell in the service directory).',
    );
  }
  say(
    `  service     ${start ? `${start.value}   (${start.note})` : 'none found: micro-benchmarks only (--start adds a service)'}`,
    `  install     ${describeInstall(facts)}`,
    ...describeDatabases(facts),
    `  benchmarks  ${describeBenchmarks(facts, benchmarkGlobs, givenBenchmarks.length > 0)}`,
  );

  const readyFlag = settings['ready-path'] as string | undefined;
  let findings: ProbeFindings | null = null;
  if (start && request.probe) {
    const timeoutMs = readyTimeout ? parseDurationMs(readyTimeout.trim()) : PROBE_TIMEOUT_MS;
    findings = await probe({ start, dir, cwd, env: scrubEnv(io.env, secretsFrom(io.env)), timeoutMs, readyFlag, facts }, say);
  } else if (start) {
    say('  probe       skipped (--no-probe): nothing was started or asked, and the scenario below is a guess');
  }
  const answers = findings?.answers ?? null;

  const readyPath = readyPathOf(readyFlag, answers);
  const scenarios = start ? scenariosOf(list(settings.scenarios), answers, findings, readyPath.readyPath?.value ?? null) : { entries: [] };
  const drivers = facts.databases.servers.flatMap((s) => s.drivers);
  const config: InitConfig = {
    ...(start && { start }),
    cwd,
    ...(start &&
      facts.packageManager && {
        install: `${facts.packageManager.install}${facts.ignoredLockfiles.length ? `: ${facts.ignoredLockfiles.join(' and ')} ignored by git` : ''}`,
      }),
    ...(start && drivers.length > 0 && { databaseDrivers: drivers }),
    ...readyPath,
    ...(readyTimeout && { readyTimeout: readyTimeout.trim() }),
    scenarios: scenarios.entries,
    ...(scenarios.note && { scenariosNote: scenarios.note }),
    ...(scenarios.after && { scenariosAfter: scenarios.after }),
    ...(benchmarkGlobs.length > 0 && {
      benchmarks: { value: benchmarkGlobs, note: benchmarkNote(facts, givenBenchmarks.length > 0) },
    }),
    schemaPath: facts.schemaPath,
  };
  const configText = renderConfig(config);
  // What init writes must load: the same loader and validation as every run.
  const loaded = resolveConfig({ document: parseConfigText(configText, CONFIG_PATH), source: CONFIG_PATH });
  const workflowText = renderWorkflow({
    packageManager: facts.packageManager?.name ?? null,
    nodeVersionFile: facts.nodeVersionFile,
    timeoutMinutes: timeoutMinutes(loaded),
    databases: facts.databases,
  });
  const out: string[] = [''];
  const kept = writeFiles(root, [
    [CONFIG_PATH, configText, `(${summarise(loaded)})`],
    [WORKFLOW_PATH, workflowText, '(measure job without a write token, comment job in report mode)'],
  ], out);
  out.push(...checkLines({ start: Boolean(start), probed: request.probe, givenScenarios: list(settings.scenarios).length > 0, config, scenarios, findings }));
  out.push(
    '',
    "next   npx perfgate plan            checks the configuration and asks each scenario's route, then prints the plan and its estimated time",
    '       npx perfgate compare         measures your work tree against the default branch',
    `       commit ${[CONFIG_PATH, WORKFLOW_PATH].filter((p) => !kept.some(([k]) => k === p)).join(' and ') || 'your files'}; pull requests then get the gate and its comment`,
  );
  for (const [path, text] of kept) {
    out.push('', `--- ${path} as init would write it (merge what you need, or remove the file and run perfgate init again) ---`, text.trimEnd());
  }
  say(...out);
}

interface ProbeOptions {
  start: Noted<string>;
  dir: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  readyFlag: string | undefined;
  facts: ProjectFacts;
}

/** Starts the service once, prints the routes it will ask and skip before asking, then each answer as it comes. */
async function probe(options: ProbeOptions, say: (...lines: string[]) => void): Promise<ProbeFindings> {
  const { start, readyFlag, facts } = options;
  const paths = [...new Set([...(readyFlag ? [readyFlag] : []), ...PROBE_PATHS])];
  let width = 0;
  let first = true;
  try {
    return await probeService(
      { start: start.value, dir: options.dir, cwd: options.cwd, env: options.env, timeoutMs: options.timeoutMs, paths },
      {
        planned(plan) {
          say(...describePlan(plan));
          width = Math.max(0, ...[...plan.paths, ...plan.reads.map((r) => r.path)].map((p) => p.length));
        },
        answered(path, answer) {
          const failing = isFailing2xx(answer) ? `   ← its body says it failed (${answer.failure})` : '';
          say(`${first ? '  answers     ' : ' '.repeat(14)}GET ${path.padEnd(width)}  ${quoteAnswer(answer)}${failing}`);
          first = false;
        },
      },
    );
  } catch (e) {
    if (!(e instanceof StartOnceError)) throw e;
    const install = facts.packageManager ? ` install the dependencies first (${facts.packageManager.install}),` : '';
    throw new ServiceError(
      `init started the service to find its routes${start.note.startsWith('from --') ? '' : ` (${start.note})`}: ${e.reason} ` +
        `Fix the start command (--start "<command>"),${install} give it longer (--ready-timeout 60s), ` +
        'or write the files without starting it (--no-probe). Nothing was written.',
      e.logTail,
    );
  }
}

/** Writes each file that does not exist yet; returns those kept, with the text init would have written. */
function writeFiles(root: string, files: [string, string, string][], out: string[]): [string, string][] {
  const kept: [string, string][] = [];
  for (const [path, text, note] of files) {
    const target = join(root, path);
    if (existsSync(target)) {
      kept.push([path, text]);
      out.push(`kept   ${path}: it exists, and init never overwrites a file (what it would write is printed below)`);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: 'wx' });
    out.push(`wrote  ${path}   ${note}`);
  }
  return kept;
}

interface CheckInput {
  start: boolean;
  probed: boolean;
  givenScenarios: boolean;
  config: InitConfig;
  scenarios: Scenarios;
  findings: ProbeFindings | null;
}

/** What the user must look at before measuring: routes that answered an error, or no route that answered. */
function checkLines({ start, probed, givenScenarios, config, scenarios, findings }: CheckInput): string[] {
  if (start && !probed && !givenScenarios) return ['', 'check  the scenario GET / was not tried: make sure it answers 2xx, or list your routes under scenarios.'];
  if (givenScenarios) return [];
  if (scenarios.broken?.length) {
    const { broken } = scenarios;
    const measured = config.scenarios.some((e) => !e.commented && broken.some((b) => e.value === `GET ${b.request.path}`));
    const lines = [
      '',
      `check  ${broken.length === 1 ? 'a route' : `${broken.length} routes`} answered an error when init asked; ${CONFIG_PATH} marks ${broken.length === 1 ? 'it' : 'them'} with the answer` +
        (measured ? ' (the first one measured, as nothing else answered well: perfgate plan stops on it until it is fixed):' : ', commented out:'),
    ];
    for (const { request: route, answer } of broken) {
      lines.push(`       GET ${route.path}${route.path === route.route ? '' : ` (${route.route})`}: ${describeProblem(answer)}`);
    }
    if (broken.some((b) => isFailing2xx(b.answer))) {
      lines.push('       a 2xx whose body says it failed measures the error path: give the service what it needs first (its database: service.setup and env, docs/databases.md)');
    }
    if (broken.some((b) => !isFailing2xx(b.answer))) {
      const filled = broken.some((b) => b.request.filled.length > 0) ? ` (a value that exists instead of the ${SAMPLE_PARAMETER} init filled in)` : '';
      lines.push(`       give it a path that answers${filled}, or declare the status it answers with expect:`);
    }
    return lines;
  }
  if (findings && !findings.answers.some((a) => answeredWell(a.answer)) && !findings.asked.some((a) => answeredWell(a.answer))) {
    return ['', `check  none of ${PROBE_PATHS.join(', ')} answered 2xx: put routes of yours under scenarios in ${CONFIG_PATH}.`];
  }
  return [];
}

/** What an answer that is not measured said: its status and body, and what the body says went wrong. */
function describeProblem(answer: RouteAnswer): string {
  return isFailing2xx(answer) ? `${answer.description}, a body that says it failed (${answer.failure})` : answer.description;
}

function describeInstall(facts: ProjectFacts): string {
  const { packageManager, ignoredLockfiles } = facts;
  if (!packageManager) return ignoredLockfiles.length ? `nothing to install (${ignoredLockfiles.join(', ')} ignored by git)` : 'nothing to install';
  if (ignoredLockfiles.length) {
    return `${packageManager.install}   (${ignoredLockfiles.join(' and ')} ${ignoredLockfiles.length === 1 ? 'is' : 'are'} ignored by git, so a checkout has none; commit it for an install that is the same every run)`;
  }
  return `${packageManager.install}   (${packageManager.lockfile ?? 'package.json, no lockfile'})`;
}

function describeDatabases(facts: ProjectFacts): string[] {
  const { servers, unknown } = facts.databases;
  const lines: string[] = [];
  if (servers.length) {
    const found = servers.map((s) => `${s.drivers.join(', ')} (${DATABASE_NAMES[s.kind]})`).join(', ');
    lines.push(`  database    ${found}: the workflow runs it as a service container and sets its variables; give each side its own database with service.setup (docs/databases.md)`);
  }
  if (unknown.length) {
    lines.push(`  database    ${unknown.join(', ')} without a driver init knows: add your database to the workflow as a service container (example-workflows/perf-postgres.yml, docs/databases.md)`);
  }
  return lines;
}

function describeBenchmarks(facts: ProjectFacts, globs: string[], given: boolean): string {
  if (given) return `${globs.join(', ')}   (from --benchmarks)`;
  if (facts.suites.length === 0) return 'no benchmark.js, tinybench, mitata or vitest bench suite found';
  const files = facts.suites.map((s) => `${s.path} (${s.library})`).join(', ');
  return `${globs.join(', ')}   (${facts.suites.length} suite${facts.suites.length === 1 ? '' : 's'}: ${files})`;
}

function benchmarkNote(facts: ProjectFacts, given: boolean): string {
  if (given) return 'micro-benchmarks, from --benchmarks';
  const libraries = [...new Set(facts.suites.map((s) => s.library))].join(', ');
  return `micro-benchmarks: the ${libraries} suite${facts.suites.length === 1 ? '' : 's'} found (${facts.suites.length} file${facts.suites.length === 1 ? '' : 's'}), run on base and head`;
}

function readyPathOf(flag: string | undefined, answers: ProbeAnswer[] | null): Pick<InitConfig, 'readyPath'> {
  if (flag) return { readyPath: { value: flag, note: 'from --ready-path' } };
  const health = answers?.find((a) => (HEALTH_PATHS as readonly string[]).includes(a.path) && answeredWell(a.answer));
  return health ? { readyPath: { value: health.path, note: `answered ${health.status} when init started the service` } } : {};
}

/** Scenarios init measures at most: each adds the same time to every run (scenarioCost), so the first run stays short. */
export const MAX_SCENARIOS = 3;

/** What one more scenario adds to a run at the default load, for the note on the routes left out. */
function scenarioCost(): string {
  const run = (n: number) =>
    estimateRun(resolveConfig({ document: { service: { start: 'x' }, scenarios: Array.from({ length: n }, (_, i) => `GET /${i}`) } })).totalMs;
  return formatMs(run(2) - run(1));
}

export interface Scenarios {
  entries: ScenarioEntry[];
  note?: string;
  after?: string[];
  /** Routes that answered non-2xx when init asked them. */
  broken?: AskedRoute[];
}

export function scenariosOf(given: string[], answers: ProbeAnswer[] | null, findings: ProbeFindings | null, readyPath: string | null): Scenarios {
  if (given.length) return { entries: given.map((value) => ({ value, note: 'from --scenarios' })) };
  if (answers === null) return { entries: [{ value: 'GET /', note: 'a guess (not probed): make sure it answers 2xx' }] };
  // A health route is the ready check, not what users call: it is measured only when the app has no other route to measure.
  const health = new Set<string>([...HEALTH_PATHS, ...(readyPath ? [readyPath] : [])]);
  const asked = (findings?.asked ?? []).filter((a) => !health.has(a.request.path));
  const writes = findings?.sorted.writes ?? [];
  if (asked.length === 0 && writes.length === 0) return { entries: fromProbedPaths(answers) };

  const framework = findings?.routes?.frameworks.join(', ') || 'the framework';
  const answered = asked.filter((a) => answeredWell(a.answer));
  const broken = asked.filter((a) => !answeredWell(a.answer));
  const measured = answered.slice(0, MAX_SCENARIOS);
  const entries: ScenarioEntry[] = measured.map(({ request, answer }) => ({
    value: `GET ${request.path}`,
    note: [`answered ${answer.status} when init asked`, filledNote(request) && `${filledNote(request)}: a value of yours measures better`].filter(Boolean).join('; '),
  }));
  if (entries.length === 0) {
    // No GET route of the app answered 2xx, and the file needs a scenario to load: `/` when it
    // answered; else the first route as it answered, marked, so that plan stops on it until it is
    // fixed (measuring the health route instead would pass plan and measure nothing of the app).
    const root = answers.find((a) => a.path === '/' && answeredWell(a.answer));
    if (root) entries.push({ value: 'GET /', note: `answered ${root.status} when init started the service` });
    else if (broken[0]) entries.push(brokenEntry(broken[0], false));
    else entries.push(...fromProbedPaths(answers));
  }
  for (const { request, answer } of answered.slice(MAX_SCENARIOS)) {
    entries.push({
      value: `GET ${request.path}`,
      commented: true,
      note: `answered ${answer.status}; not measured: init measures the first ${MAX_SCENARIOS} routes that answered, and each scenario adds ~${scenarioCost()} to every run`,
    });
  }
  for (const route of broken) if (!entries.some((e) => !e.commented && e.value === `GET ${route.request.path}`)) entries.push(brokenEntry(route, true));
  for (const request of writes) entries.push(writeEntry(request));
  const after: string[] = [];
  const unasked = (findings?.sorted.reads.length ?? 0) - (findings?.asked.length ?? 0);
  if (unasked > 0) after.push(`${unasked} more GET route${unasked === 1 ? '' : 's'} not asked: init asks the first ${MAX_ASKED_ROUTES} ${framework} registered`);
  // Never written, not even commented out: uncommented, each would run thousands of times on both sides.
  const writingGets = findings?.sorted.skipped.filter((s) => s.writes) ?? [];
  if (writingGets.length) {
    after.push(`not asked and not written, as their path or handler says they change data: ${writingGets.map((s) => s.route).join(', ')}`);
  }
  return {
    entries,
    note: `routes ${framework} registered, each GET asked once when init started the service; commented-out lines need you first`,
    ...(after.length && { after }),
    broken,
  };
}

/** Without the framework's routes: the probed path that answered, `/` first (a route of the app measures more than a health check). */
function fromProbedPaths(answers: ProbeAnswer[]): ScenarioEntry[] {
  const answered = answers.filter((a) => answeredWell(a.answer));
  const chosen = answered.find((a) => a.path === '/') ?? answered[0];
  if (!chosen) return [{ value: 'GET /', note: `no probed path answered 2xx (${answers.map((a) => `${a.path} ${a.status || '-'}`).join(', ')}): replace it with a route of yours` }];
  return [{ value: `GET ${chosen.path}`, note: `answered ${chosen.status} when init started the service` }];
}

/** A route that answered non-2xx: what it answered and the two ways to fix it. */
function brokenEntry({ request, answer }: AskedRoute, commented: boolean): ScenarioEntry {
  if (isFailing2xx(answer)) {
    const said = `${answer.description.replace(/^it /, '')}, a body that says it failed (${answer.failure}), when init asked`;
    return { value: `GET ${request.path}`, commented, note: `${said}: give the service what it needs first (its database: docs/databases.md)` };
  }
  const filled = filledNote(request);
  const fix = answer.status
    ? `fix the path${filled ? ` (${filled})` : ''}, or measure it as it answers: { method: GET, path: ${request.path}, expect: [${answer.status}] }`
    : 'fix the path, or the service';
  return { value: `GET ${request.path}`, commented, note: `${answer.description.replace(/^it /, '')} when init asked: ${fix}` };
}

/** A route that changes data: never sent by init, written for the user to give it a body. */
function writeEntry(request: RouteRequest): ScenarioEntry {
  const filled = filledNote(request);
  const body = request.method === 'DELETE' ? '' : ', body: {}';
  const why =
    request.method === 'DELETE'
      ? 'deletes on every request of the load; init sends none'
      : 'needs the body your clients send; init sends no request that changes data';
  return {
    value: `{ method: ${request.method}, path: ${request.path}${body} }`,
    raw: true,
    commented: true,
    note: `${why}${filled ? `; ${filled}` : ''}`,
  };
}

/** What init will ask and what it will not, and why: printed before the first request. */
function describePlan(plan: ProbePlan): string[] {
  const { routes, sorted, paths, reads } = plan;
  const usual = (list: readonly string[]) => list.map((p) => `GET ${p}`).join(', ');
  if (!routes || routes.routes.length === 0) {
    const which = routes?.frameworks.length ? `${routes.frameworks.join(', ')} registered no route` : `no ${READABLE_FRAMEWORKS} routes (plain http, or a framework init cannot read)`;
    return [`  routes      none read: ${which}; init asks only the usual paths, once each: ${usual(paths)}`];
  }
  const unasked = sorted.reads.length - reads.length;
  const skipped = sorted.skipped.length + sorted.writes.length + unasked;
  const lines = [`  routes      ${routes.frameworks.join(', ')}: ${reads.length} to ask (GET, once each), ${skipped} not asked`];
  const rows: [string, string, string][] = [
    ...reads.map((r): [string, string, string] => ['ask ', `GET ${r.path}`, r.path === r.route ? '' : `(${r.route})`]),
    ...sorted.skipped.map((s): [string, string, string] => ['skip', s.route, s.why]),
    ...sorted.writes.map((w): [string, string, string] => [
      'skip',
      `${w.method} ${w.route}`,
      `${w.method} changes data: written commented out, for you to give it ${w.method === 'DELETE' ? 'an id of a row that may go' : 'a body'}`,
    ]),
  ];
  const width = Math.max(...rows.map(([, route]) => route.length));
  for (const [what, route, why] of rows) lines.push(`              ${what}  ${why ? `${route.padEnd(width)}  ${why}` : route}`);
  if (unasked > 0) lines.push(`              skip  ${unasked} more GET route${unasked === 1 ? '' : 's'}: init asks the first ${MAX_ASKED_ROUTES} ${routes.frameworks.join(', ')} registered`);
  const extra = paths.filter((p) => !reads.some((r) => r.path === p));
  if (extra.length) lines.push(`              ask   ${usual(extra)}   (the usual health and root paths)`);
  return lines;
}

function summarise(config: PerfgateConfig): string {
  const scenarios = config.scenarios.length;
  const parts = [`${scenarios} scenario${scenarios === 1 ? '' : 's'}`];
  if (config.benchmarks) parts.push(`benchmarks ${config.benchmarks.files.join(', ')}`);
  return `${parts.join(', ')}; it loads without errors`;
}

/** The measuring job's limit: twice the estimated measurement plus install and build, at least 30 minutes. */
function timeoutMinutes(config: PerfgateConfig): number {
  return Math.max(DEFAULT_TIMEOUT_MINUTES, Math.ceil((2 * estimateRun(config).totalMs) / 60_000) + 10);
}
