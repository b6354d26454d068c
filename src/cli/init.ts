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
import { StartOnceError } from '../engine/service/probe.js';
import { type InitConfig, type Noted, renderConfig, type ScenarioEntry } from '../init/config-text.js';
import { detectProject, type ProjectFacts } from '../init/detect.js';
import { type AskedRoute, HEALTH_PATHS, MAX_ASKED_ROUTES, type ProbeAnswer, type ProbeFindings, PROBE_PATHS, probeService } from '../init/probe.js';
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
  const facts = detectProject(root, dir);
  const out: string[] = [`perfgate init in ${root}${cwd === '.' ? '' : ` (service in ${cwd})`}`, ''];

  const start: Noted<string> | undefined = settings.start
    ? { value: (settings.start as string).trim(), note: 'from --start' }
    : facts.start
      ? { value: facts.start.command, note: facts.start.from }
      : undefined;
  const benchmarkGlobs = list(settings.benchmarks).length ? list(settings.benchmarks) : facts.benchmarkGlobs;
  if (!start && benchmarkGlobs.length === 0) {
    throw new PerfgateError(
      `init found no command that starts the service in ${dir}: package.json has no "start" script, no "main" file, and there is no server.js or index.js. ` +
        'Pass the command: npx perfgate init --start "node src/server.js" (it is run through a shell in the service directory).',
    );
  }
  out.push(`  service     ${start ? `${start.value}   (${start.note})` : 'none found: micro-benchmarks only (--start adds a service)'}`);
  out.push(`  install     ${facts.packageManager ? `${facts.packageManager.install}   (${facts.packageManager.lockfile ?? 'package.json, no lockfile'})` : 'nothing to install'}`);
  out.push(`  benchmarks  ${describeBenchmarks(facts, benchmarkGlobs, list(settings.benchmarks).length > 0)}`);

  const readyTimeout = settings['ready-timeout'] as string | undefined;
  if (readyTimeout !== undefined && !DURATION_PATTERN.test(readyTimeout.trim())) {
    throw new PerfgateError(`--ready-timeout: "${readyTimeout}" is not a duration; ${DURATION_HINT}.`);
  }
  const readyFlag = settings['ready-path'] as string | undefined;
  let answers: ProbeAnswer[] | null = null;
  let findings: ProbeFindings | null = null;
  if (start && request.probe) {
    const paths = [...new Set([...(readyFlag ? [readyFlag] : []), ...PROBE_PATHS])];
    try {
      findings = await probeService({
        start: start.value,
        dir,
        cwd,
        env: scrubEnv(io.env, secretsFrom(io.env)),
        timeoutMs: readyTimeout ? parseDurationMs(readyTimeout.trim()) : PROBE_TIMEOUT_MS,
        paths,
      });
      answers = findings.answers;
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
    out.push(`  probe       started it, then stopped it: ${answers.map((a) => `GET ${a.path} ${a.status || 'no answer'}`).join(', ')}`);
    out.push(...describeRoutes(findings));
  } else if (start) {
    out.push('  probe       skipped (--no-probe): the scenario below is a guess');
  }

  const readyPath = readyPathOf(readyFlag, answers);
  const scenarios = start ? scenariosOf(list(settings.scenarios), answers, findings, readyPath.readyPath?.value ?? null) : { entries: [] };
  const config: InitConfig = {
    ...(start && { start }),
    cwd,
    ...(start && facts.packageManager && { install: facts.packageManager.install }),
    ...readyPath,
    ...(readyTimeout && { readyTimeout: readyTimeout.trim() }),
    scenarios: scenarios.entries,
    ...(scenarios.note && { scenariosNote: scenarios.note }),
    ...(scenarios.after && { scenariosAfter: scenarios.after }),
    ...(benchmarkGlobs.length > 0 && {
      benchmarks: { value: benchmarkGlobs, note: benchmarkNote(facts, list(settings.benchmarks).length > 0) },
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
  });

  out.push('');
  const kept: [string, string][] = [];
  for (const [path, text] of [
    [CONFIG_PATH, configText],
    [WORKFLOW_PATH, workflowText],
  ] as const) {
    const target = join(root, path);
    if (existsSync(target)) {
      kept.push([path, text]);
      out.push(`kept   ${path}: it exists, and init never overwrites a file (what it would write is printed below)`);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: 'wx' });
    out.push(`wrote  ${path}${path === CONFIG_PATH ? `   (${summarise(loaded)})` : '   (measure job without a write token, comment job in report mode)'}`);
  }
  const unchecked = answers !== null && !answers.some((a) => is2xx(a.status));
  if (start && !request.probe && list(settings.scenarios).length === 0) {
    out.push('', 'check  the scenario GET / was not tried: make sure it answers 2xx, or list your routes under scenarios.');
  } else if (list(settings.scenarios).length === 0 && scenarios.broken?.length) {
    const { broken } = scenarios;
    const measured = config.scenarios.some((e) => !e.commented && broken.some((b) => e.value === `GET ${b.request.path}`));
    out.push(
      '',
      `check  ${broken.length === 1 ? 'a route' : `${broken.length} routes`} did not answer 2xx when init asked; ${CONFIG_PATH} marks ${broken.length === 1 ? 'it' : 'them'} with the answer` +
        (measured ? ' (the first one measured, as nothing else answered: perfgate plan stops on it until it is fixed):' : ', commented out:'),
    );
    for (const { request: route, answer } of broken) {
      out.push(`       GET ${route.path}${route.path === route.route ? '' : ` (${route.route})`}: ${answer.description}`);
    }
    const filled = broken.some((b) => b.request.filled.length > 0) ? ` (a value that exists instead of the ${SAMPLE_PARAMETER} init filled in)` : '';
    out.push(`       give it a path that answers${filled}, or declare the status it answers with expect:`);
  } else if (unchecked && list(settings.scenarios).length === 0 && !findings?.asked.some((a) => is2xx(a.answer.status ?? 0))) {
    out.push('', `check  none of ${PROBE_PATHS.join(', ')} answered 2xx: put routes of yours under scenarios in ${CONFIG_PATH}.`);
  }
  out.push(
    '',
    "next   npx perfgate plan            checks the configuration and asks each scenario's route, then prints the plan and its estimated time",
    '       npx perfgate compare         measures your work tree against the default branch',
    `       commit ${[CONFIG_PATH, WORKFLOW_PATH].filter((p) => !kept.some(([k]) => k === p)).join(' and ') || 'your files'}; pull requests then get the gate and its comment`,
  );
  for (const [path, text] of kept) {
    out.push('', `--- ${path} as init would write it (merge what you need, or remove the file and run perfgate init again) ---`, text.trimEnd());
  }
  io.stdout.write(`${out.join('\n')}\n`);
}

