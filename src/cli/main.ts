import { appendFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/load.js';
import { environmentWarnings, NoBoundaryError, openRunEnvironment, type RunEnvironment } from '../compare/environment.js';
import { cleanedLine, cleanLeftovers, recordsDir } from '../compare/leftovers.js';
import { measureComparison, planComparison, resolveComparison } from '../compare/service.js';
import { RECORD, SAME_RUNNER, shardOf, storedBaseline, type Variant } from '../compare/variant.js';
import { keptResultsLine, PerfgateError } from '../engine/errors.js';
import type { Preflight } from '../engine/preflight.js';
import { settleOwnProcesses } from '../engine/process/programs.js';
import { defaultBranch, repositoryRoot } from '../engine/workspace/trees.js';
import { createClient } from '../github/client.js';
import { formatRepo, parseRepo } from '../github/event.js';
import { GATE_ID_PATTERN } from '../report/comment.js';
import { assessResults } from '../assess/compare.js';
import { collectRuns, type CollectedRun, type SkippedFile } from '../history/collect.js';
import { collectGitHubRuns, DEFAULT_RUN_LIMIT, HistorySourceError } from '../history/github.js';
import { renderHistoryPage } from '../history/page.js';
import { analyzeHistory, HISTORY_WINDOW } from '../history/series.js';
import { renderHistorySummary } from '../history/summary.js';
import { CHANGE_POINT_DEFAULTS } from '../stats/change-points.js';
import { renderMarkdown } from '../report/markdown.js';
import { renderTerminal } from '../report/terminal.js';
import { STORED_NOT_SHARDED } from '../compare/shard.js';
import { BaselineError, baselineOf } from '../results/baseline.js';
import { ResultsFileError, readResults, serializeResults } from '../results/io.js';
import type { Results, StoredBaseline } from '../results/types.js';
import { validateResults } from '../results/validate.js';
import { WriteError, writeErrorOf, writing } from '../results/write-error.js';
import { buildVerdicts } from '../assess/verdicts.js';
import { OPTIONS, type OptionValues, optionsUsage } from '../config/options.js';
import { VERSION } from '../version.js';
import { INIT_SETTINGS, runInit } from './init.js';
import { checkRoutes, estimateLine, renderPlan, workTreeInstall } from './plan.js';
import { terminalProgress } from './progress.js';

export const USAGE = `perfgate ${VERSION} — A/B performance gate for Node.js services

Usage:
  perfgate compare [options]        measure base and head side by side, print verdicts
  perfgate plan [options]           check flags, config and refs, start the service once in the
                                    work tree to ask each scenario's route, print the plan and its
                                    estimated time; nothing is checked out (= compare --dry-run)
  perfgate record [options]         measure one commit alone (the work tree's, which must be
                                    clean, or --head's) and write its results.json: a stored
                                    baseline for compare --baseline (docs/modes.md)
  perfgate report <results.json>    render a saved run again (same verdicts)
  perfgate history <dir> [options]  the commits where a gated metric shifted, from the results.json
                                    files under <dir> (runs of main): change points by E-divisive
                                    means, a shift that came with a new kernel, image, Node or
                                    configuration named as such (docs/history.md)
  perfgate history --github <owner/repo> [options]
                                    the same from the results artifacts perfgate uploaded on the
                                    branch's push, manual and scheduled runs, read through the API
  perfgate init [options]           write perfgate.yml and .github/workflows/perf.yml from what the
                                    repository has; never overwrites a file, asks nothing
  perfgate --help | --version

compare options:
  --base <ref>          compare against the merge-base with <ref> (default: the default branch)
  --head <ref>          measure <ref> in a temporary worktree (default: the work tree as it is,
                        uncommitted changes included)
  --config <file>       configuration file, relative to the head tree (default: perfgate.yml)
  --json <file>         also copy results.json here (it is always written to the run directory)
  --markdown <file>     write the markdown report (the PR comment body) here
  --verdicts <file>     write the verdicts as JSON: per metric estimate, interval, p-value,
                        verdict, and the decision (docs/verdicts.md)
  --out <dir>           run directory: results.json, logs (default: a new temporary directory)
  --baseline <file>     compare head with a record (perfgate record's results.json, or a
                        mode: record artifact's) instead of measuring base: head alone is
                        measured and compared unpaired; refused when this machine, Node,
                        perfgate or the configuration differ from the record's
  --no-profile          skip the profiling phase (= --profile false)
  --all-functions       hot functions of dependencies, Node core and V8 too, not only your code
                        (implies --full)
  --full                every table even when nothing changed (such a run prints its headline
                        and one line by default, like the PR comment)
  --dry-run             check and print the plan, measure nothing (perfgate plan)
  --boundary            run the code under test inside a cgroup that stopping it empties, and
                        head's code as the user perfgate-head, as the action does (root or
                        passwordless sudo; docs/security.md): for code you do not trust, e.g. a
                        pull request's, measured outside GitHub Actions
  --quiet               no progress lines (warnings still show)    --no-color  plain output

settings (the same names as the action's inputs; they win over perfgate.yml):
${optionsUsage()}

init options (the service is the current directory, or --working-directory):
  --start, --working-directory, --ready-path, --ready-timeout, --scenarios, --benchmarks
                        written into perfgate.yml instead of what init finds
  --no-probe            do not start the service; by default init starts it once (as compare
                        does: own process group, forced port, no tokens in its environment),
                        reads the routes express, fastify or koa registered, GETs them and
                        /health, /healthz, /ready and /, and stops it (plan: do not ask the
                        scenarios' routes)

report options:
  --full                every table even when nothing changed
  --all-functions       hot functions of dependencies, Node core and V8 too (implies --full)
  --markdown <file>     write the markdown report here too
  --verdicts <file>     write the verdicts as JSON here

history options:
  --html <file>         the page with one chart per metric (default: perfgate-history.html)
  --markdown <file>     write the summary here too (it is printed, and appended to
                        $GITHUB_STEP_SUMMARY when that is set)
  --github <owner/repo> read the runs from GitHub instead of a directory: the token is
                        GITHUB_TOKEN or GH_TOKEN (actions: read), the API GITHUB_API_URL
                        (default https://api.github.com)
  --branch <name>       the branch whose runs are read (default: the repository's default branch)
  --workflow <file>     only the runs of this workflow (perf.yml; default: every workflow's)
  --limit <n>           how many of the branch's newest completed runs are looked at (default: ${DEFAULT_RUN_LIMIT})
  --id <id>             the gate's id, the action's id input (default: default)
  --save <dir>          keep each results.json read, as <dir>/<run id>-<artifact>/results.json

Exit status: 0 pass, 1 a gated metric regressed, 2 usage, configuration or setup error, or a
comparison that was not fair (a side's idle service burned CPU while the other was measured, or
base's tree was written to after it was installed),
130 / 143 interrupted (SIGINT / SIGTERM; services stopped, worktrees removed).
`;

const exitCodes = { pass: 0, fail: 1, error: 2, sigint: 130, sigterm: 143 } as const;

interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: Record<string, string | undefined>;
  cwd: string;
}

