/**
 * `perfgate plan`: what a compare would do, checked and timed, before anything is checked out.
 * It also starts head's service once in the work tree and asks each scenario's route, as the
 * compare does when a route fails its warm-up: a route that answers what its scenario does not
 * expect is an error now, not a run of minutes measuring an error page.
 */
import { join } from 'node:path';
import type { PlannedComparison } from '../compare/service.js';
import { LEVEL_METRICS, type MetricRule, type PerfgateConfig } from '../config/types.js';
import { formatDuration } from '../config/units.js';
import { scrubEnv, secretsFrom } from '../engine/process/env.js';
import { ScenarioError, ServiceError } from '../engine/errors.js';
import { formatMs, type RunEstimate } from '../engine/estimate.js';
import { MAX_ARM_BLOCKS } from '../engine/phases/confirm.js';
import type { LookDesign } from '../engine/plan.js';
import type { Preflight } from '../engine/preflight.js';
import { bodyProblem, brokenRouteMessage, checkScenarios, quoteAnswer, StartOnceError, startOnce } from '../engine/service/probe.js';
import { checkoutPackageManager } from '../engine/workspace/trees.js';
import { formatLimit } from '../report/format.js';
import { formatDurationUs, formatPercent } from '../stats/format.js';

/**
 * Starts head's service once in the work tree (service.setup first, as a start of the compare; no
 * install or build: the work tree is used as it is) and asks each scenario's route. Returns the
 * plan's line on what the routes answered; throws a ScenarioError naming every route that did not
 * answer as expected, or a ServiceError when the service did not become ready.
 */
export async function checkRoutes(pre: Preflight, env: Record<string, string | undefined>): Promise<string> {
  const { config } = pre;
  const dir = join(pre.root, config.service.cwd);
  let checks: Awaited<ReturnType<typeof checkScenarios>>;
  try {
    checks = await startOnce({ config: config.service, dir, env: scrubEnv(env, secretsFrom(env)) }, (url) => checkScenarios(url, config.scenarios));
  } catch (e) {
    if (!(e instanceof StartOnceError)) throw e;
    throw new ServiceError(
      `plan starts the service once in the work tree (${dir}) to check the scenarios' routes: ${e.reason} ` +
        'Install the dependencies there, and build it if it needs a build, then run plan again; or skip this check with --no-probe.',
      e.logTail,
    );
  }
  const broken = checks.filter((c) => !c.ok);
  if (broken.length > 0) {
    // what every route answered, the good ones too, then the ones that stop the plan
    const answered = checks.map((c) => `  ${c.scenario.name}  ${c.answer ? quoteAnswer(c.answer) : `not asked: ${c.skipReason}`}`);
    const messages = broken.map((c) => brokenRouteMessage(c.scenario, "in head's work tree", c.answer!.description, bodyProblem(c.scenario, c.answer!)));
    throw new ScenarioError([...messages, `What each scenario's route answered in head's work tree:`, ...answered].join('\n'));
  }
  const width = Math.max(...checks.map((c) => c.scenario.name.length));
  const lines = checks.map((c) => `  ${c.scenario.name.padEnd(width)}  ${c.answer ? quoteAnswer(c.answer) : `not asked: ${c.skipReason}`}`);
  return ['routes   asked once in the work tree (what each answered):', ...lines].join('\n');
}

/**
 * The install a compare runs for the work tree's service: its trees are checkouts, where a
 * lockfile git ignores is not, so the run installs without it.
 */
export async function workTreeInstall(pre: Preflight): Promise<string | null> {
  if (!pre.workTree || pre.config.service.install !== null) return null;
  const { packageManager, ignored } = await checkoutPackageManager(join(pre.root, pre.config.service.cwd));
  const command = packageManager?.install ?? 'none (no lockfile, no dependencies)';
  return ignored.length ? `${command} (${ignored.join(' and ')} ignored by git: the run's checkout has no lockfile)` : command;
}

/**
 * The plan of a compare: what was resolved, and the schedule the run would execute with its
 * estimate. `install`: the work tree's install (workTreeInstall), when service.install is unset.
 */
