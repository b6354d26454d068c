/**
 * baseline: stored — on a pull request, compare head with the newest record of the pull
 * request's base commit (mode: record on a push stored it) instead of measuring base beside it.
 * The record is found through the artifacts API, believed only from a push (or manual or
 * scheduled) run of this repository at that sha (github/records.ts), read as strictly as report
 * mode reads a results artifact (digest, zip, size, schema), and refused when this runner's
 * environment differs from the one that recorded it. Then head alone is measured (on both of the
 * engine's sides) and compared unpaired (assess/unpaired.ts).
 */
import * as core from '@actions/core';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storedBaseline, type Variant } from '../compare/variant.js';
import { ArtifactError, downloadRunArtifact, extractArtifactFile } from '../github/artifacts.js';
import { createClient, describeApiError } from '../github/client.js';
import { pullRequestOf } from '../github/event.js';
import { listRecords, type RecordArtifact, recordArtifactName, untrustedRecordReason } from '../github/records.js';
import { UntrustedResultsError } from '../github/workflow-run.js';
import { BaselineError, baselineOf } from '../results/baseline.js';
import { readResults } from '../results/io.js';
import type { StoredBaseline } from '../results/types.js';
import { validateResults } from '../results/validate.js';
import type { RunContext } from './context.js';
import { type ActionInputs, InputError } from './inputs.js';
import { actionLogger } from './logger.js';
import { refuseShard } from './record-mode.js';

/** As report mode: a record over 64 MiB is not one perfgate wrote. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export async function storedBaselineRun(inputs: ActionInputs, context: RunContext): Promise<Variant> {
  refuseShard(inputs, 'baseline: stored');
  const pr = pullRequestOf(context.payload);
  if (!pr?.baseSha) {
    throw new InputError(
      `baseline: stored compares a pull request's head with the record of its base, and this "${context.eventName}" event has no pull request. ` +
        'On pushes to main, record with mode: record (example-workflows/perf-baseline.yml).',
    );
  }
  const { token, id } = inputs.github;
  if (!token || !context.repo) {
    throw new InputError('baseline: stored finds the record through the GitHub API: it needs the github-token input (github.token with actions: read works).');
  }
  const repo = context.repo;
  const sha = pr.baseSha;
  const client = createClient(token, actionLogger);
  const name = recordArtifactName(id, sha);
  let records: RecordArtifact[];
  try {
    records = await listRecords(client, repo, id, sha);
  } catch (e) {
    throw new ArtifactError(describeApiError(e, `list the artifacts named ${name}`, 'actions: read'));
  }
  if (records.length === 0) {
    throw new BaselineError(
      `No record of ${sha} (the base of pull request #${pr.number}${pr.baseRef ? `, on ${pr.baseRef}` : ''}): no artifact named ${name}. ` +
        'A push to the base branch with mode: record creates one (example-workflows/perf-baseline.yml); run that workflow on this commit ' +
        '(re-run its push run, or start it by workflow_dispatch), or compare on one runner with baseline: same-runner. Records expire with the repository\'s artifact retention.',
    );
  }
  // The newest record a trusted run uploaded: an artifact any other run uploaded under the name is skipped, and named.
  let chosen: RecordArtifact | null = null;
  const refused: string[] = [];
  for (const record of records) {
    let reason: string | null;
    try {
      reason = await untrustedRecordReason(client, repo, record, sha);
    } catch (e) {
      throw new ArtifactError(describeApiError(e, `read run ${record.runId}, which uploaded ${name}`, 'actions: read'));
    }
    if (reason === null) {
      chosen = record;
      break;
    }
    refused.push(reason);
    core.warning(`perfgate: ignoring the artifact ${name} (id ${record.id}): ${reason}.`);
  }
  if (chosen === null) {
    throw new UntrustedResultsError(`Refusing every artifact named ${name}: ${refused.join('; ')}. Record ${sha.slice(0, 7)} with mode: record on a push.`);
  }
  if (chosen.sizeBytes > MAX_RECORD_BYTES) {
    throw new ArtifactError(`The record ${name} of run ${chosen.runId} is ${chosen.sizeBytes} bytes, more than a results file can be: refusing to read it.`);
  }
  const baseline = readBaseline(await downloadRecord(token, context, chosen), sha, chosen);
  const source = `the record of run ${chosen.runId}`;
  core.info(`perfgate: comparing with the record of ${sha.slice(0, 7)} from run ${chosen.runId} (${baseline.recordedAt})`);
  return storedBaseline(baseline, source, { env: context.env, cwd: context.workspace });
}

/** Downloads the record's archive and unpacks its results.json (size-capped), returning the file's path. */
async function downloadRecord(token: string, context: RunContext, record: RecordArtifact): Promise<string> {
  const dir = join(context.tempDir, `perfgate-record-${record.id}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = await downloadRunArtifact(token, context.repo!, record.runId, record, dir);
  const bytes = extractArtifactFile(archive, 'results.json', MAX_RECORD_BYTES, `the record ${record.name} of run ${record.runId}`);
  const path = join(dir, 'results.json');
  writeFileSync(path, bytes);
  return path;
}

/** The record's results.json, read and validated field by field as report mode reads a results artifact, as this comparison's baseline. */
function readBaseline(path: string, sha: string, record: RecordArtifact): StoredBaseline {
  const source = `the record ${record.name} of run ${record.runId}`;
  return baselineOf(validateResults(readResults(path, { maxBytes: MAX_RECORD_BYTES }), source), sha, String(record.runId), source);
}
