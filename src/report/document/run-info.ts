/**
 * How a run was made, in words: which commits, on what machine, how many pairs, as document
 * lines: text from outside perfgate (refs, the CPU's name, error messages) stays apart from
 * perfgate's words, for the printers to escape.
 */
import type { Analysis, Environment, Results, SideInfo, TakenLook } from '../../results/types.js';
import { formatCount, formatDurationUs, formatInteger, formatP, truncate } from '../../stats/format.js';
import { escapeUrl } from '../escape.js';
import type { Line } from './types.js';

/** Longest error message quoted; a stack trace belongs in the logs, not in the comment. */
const MAX_ERROR_CHARS = 500;

export interface PairCounts {
  /** Fewest and most pairs measured in any scenario (they differ only when a run stopped). */
  min: number;
  max: number;
  /** Pairs per scenario the config asked for. */
  planned: number;
  /** The sequential design stopped the run at an interim look. */
  stoppedEarly: boolean;
}

/** A commit's short sha, linked to the commit's page of `repository` when there is one. */
function commit(sha: string, repository: string | null): Line {
  const href = repository === null ? null : escapeUrl(`${repository}/commit/${encodeURIComponent(sha)}`);
  return [{ kind: 'text', text: sha.slice(0, 7), ...(href !== null && { href }) }];
}

/**
 * "main@abc1234"; the work tree of a dirty head says so (its state is no commit: no link). The
 * ref is outside text with its "@": a ref such as "release-" would otherwise put "-@abc1234" in
 * the comment, a mention of user abc1234.
 */
function describeSide(side: SideInfo, repository: string | null): Line {
  const text: Line = [{ kind: 'text', text: `${side.ref}@` }, ...commit(side.sha, side.dirty ? null : repository)];
  return side.dirty ? [...text, { kind: 'label', text: ' (uncommitted changes)' }] : text;
}

/** "base main@abc1234 → head my-branch@def5678", each sha linked to its commit in `repository` (a web address) when given. */
export function describeSides(results: Results, repository: string | null = null): Line {
  const head = describeSide(results.sides.head, repository);
  const stored = results.baseline;
  if (stored) {
    // Base was not measured here: name the record it stands for.
    const run: Line = stored.runId ? [{ kind: 'label', text: ' (run ' }, { kind: 'text', text: stored.runId }, { kind: 'label', text: ')' }] : [];
    return [{ kind: 'label', text: 'base: stored record of ' }, ...commit(stored.sha, repository), ...run, { kind: 'label', text: ' → head ' }, ...head];
  }
  return [{ kind: 'label', text: 'base ' }, ...describeSide(results.sides.base, repository), { kind: 'label', text: ' → head ' }, ...head];
}

/** Lines joined by perfgate's separator. */
function joinLines(lines: Line[], separator: string): Line {
  return lines.flatMap((line, i) => (i === 0 ? line : [{ kind: 'label', text: separator } as const, ...line]));
}

function words(text: string): Line {
  return [{ kind: 'label', text }];
}

/** "24.11" from "v24.11.1": the minor version is what changes performance. */
export function shortNodeVersion(version: string): string {
  const match = /^v?(\d+)\.(\d+)/.exec(version);
  return match ? `${match[1]}.${match[2]}` : version;
}