export async function main(argv: string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    io.stderr.write(`perfgate: ${(e as Error).message}\nRun perfgate --help for usage.\n`);
    return exitCodes.error;
  }
  const { values, positionals } = parsed;
  // perfgate's own programs (git, node, npm, sudo…) are looked up once, on the PATH of the
  // environment this run was given, before any code of the pull request runs.
  settleOwnProcesses(io.env);
  if (values.version) {
    io.stdout.write(`${VERSION}\n`);
    return exitCodes.pass;
  }
  const command = positionals[0];
  if (values.help || !command) {
    (command || values.help ? io.stdout : io.stderr).write(USAGE);
    return values.help ? exitCodes.pass : exitCodes.error;
  }
  const color = !values['no-color'] && io.stdout.isTTY === true && !io.env.NO_COLOR;
  try {
    if (command === 'report') {
      if (positionals.length !== 2) throw new UsageError('report takes one argument: the results.json to render');
      const path = resolve(io.cwd, positionals[1]!);
      return finish(readResults(path), values, io, color, path, []);
    }
    if (command === 'compare' || command === 'plan' || command === 'record') {
      if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
      return await compare(values, io, color, command === 'plan' || values['dry-run'] === true, command === 'record');
    }
    if (command === 'history') return await runHistory(positionals.slice(1), values, io);
    if (command === 'init') {
      if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
      const settings = settingsOf(values);
      const others = Object.keys(settings).filter((name) => !(INIT_SETTINGS as readonly string[]).includes(name));
      if (others.length) {
        throw new UsageError(`init writes ${INIT_SETTINGS.map((s) => `--${s}`).join(', ')} only; set ${others.map((o) => `--${o}`).join(', ')} in perfgate.yml afterwards, or pass it to compare`);
      }
      await runInit({ settings, probe: values['no-probe'] !== true }, io);
      return exitCodes.pass;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`perfgate: ${e.message}\nRun perfgate --help for usage.\n`);
    } else if (isUserError(e)) {
      io.stderr.write(`\nperfgate: ${e.message}\n`);
      const kept = keptResultsLine(e as PerfgateError);
      if (kept) io.stderr.write(`${kept}\n`);
    } else {
      // A refused write no writer named (a log stream, a tool's file) is still the place's fault, not perfgate's.
      const place = writeErrorOf(e, (e as NodeJS.ErrnoException).path ?? 'a path it names', 'a file');
      io.stderr.write(place ? `\nperfgate: ${place.message}\n` : `\nperfgate: unexpected error: ${(e as Error).stack ?? e}\n`);
    }
    return exitCodes.error;
  }
}

