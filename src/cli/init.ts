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
import { scrubEnv, secretsFrom } from '../engine/env.js';
import { PerfgateError, ServiceError } from '../engine/errors.js';
import { estimateRun } from '../engine/estimate.js';
import { repositoryRoot } from '../engine/workspace.js';
import { type InitConfig, type Noted, renderConfig } from '../init/config-text.js';
import { detectProject, type ProjectFacts } from '../init/detect.js';
import { HEALTH_PATHS, type ProbeAnswer, ProbeError, PROBE_PATHS, probeService } from '../init/probe.js';
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
  if (start && request.probe) {
    const paths = [...new Set([...(readyFlag ? [readyFlag] : []), ...PROBE_PATHS])];
    try {
      answers = await probeService({
        start: start.value,
        dir,
        cwd,
        env: scrubEnv(io.env, secretsFrom(io.env)),
        timeoutMs: readyTimeout ? parseDurationMs(readyTimeout.trim()) : PROBE_TIMEOUT_MS,
        paths,
      });
    } catch (e) {
      if (!(e instanceof ProbeError)) throw e;
      const install = facts.packageManager ? ` install the dependencies first (${facts.packageManager.install}),` : '';
      throw new ServiceError(
        `init started the service to find its routes${start.note.startsWith('from --') ? '' : ` (${start.note})`}: ${e.reason} ` +
          `Fix the start command (--start "<command>"),${install} give it longer (--ready-timeout 60s), ` +
          'or write the files without starting it (--no-probe). Nothing was written.',
        e.logTail,
      );
    }
    out.push(`  probe       started it, then stopped it: ${answers.map((a) => `GET ${a.path} ${a.status || 'no answer'}`).join(', ')}`);
  } else if (start) {
    out.push('  probe       skipped (--no-probe): the scenario below is a guess');
  }

  const config: InitConfig = {
    ...(start && { start }),
    cwd,
    ...(start && facts.packageManager && { install: facts.packageManager.install }),
    ...readyPathOf(readyFlag, answers),
    ...(readyTimeout && { readyTimeout: readyTimeout.trim() }),
    scenarios: start ? scenariosOf(list(settings.scenarios), answers) : [],
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
  } else if (unchecked && list(settings.scenarios).length === 0) {
    out.push('', `check  none of ${PROBE_PATHS.join(', ')} answered 2xx: put routes of yours under scenarios in ${CONFIG_PATH}.`);
  }
  out.push(
    '',
    'next   npx perfgate plan            checks the configuration and prints the plan and its estimated time',
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

function scenariosOf(given: string[], answers: ProbeAnswer[] | null): Noted<string>[] {
  if (given.length) return given.map((value) => ({ value, note: 'from --scenarios' }));
  if (answers === null) return [{ value: 'GET /', note: 'a guess (not probed): make sure it answers 2xx' }];
  const answered = answers.filter((a) => is2xx(a.status));
  // A route of the application measures more than a health check; the health route only when nothing else answered.
  const chosen = answered.find((a) => a.path === '/') ?? answered[0];
  if (!chosen) return [{ value: 'GET /', note: `no probed path answered 2xx (${answers.map((a) => `${a.path} ${a.status || '-'}`).join(', ')}): replace it with a route of yours` }];
  return [{ value: `GET ${chosen.path}`, note: `answered ${chosen.status} when init started the service` }];
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