/** "AMD EPYC 7763" from "AMD EPYC 7763 64-Core Processor"; the full name is in the details. */
export function shortCpuModel(model: string): string {
  const short = model
    .replace(/\((R|TM|tm)\)/g, '')
    .replace(/@.*$/, '')
    .replace(/\b\d+-Core\b/gi, '')
    .replace(/\b(CPU|Processor)\b/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
  return short === '' ? model.trim() : short;
}

/** Pairs measured per scenario, counted from the data (a stopped run has fewer than planned). */
export function countPairs(results: Results, analysis: Analysis): PairCounts {
  const counts = results.scenarios.map((s) => s.pairs.length);
  return {
    min: counts.length === 0 ? 0 : Math.min(...counts),
    max: counts.length === 0 ? 0 : Math.max(...counts),
    planned: results.config.load.pairs,
    stoppedEarly: analysis.earlyStop !== null,
  };
}

/** "60 pairs", "37 of 60 pairs", "37–60 of 60 pairs" (per scenario). */
export function describePairs(counts: PairCounts): string {
  const measured = counts.min === counts.max ? formatCount(counts.min) : `${formatCount(counts.min)}–${formatCount(counts.max)}`;
  if (counts.min === counts.planned && counts.max === counts.planned) return `${measured} pairs`;
  return `${measured} of ${formatCount(counts.planned)} pairs${counts.stoppedEarly ? ' (stopped early)' : ''}`;
}

/**
 * What the adaptive stopping did, in words: where it looked, what it decided and why, and the
 * levels of the design; null for runs without an interim look (or before one was taken).
 */
export function describeStopping(results: Results): Line | null {
  const sequential = results.sequential;
  const interims = sequential?.taken.filter((look) => look.look < sequential.looks.length - 1) ?? [];
  if (!sequential || interims.length === 0) return null;
  const planned = results.config.load;
  const where = (look: TakenLook, first: boolean) => {
    const block = sequential.looks[look.look]!.afterBlock + 1;
    return `after block ${formatInteger(block)}${first ? ` of ${formatInteger(planned.blocks)}` : ''} (${formatCount(look.pairs)} of ${formatCount(planned.pairs)} pairs per scenario)`;
  };
  const levels = sequential.looks.map((look) => formatP(look.nominalAlpha));
  // Against a record the looks test head's starts so far against all of the record's (engine/plan.ts, information).
  const over = results.baseline ? ", over head's starts against the record's" : '';
  const design = `${sequential.design} design${over} keeping alpha ${formatP(sequential.alpha)}: interim ${levels.length > 2 ? 'levels' : 'level'} ${levels.slice(0, -1).join(', ')}, final level ${levels.at(-1)}`;
  // The reason a look gives quotes the run's scenario names: outside text.
  const said = interims.map((look, i): Line => [{ kind: 'label', text: `${where(look, i === 0)}: ` }, { kind: 'text', text: look.reason }]);
  const last = interims.at(-1)!;
  if (last.decision === 'continue') {
    const went = sequential.taken.some((look) => look.decision === 'final') ? 'went on to all pairs' : 'went on';
    const looked = interims.length === 1 ? 'Looked once' : `Looked ${interims.length === 2 ? 'twice' : `${interims.length} times`}`;
    return [...words(`${looked} `), ...joinLines(said, '; then '), ...words(`; ${went} (${design}).`)];
  }
  if (said.length === 1) return [...words('Stopped early '), ...said[0]!, ...words(` (${design}).`)];
  return [...words('Looked '), ...joinLines(said.slice(0, -1), '; then '), ...words('; then stopped early '), ...said.at(-1)!, ...words(` (${design}).`)];
}

/** Rounds of micro-benchmarks that ran (any process), and how many were planned. */
export function countRounds(results: Results): { measured: number; planned: number } | null {
  const benchmarks = results.benchmarks;
  if (!benchmarks) return null;
  return { measured: new Set(benchmarks.runs.map((r) => r.round)).size, planned: benchmarks.rounds };
}

/** "10 rounds of micro-benchmarks", "7 of 10 rounds of micro-benchmarks". */
function describeRounds(rounds: { measured: number; planned: number }): string {
  const measured = rounds.measured === rounds.planned ? formatCount(rounds.measured) : `${formatCount(rounds.measured)} of ${formatCount(rounds.planned)}`;
  return `${measured} ${rounds.planned === 1 ? 'round' : 'rounds'} of micro-benchmarks`;
}

/** What was measured: "60 pairs", "10 rounds of micro-benchmarks", or both. */
function describeMeasured(results: Results, analysis: Analysis): string[] {
  const rounds = countRounds(results);
  return [
    ...(results.scenarios.length > 0 ? [describePairs(countPairs(results, analysis))] : []),
    ...(rounds === null ? [] : [describeRounds(rounds)]),
  ];
}

/** "Node 24.11 · 2 vCPU AMD EPYC 7763 · 60 pairs × 1 s · seed 42" (and the micro-benchmark rounds). */
export function describeSetup(results: Results, analysis: Analysis): Line {
  const env: Environment = results.environment;
  const rounds = countRounds(results);
  return joinLines(
    [
      [...words('Node '), { kind: 'text', text: shortNodeVersion(env.nodeVersion) }],
      [...words(`${formatInteger(env.cpus)} vCPU `), { kind: 'text', text: shortCpuModel(env.cpuModel) }],
      ...(results.scenarios.length > 0
        ? [words(`${describePairs(countPairs(results, analysis))} × ${formatDurationUs(results.config.load.sliceMs * 1000)}`)]
        : []),
      ...(rounds === null ? [] : [words(describeRounds(rounds))]),
      words(`seed ${formatInteger(results.seed)}`),
    ],
    ' · ',
  );
}

/**
 * Why base ran with head's service commands (the pull request's), or null when it ran with its
 * own: said in the headline, as it changes what the comparison means.
 */
export function describeBaseCommands(results: Results): Line | null {
  const warning = results.warnings.find((w) => w.code === 'base-config-unusable');
  return warning ? [{ kind: 'text', text: truncate(warning.message, MAX_ERROR_CHARS) }] : null;
}

/**
 * Null for a complete run; otherwise why it is incomplete and what the verdicts rest on,
 * e.g. "the run failed: service exited (code 1). The verdicts use the 4 of 6 pairs measured so far."
 */
export function describeIncomplete(results: Results, analysis: Analysis): Line | null {
  if (results.status === 'complete') return null;
  const cause: Line =
    results.status === 'running'
      ? words('the run is still in progress')
      : [
          ...words('the run failed: '),
          results.error ? { kind: 'text', text: truncate(results.error, MAX_ERROR_CHARS) } : { kind: 'label', text: 'no error message was recorded' },
        ];
  return [...cause, ...words(`. The verdicts use the ${describeMeasured(results, analysis).join(' and ')} measured so far.`)];
}