class UsageError extends Error {}

/** Errors whose message says what to do: printed without a stack. */
function isUserError(e: unknown): e is Error {
  return [ConfigError, PerfgateError, ResultsFileError, BaselineError, HistorySourceError, WriteError].some((type) => e instanceof type);
}

/** Flags of the CLI itself; the settings come from the one table (config/options.ts). */
const CLI_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  base: { type: 'string' },
  head: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'string' },
  markdown: { type: 'string' },
  html: { type: 'string' },
  verdicts: { type: 'string' },
  out: { type: 'string' },
  baseline: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  'no-color': { type: 'boolean' },
  'no-profile': { type: 'boolean' },
  'all-functions': { type: 'boolean' },
  full: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  boundary: { type: 'boolean' },
  'no-probe': { type: 'boolean' },
  github: { type: 'string' },
  branch: { type: 'string' },
  workflow: { type: 'string' },
  limit: { type: 'string' },
  id: { type: 'string' },
  save: { type: 'string' },
} as const;

/** Flags only `history --github` reads. */
const GITHUB_HISTORY_FLAGS = ['branch', 'workflow', 'limit', 'id', 'save'] as const;

type FlagOptions = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

function parse(argv: string[]) {
  const options: FlagOptions = { ...CLI_FLAGS };
  for (const option of OPTIONS) {
    for (const name of [option.name, ...(option.aliases ?? [])]) options[name] = { type: 'string', ...(option.list && { multiple: true }) };
  }
  const parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  return { values: parsed.values as Values, positionals: parsed.positionals };
}

type Values = { [K in keyof typeof CLI_FLAGS]?: (typeof CLI_FLAGS)[K]['type'] extends 'boolean' ? boolean : string } & Record<
  string,
  string | boolean | string[] | undefined
>;

/** The table's options as given, an alias counting as its option (lists concatenated, else the last one wins). */
function settingsOf(values: Values): OptionValues {
  const out: OptionValues = {};
  for (const option of OPTIONS) {
    for (const name of [option.name, ...(option.aliases ?? [])]) {
      const given = values[name];
      if (given === undefined || typeof given === 'boolean') continue;
      out[option.name] = option.list ? [...((out[option.name] as string[] | undefined) ?? []), ...(given as string[])] : (given as string);
    }
  }
  if (values['no-profile']) out.profile = 'false';
  return out;
}

/** The plan's routes line: checked in the work tree, or why not. */
async function planRoutes(checked: Preflight, values: Values, env: Record<string, string | undefined>): Promise<string | null> {
  const { config } = checked;
  if (config.scenarios.length === 0 || config.service.start === null) return null;
  if (values['no-probe']) return 'routes   not asked (--no-probe)';
  if (values.head !== undefined) return 'routes   not asked: plan starts the service only in the work tree, and --head names a commit';
  return checkRoutes(checked, env);
}