export function renderPlan(pre: Preflight, planned: PlannedComparison, routes: string | null = null, install: string | null = null): string {
  const { config } = pre;
  const { plan, estimate } = planned;
  const short = (sha: string) => sha.slice(0, 7);
  const lines: string[] = [];
  lines.push(`base     ${pre.base.ref}@${short(pre.base.sha)} (merge-base with head)`);
  lines.push(`head     ${pre.head.ref}@${short(pre.head.sha)}${pre.head.dirty ? ' with uncommitted changes' : ''}`);
  lines.push(`config   ${pre.configSource ?? 'no file (flags only)'}`);
  lines.push(...serviceLines(config, install));
  if (config.scenarios.length > 0) {
    lines.push(`scenarios (${config.scenarios.length}):`);
    for (const s of config.scenarios) {
      lines.push(`  ${s.name}  · ${s.connections} connection${s.connections === 1 ? '' : 's'}${s.pipelining > 1 ? `, pipelining ${s.pipelining}` : ''}`);
    }
    if (routes) lines.push(routes);
    const sizes = plan.blocks.map((b) => b.pairs);
    const { load } = config;
    lines.push(
      `load     ${load.pairs} pairs per scenario in ${load.blocks} block${load.blocks === 1 ? '' : 's'} (${sizes.join(' + ')}), ` +
        `${formatDuration(load.sliceMs)} slices, ${formatDuration(load.warmupMs)} warm-up per start pair` +
        (config.scenarios.length > 1 ? `, then ${formatDuration(Math.min(load.warmupMs, load.sliceMs))} per other scenario` : ''),
    );
    const starts = plan.blocks.map((b) => b.instances);
    lines.push(`starts   ${starts.reduce((a, b) => a + b, 0)} per side (${starts.join(' + ')} by block, fresh in each; a start pair serves every scenario in its turn)`);
    if (plan.sequential && planned.looks) {
      lines.push(`looks    ${describeLooks(plan.sequential.looks.slice(0, -1).map((l) => l.afterBlock + 1), config.load.stop, planned.looks)}`);
    }
  }
  const gated = Object.entries(config.gate).filter(
    ([key, rule]) => 'gated' in rule && rule.gated && 'limit' in rule && (key !== 'benchmarks' || config.benchmarks),
  );
  lines.push(`gate     ${gated.map(([key, rule]) => `${key} ${key === 'errors' ? formatLimit('errors', (rule as { limit: number }).limit) : formatPercent((rule as { limit: number }).limit)}`).join(', ')} (alpha ${config.alpha})`);
  lines.push(...scenarioRuleLines(config));
  lines.push(`seed     ${config.seed ?? 'random (printed at the start of the run)'}`);
  lines.push('', 'phases:');
  lines.push(`  prepare   worktree of base${pre.workTree ? '' : ' and of head'}, then install and build in each (not estimated)`);
  for (const phase of estimate.phases) lines.push(`  ${phase.phase.padEnd(9)} ~${formatMs(phase.ms).padEnd(7)} ${phase.detail}`);
  lines.push('', estimateLine(estimate));
  if (estimate.note) lines.push(`(${estimate.note})`);
  return `${lines.join('\n')}\n`;
}

/**
 * The service levels of every scenario, and the rules a scenario sets itself: "levels   latency_p99
 * max 300 ms (head alone)", "         checkout: throughput 1%, latency_p99 15% max 250 ms".
 */
export function scenarioRuleLines(config: PerfgateConfig): string[] {
  const level = (key: string, { level: l }: MetricRule) => {
    if (!l) return '';
    return ` max ${key === 'errors' ? formatPercent(l.max) : formatDurationUs(l.max)}${l.gated ? '' : ' (information)'}`;
  };
  const globalLevels = LEVEL_METRICS.filter((key) => config.gate[key].level).map((key) => `${key}${level(key, config.gate[key])}`);
  const own = config.scenarios.flatMap((s) => {
    const entries = Object.entries(s.gate ?? {}).map(([key, rule]) => {
      const limit = key === 'errors' ? formatLimit('errors', rule.limit) : formatPercent(rule.limit);
      return `${key} ${limit}${rule.gated ? '' : ' (information)'}${level(key, rule)}`;
    });
    return entries.length > 0 ? [`         ${s.name}: ${entries.join(', ')}`] : [];
  });
  return [...(globalLevels.length > 0 ? [`levels   ${globalLevels.join(', ')} (on head, in every scenario unless it sets its own)`] : []), ...own];
}

function serviceLines(config: PerfgateConfig, workTreeInstall: string | null): string[] {
  const { service } = config;
  if (service.start === null) return [];
  const install =
    service.install === null
      ? (workTreeInstall ?? 'chosen from the lockfile')
      : service.install === ''
        ? 'skipped'
        : `\`${service.install}\``;
  const ready = service.ready.path ? `${service.ready.path} answers 2xx` : 'the port accepts connections';
  return [
    `service  \`${service.start}\` in ${service.cwd}; install ${install}${service.build ? `; build \`${service.build}\`` : ''}`,
    `ready    when ${ready}, within ${formatDuration(service.ready.timeoutMs)}`,
  ];
}

/**
 * When the interim looks come and what stops the run there: "after blocks 1 and 2: stop on a
 * regression beyond the look's bound, or once no gated metric can fail any more (load.stop:
 * decision)"; against a stored record, what each look compares too.
 */
export function describeLooks(afterBlocks: readonly number[], stop: PerfgateConfig['load']['stop'], looks: LookDesign = 'paired'): string {
  const blocks = afterBlocks.length === 1 ? `block ${afterBlocks[0]}` : `blocks ${afterBlocks.slice(0, -1).join(', ')} and ${afterBlocks.at(-1)}`;
  const clear = stop === 'verdicts' ? 'every gated metric is unchanged or improved (load.stop: verdicts)' : 'no gated metric can fail any more (load.stop: decision)';
  const against = looks === 'unpaired' ? ", head's starts so far against all of the record's" : '';
  return `after ${blocks}${against}: stop on a regression beyond the look's bound, or once ${clear}`;
}

/** The whole run's estimate, and when each interim look would stop it: "(~1m 5s when the look after block 1 stops early, ~2m 10s after block 2)". */
export function estimateLine(estimate: RunEstimate): string {
  const stops = estimate.earlyStops.map((stop, k) => `~${formatMs(stop.ms)} ${k === 0 ? 'when the look after block' : 'after block'} ${stop.afterBlock + 1}${k === 0 ? ' stops early' : ''}`);
  const early = stops.length > 0 ? ` (${stops.join(', ')})` : '';
  const confirm =
    estimate.confirmMs > 0
      ? `; a failing scenario adds ~${formatMs(estimate.confirmArmMs)} to test its culprit (up to ${formatMs(estimate.confirmMs)}: ${MAX_ARM_BLOCKS} blocks while the answer is unclear, and a next culprit)`
      : '';
  return `estimated time: ~${formatMs(estimate.totalMs)}${early}, plus install and build${confirm}`;
}
