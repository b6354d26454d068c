/**
 * mode: record — on a push to main (or a manual or scheduled run), measure the checked-out commit
 * alone and store its results as an artifact named after the commit (github/records.ts), for
 * pull requests on that commit to compare with (baseline: stored). Each record carries the
 * environment it was measured in (results.environment: CPU, kernel, OS image, Node, V8, flags,
 * the configuration's hash) and perfgate's version; the pull request's run refuses a record
 * whose environment differs from its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STORED_NOT_SHARDED } from '../compare/shard.js';
import { RECORD, type Variant } from '../compare/variant.js';
import { ArtifactError, uploadArchive, uploadUnavailable } from '../github/artifacts.js';
import { recordArtifactName } from '../github/records.js';
import { serializeResults } from '../results/io.js';
import type { Results } from '../results/types.js';
import type { RunContext } from './context.js';
import type { StepFiles } from './file-commands.js';
import { type ActionInputs, InputError } from './inputs.js';

/** Events whose code someone with write access pushed or started; a pull request's run never writes a record. */
const RECORD_EVENTS = ['push', 'workflow_dispatch', 'schedule'];

/** A stored baseline's two halves, a record and a gate against it, run unsharded (compare/shard.ts). */
export function refuseShard(inputs: ActionInputs, what: string): void {
  const shard = inputs.settings.shard;
  if (typeof shard === 'string' && shard.trim() !== '') throw new InputError(`${what} with shard: ${shard}: ${STORED_NOT_SHARDED} (example-workflows/perf-baseline.yml).`);
}

/** The record variant, refused on an event whose code a pull request wrote, sharded, or where no artifact can be stored. */
export function recordRun(inputs: ActionInputs, context: RunContext): Variant {
  if (!RECORD_EVENTS.includes(context.eventName)) {
    throw new InputError(
      `mode: record runs on ${RECORD_EVENTS.join(', ')} events, not on "${context.eventName || 'no event'}": ` +
        "a record is the baseline pull requests are judged against, so a pull request's code must not write one (example-workflows/perf-baseline.yml).",
    );
  }
  refuseShard(inputs, 'mode: record');
  const unavailable = uploadUnavailable(context.env);
  if (unavailable) throw new ArtifactError(`mode: record stores its results as an artifact, and cannot here: ${unavailable}.`);
  return RECORD;
}

/** The measured record, uploaded as its artifact, with the step's outputs and summary. */
export async function publishRecord(inputs: ActionInputs, results: Results, resultsPath: string, outDir: string, files: StepFiles): Promise<void> {
  const sha = results.sides.head.sha;
  const name = recordArtifactName(inputs.github.id, sha);
  const dir = join(outDir, 'record');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'results.json');
  writeFileSync(file, serializeResults(results));
  const uploaded = await uploadArchive(name, [file], dir);
  const starts = new Set(results.scenarios.flatMap((s) => s.pairs.map((p) => p.start))).size * 2;
  const env = results.environment;
  files.setOutput('results-path', resultsPath);
  files.setOutput('record-artifact', name);
  files.setOutput('decision', '');
  await files.appendSummary(
    `## perfgate: recorded ${sha.slice(0, 7)}\n\n` +
      `${results.scenarios.length} scenario(s) over ${starts} starts of ${sha.slice(0, 7)}, stored as the artifact **${name}** (${uploaded.sizeBytes} bytes). ` +
      'Pull requests based on this commit compare with it when they set `baseline: stored`.\n\n' +
      `Measured on ${env.cpus} × ${env.cpuModel}, kernel ${env.kernel ?? '?'}, ${env.osImage ?? 'unknown image'}, Node ${env.nodeVersion} (V8 ${env.v8Version ?? '?'}), perfgate ${results.tool.version}.\n`,
  );
}