async function compare(values: Values, io: Io, color: boolean, dryRun: boolean, record = false): Promise<number> {
  const root = await repositoryRoot(io.cwd);
  if (record || values.baseline !== undefined) {
    if (values.base !== undefined) throw new UsageError(record ? 'record measures one commit: --base has no meaning here' : '--baseline replaces --base: give one of them');
    if (values.shard !== undefined) throw new UsageError(`${record ? 'record' : '--baseline'} with --shard ${values.shard}: ${STORED_NOT_SHARDED}`);
  }
  const settings = settingsOf(values);
  const variant = variantOf(values, settings, io, root, record);
  const baseRef = variant.oneCommit ? (values.head ?? 'HEAD') : (values.base ?? (await defaultBranch(root)));
  const outDir = values.out ? resolve(io.cwd, values.out) : join(tmpdir(), `perfgate-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  // Refs and configuration are checked before any worktree or run folder exists.
  const resolved = await resolveComparison({
    repoDir: root,
    baseRef,
    mergeBase: !variant.oneCommit,
    headRef: values.head ?? null,
    configFile: values.config ?? null,
    settings,
    settingsSource: SETTINGS_SOURCE,
  });
  if (variant.oneCommit && resolved.head.dirty) {
    throw new UsageError(`${record ? 'record' : '--baseline'} measures one commit on both sides, and the work tree has uncommitted changes: commit or stash them, or name a commit with --head`);
  }
  const checked = await variant.resolve(resolved);
  const { config } = checked;
  const planned = planComparison(config, variant.looks?.design ?? null);
  if (dryRun) {
    io.stdout.write(renderPlan(checked, planned, await planRoutes(checked, values, io.env), await workTreeInstall(checked)));
    return exitCodes.pass;
  }
  const { estimate } = planned;
  const { logger, progress } = terminalProgress(io.stderr, { quiet: values.quiet === true, estimate, config, ci: Boolean(io.env.CI) });
  logger.info(estimateLine(estimate));
  for (const cleaned of await cleanLeftovers(root)) logger.info(cleanedLine(cleaned));
  const environment = openCliEnvironment(values, io, logger, { dir: await recordsDir(root), outDir });
  try {
    const { results, resultsPath } = await measureComparison({ checked, planned, outDir, toolsDir: toolsDir(io.env), variant }, environment, { logger, progress }).catch(
      (e: unknown) => {
        throw e instanceof WriteError ? e.withChoice(values.out ? 'with --out' : 'with --out, or set TMPDIR (the default run directory is under it)') : e;
      },
    );
    const json: Copy[] = values.json ? [{ path: resolve(io.cwd, values.json), what: 'the --json copy of results.json', flag: '--json', text: serializeResults(results) }] : [];
    if (variant.kind === 'record') {
      io.stdout.write(`perfgate: recorded ${results.sides.head.sha.slice(0, 7)} in ${resultsPath}; compare with it: perfgate compare --baseline ${shellQuote(resultsPath)}\n`);
      return writeCopies(json, io, resultsPath, exitCodes.pass);
    }
    io.stderr.write(`[perfgate] results: ${resultsPath}\n`);
    return finish(results, values, io, color, resultsPath, json);
  } catch (e) {
    const signalled = environment.cancelledBy();
    if (signalled === null) throw e;
    // Interrupted: the shell's convention, 128 + the signal's number, so scripts can tell.
    io.stderr.write(`\nperfgate: ${(e as Error).message}\n`);
    const kept = (e as PerfgateError).resultsPath;
    if (kept) io.stderr.write(`The pairs measured before the interruption are kept in ${kept}\n`);
    return signalled === 'SIGINT' ? exitCodes.sigint : exitCodes.sigterm;
  } finally {
    await environment.close();
  }
}

const SETTINGS_SOURCE = 'command-line flags';

/** record, --baseline <file>, --shard i/n or none of them: what this comparison measures against. */
function variantOf(values: Values, settings: OptionValues, io: Io, root: string, record: boolean): Variant {
  if (record) return RECORD;
  if (values.baseline === undefined) return shardOf(settings, SETTINGS_SOURCE) ?? SAME_RUNNER;
  const path = resolve(io.cwd, values.baseline);
  return storedBaseline(readBaseline(path), path, { env: io.env, cwd: root });
}

/** A record file read and validated as report mode reads an artifact, as the baseline of the commit it measured. */
function readBaseline(path: string): StoredBaseline {
  const record = validateResults(readResults(path), path);
  return baselineOf(record, record.sides.head.sha, record.github?.runId ?? null, path);
}

/**
 * The CLI's run environment. --boundary: the cgroup the action puts the pull request's code in
 * (engine/process/boundary.ts). Asked for, so a machine that cannot make one is an error, not a
 * warning: the user wanted the code contained.
 */
function openCliEnvironment(values: Values, io: Io, logger: { info(message: string): void }, record: { dir: string; outDir: string }): RunEnvironment {
  let environment: RunEnvironment;
  try {
    environment = openRunEnvironment({ boundary: values.boundary ? 'required' : 'off', env: io.env, record });
  } catch (e) {
    if (!(e instanceof NoBoundaryError)) throw e;
    throw new UsageError(`--boundary: ${e.message}. Run perfgate as root or with passwordless sudo, or leave out --boundary (docs/security.md).`);
  }
  if (environment.boundary) logger.info(`the code under test runs inside ${environment.boundary.description}`);
  if (environment.headUser) logger.info(`head's code runs as ${environment.headUser.description}`);
  for (const warning of environmentWarnings(environment)) logger.info(`warning: ${warning.message}`);
  return environment;
}

/** `perfgate history`: reads the runs (a directory, or GitHub's artifacts), prints and writes the summary, writes the page. */
async function runHistory(args: string[], values: Values, io: Io): Promise<number> {
  const fromGitHub = values.github !== undefined;
  if (fromGitHub === (args.length === 1) || args.length > 1) {
    throw new UsageError('history reads the runs of main from one place: give the directory of results.json files, or --github <owner/repo>');
  }
  if (!fromGitHub) {
    const given = GITHUB_HISTORY_FLAGS.filter((flag) => values[flag] !== undefined);
    if (given.length) throw new UsageError(`${given.map((f) => `--${f}`).join(', ')} go with history --github; a directory is read whole`);
  }
  let runs: CollectedRun[];
  let skipped: SkippedFile[];
  let repository: string | null;
  let nothingRead: string;
  if (fromGitHub) {
    const read = await readGitHubHistory(values, io);
    ({ runs, skipped } = read);
    repository = read.repository;
    nothingRead = read.nothingRead;
  } else {
    const dir = resolve(io.cwd, args[0]!);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`history: ${dir} is not a directory`);
    ({ runs, skipped } = collectRuns(dir));
    repository = null;
    nothingRead = `no readable results.json under ${dir}: pass the directory the runs of main were downloaded to.`;
  }
  for (const file of skipped) io.stderr.write(`perfgate: warning: left out ${file.file}: ${file.reason}\n`);
  if (runs.length === 0) {
    io.stderr.write(`perfgate: ${nothingRead}\n`);
    return exitCodes.error;
  }
  const history = analyzeHistory(runs);
  const htmlPath = resolve(io.cwd, values.html ?? 'perfgate-history.html');
  copyTo(htmlPath, renderHistoryPage(history), 'the history page', '--html');
  repository ??= runs.map((r) => r.results.github?.repository).find((r) => r !== undefined) ?? null;
  const summary = renderHistorySummary(history, {
    repository,
    htmlPath: values.html ?? 'perfgate-history.html',
    maxPValue: CHANGE_POINT_DEFAULTS.maxPValue,
    windowLength: HISTORY_WINDOW,
    unreadable: skipped,
  });
  io.stdout.write(summary);
  if (values.markdown) copyTo(resolve(io.cwd, values.markdown), summary, 'the --markdown summary', '--markdown');
  if (io.env.GITHUB_STEP_SUMMARY) appendFileSync(io.env.GITHUB_STEP_SUMMARY, summary);
  return exitCodes.pass;
}