function describeBenchmarks(facts: ProjectFacts, globs: string[], given: boolean): string {
  if (given) return `${globs.join(', ')}   (from --benchmarks)`;
  if (facts.suites.length === 0) return 'no benchmark.js, tinybench or mitata suite found';
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
  const health = answers?.find((a) => (HEALTH_PATHS as readonly string[]).includes(a.path) && is2xx(a.status));
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
  const answered = asked.filter((a) => is2xx(a.answer.status ?? 0));
  const broken = asked.filter((a) => !is2xx(a.answer.status ?? 0));
  const measured = answered.slice(0, MAX_SCENARIOS);
  const entries: ScenarioEntry[] = measured.map(({ request, answer }) => ({
    value: `GET ${request.path}`,
    note: [`answered ${answer.status} when init asked`, filledNote(request) && `${filledNote(request)}: a value of yours measures better`].filter(Boolean).join('; '),
  }));
  if (entries.length === 0) {
    // No GET route of the app answered 2xx, and the file needs a scenario to load: `/` when it
    // answered; else the first route as it answered, marked, so that plan stops on it until it is
    // fixed (measuring the health route instead would pass plan and measure nothing of the app).
    const root = answers.find((a) => a.path === '/' && is2xx(a.status));
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
  return {
    entries,
    note: `routes ${framework} registered, each GET asked once when init started the service; commented-out lines need you first`,
    ...(after.length && { after }),
    broken,
  };
}

/** Without the framework's routes: the probed path that answered, `/` first (a route of the app measures more than a health check). */
function fromProbedPaths(answers: ProbeAnswer[]): ScenarioEntry[] {
  const answered = answers.filter((a) => is2xx(a.status));
  const chosen = answered.find((a) => a.path === '/') ?? answered[0];
  if (!chosen) return [{ value: 'GET /', note: `no probed path answered 2xx (${answers.map((a) => `${a.path} ${a.status || '-'}`).join(', ')}): replace it with a route of yours` }];
  return [{ value: `GET ${chosen.path}`, note: `answered ${chosen.status} when init started the service` }];
}

/** A route that answered non-2xx: what it answered and the two ways to fix it. */
function brokenEntry({ request, answer }: AskedRoute, commented: boolean): ScenarioEntry {
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

/** The routes line of init's summary: what the reader found, what each GET route answered, what was left out. */
function describeRoutes(findings: ProbeFindings): string[] {
  const { routes, sorted, asked } = findings;
  if (!routes || routes.routes.length === 0) {
    const which = routes?.frameworks.length ? `${routes.frameworks.join(', ')} registered no route` : `no ${READABLE_FRAMEWORKS} routes (plain http, or a framework init cannot read)`;
    return [`  routes      none read: ${which}; the scenario comes from the paths above`];
  }
  const writeMethods = [...new Set(sorted.writes.map((w) => w.method))].join(', ');
  const counts = [
    `${sorted.reads.length} GET route${sorted.reads.length === 1 ? '' : 's'}`,
    ...(sorted.writes.length ? [`${sorted.writes.length} that change${sorted.writes.length === 1 ? 's' : ''} data (${writeMethods})`] : []),
    ...(sorted.skipped.length ? [`${sorted.skipped.length} left out`] : []),
  ];
  const lines = [`  routes      ${routes.frameworks.join(', ')}: ${counts.join(', ')}`];
  if (asked.length) lines.push(`              asked: ${asked.map((a) => `GET ${a.request.path} ${a.answer.status ?? 'no answer'}`).join(', ')}`);
  if (sorted.skipped.length) lines.push(`              left out: ${sorted.skipped.map((s) => `${s.route} (${s.why})`).join(', ')}`);
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