/** `history --github`: the flags checked, the token and API address from the environment, the runs read. */
async function readGitHubHistory(values: Values, io: Io) {
  const repo = parseRepo(values.github);
  if (!repo) throw new UsageError(`--github takes owner/repo, not "${values.github}"`);
  const limit = values.limit ?? String(DEFAULT_RUN_LIMIT);
  if (!/^[1-9]\d{0,4}$/.test(limit)) throw new UsageError(`--limit takes a number of runs from 1 to 99999, not "${limit}"`);
  const id = values.id ?? 'default';
  if (!GATE_ID_PATTERN.test(id)) throw new UsageError(`--id is "${id}"; a gate's id is up to 64 letters, digits, ".", "_" or "-" (the action's id input)`);
  const token = io.env.GITHUB_TOKEN || io.env.GH_TOKEN;
  if (!token) {
    throw new HistorySourceError(
      'history --github reads the artifacts through the GitHub API and needs a token: set GITHUB_TOKEN or GH_TOKEN ' +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, shown as is
        '(in a workflow, `GITHUB_TOKEN: ${{ github.token }}` with `permissions: { actions: read }`; on your machine, `GH_TOKEN=$(gh auth token)`)',
    );
  }
  const apiUrl = io.env.GITHUB_API_URL || 'https://api.github.com';
  const log = (line: string) => io.stderr.write(`${line}\n`);
  const client = createClient(token, { info: log, warn: (m) => log(`perfgate: warning: ${m}`), debug: () => {} }, apiUrl);
  const workflow = values.workflow ?? null;
  const read = await collectGitHubRuns({
    client,
    repo,
    apiUrl,
    branch: values.branch ?? null,
    workflow,
    limit: Number(limit),
    id,
    saveDir: values.save === undefined ? null : resolve(io.cwd, values.save),
    log,
  });
  const where = `${read.branch} of ${formatRepo(repo)}${workflow ? ` (${workflow})` : ''}`;
  const nothingRead =
    read.looked === 0
      ? `no completed workflow run on ${where}: name the branch perf.yml runs on with --branch, or the workflow with --workflow.`
      : `no readable results on ${where}: ${read.looked} run${read.looked === 1 ? '' : 's'} looked at, none with an artifact perfgate-${id} or perfgate-record-${id}-<sha> ` +
        `that a trusted run uploaded and that could be read. Run the perfgate workflow on pushes to ${read.branch} (docs/history.md), and pass --id if the gate has another id.`;
  return { ...read, repository: formatRepo(repo), nothingRead };
}

/**
 * Prints the report of the results.json at `resultsPath` (its directory holds the flamegraphs),
 * then writes the copies asked for (`copies` and --markdown, --verdicts): the verdict is printed
 * before any copy can fail.
 */
function finish(results: Results, values: Values, io: Io, color: boolean, resultsPath: string, copies: Copy[]): number {
  const analysis = assessResults(results);
  const allFunctions = values['all-functions'] === true;
  const terminal = renderTerminal(results, analysis, {
    color,
    runDir: dirname(resultsPath),
    allFunctions,
    full: values.full === true || allFunctions,
    fullReport: `perfgate report ${shellQuote(resultsPath)} --full`,
  });
  io.stdout.write(`\n${terminal}\n`);
  const all = [...copies];
  if (values.markdown) all.push({ path: resolve(io.cwd, values.markdown), what: 'the markdown report', flag: '--markdown', text: renderMarkdown(results, analysis) });
  if (values.verdicts) {
    all.push({ path: resolve(io.cwd, values.verdicts), what: 'the verdicts', flag: '--verdicts', text: `${JSON.stringify(buildVerdicts(results, analysis), null, 2)}\n` });
  }
  // Not a regression but a run that cannot be judged: the exit status of an invalid run.
  const verdict = analysis.unfair?.length ? exitCodes.error : analysis.decision === 'fail' ? exitCodes.fail : exitCodes.pass;
  return writeCopies(all, io, resultsPath, verdict);
}

/** A file written besides the run directory at the user's request. */
interface Copy {
  path: string;
  what: string;
  flag: string;
  text: string;
}

/**
 * Writes every copy it can. One the machine refuses is reported with the verdict's own exit
 * status and the complete results.json, so the measurement is never lost to a bad path; the
 * exit status is then 2, for the copy.
 */
function writeCopies(copies: Copy[], io: Io, resultsPath: string, verdict: number): number {
  const failed: WriteError[] = [];
  for (const copy of copies) {
    try {
      copyTo(copy.path, copy.text, copy.what, copy.flag);
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      failed.push(e);
    }
  }
  if (failed.length === 0) return verdict;
  for (const e of failed) io.stderr.write(`\nperfgate: ${e.message}\n`);
  io.stderr.write(
    `The measurement is complete: its verdict is above (exit status ${verdict} on its own) and the complete results are in ${resultsPath}. ` +
      `perfgate exits ${exitCodes.error} only because ${failed.length === 1 ? 'this copy' : 'these copies'} could not be written.\n`,
  );
  return exitCodes.error;
}

/**
 * Where the CLI keeps the tools it installs on demand (0x for the flamegraphs): the user's cache
 * directory, so the install happens once per 0x version, not once per run folder.
 */
function toolsDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'perfgate', 'tools');
}

/** A path as a shell word: as it is when it has nothing a shell would split or expand, else in single quotes. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Writes `what` at `path`, its directory made; a refused write names the flag that chose the place. */
function copyTo(path: string, text: string, what: string, flag: string): void {
  writing(
    path,
    what,
    () => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    },
    `with ${flag}`,
  );
}
