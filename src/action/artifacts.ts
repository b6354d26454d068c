/**
 * The run's artifacts as the comment links them. Gate mode uploads them: each HTML report
 * (flamegraphs) as a single un-zipped file, so its link opens it in the browser, then
 * results.json with the full report as one zip. Report mode links what the measuring run uploaded.
 */
import * as core from '@actions/core';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, normalize } from 'node:path';
import { artifactUrl, type RunArtifact, uploadArchive, uploadFile, uploadUnavailable } from '../github/artifacts.js';
import type { Repo } from '../github/event.js';
import { type ArtifactLink, filesNamedByResults } from '../report/comment.js';
import type { Results } from '../results/types.js';
import type { RunContext } from './context.js';

export interface RunArtifacts {
  /** Every artifact of this gate, results first. */
  links: ArtifactLink[];
  /** The zip with results.json and the full report. */
  fullReport?: ArtifactLink;
  /** "sha256:<hex>" of the results.json in the zip (the step's results-digest output). */
  resultsDigest?: string;
}

/** The digest a report job checks the downloaded results.json against: sha256 of its bytes. */
export function resultsDigestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const RESULTS_LABEL = 'results.json and full report (zip)';

/**
 * HTML reports of the run (flamegraphs), as paths relative to the run directory: the files
 * results.json names, and any other HTML file at the top of the run directory. Never below it
 * otherwise: trees/ and logs/ hold the user's code and output.
 */
function htmlReports(outDir: string, results: Results): string[] {
  const top = readdirSync(outDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.html'))
    .map((entry) => entry.name);
  const inside = (file: string) => !isAbsolute(file) && !normalize(file).split(/[\\/]/).includes('..');
  return [...new Set([...filesNamedByResults(results).filter(inside), ...top])].sort();
}

/** An un-zipped artifact is named after its file, and names are unique per run: prefix and flatten it. */
function artifactNameOf(prefix: string, file: string): string {
  return `${prefix}-${file.replace(/[\\/]/g, '-')}`;
}

/**
 * Uploads the run's artifacts under `prefix`. `report` renders the full report given the links
 * uploaded so far (the zip holds it). A failed upload only warns: the verdict stands without it.
 * results.json is uploaded from `resultsJson`, the bytes perfgate holds in memory, never read
 * back from the run directory, where the PR's code could have rewritten it; it is staged in a
 * new directory just before the upload, and its digest is returned for the step's
 * output, so a report job can tell whether the uploaded file is that one.
 */
export async function uploadRunArtifacts(options: {
  outDir: string;
  results: Results;
  resultsJson: Buffer;
  prefix: string;
  context: RunContext;
  report(links: ArtifactLink[]): string;
}): Promise<RunArtifacts> {
  const { outDir, prefix, context } = options;
  const unavailable = uploadUnavailable(context.env) ?? (context.repo && context.runId ? null : 'GITHUB_REPOSITORY or GITHUB_RUN_ID not set');
  if (unavailable) {
    core.info(`perfgate: artifacts not uploaded: ${unavailable}`);
    return { links: [] };
  }
  const link = (artifact: RunArtifact, label: string): ArtifactLink => ({
    label,
    url: artifactUrl(context.serverUrl, context.repo!, context.runId!, artifact.id),
  });
  const stage = join(outDir, 'artifacts');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });

  const html: ArtifactLink[] = [];
  for (const file of htmlReports(outDir, options.results)) {
    try {
      const staged = join(stage, artifactNameOf(prefix, file));
      copyFileSync(join(outDir, file), staged);
      html.push({ ...link(await uploadFile(staged), basename(file)), file });
    } catch (e) {
      core.warning(`perfgate: could not upload ${file} as an artifact: ${(e as Error).message}`);
    }
  }

  const resultsDigest = resultsDigestOf(options.resultsJson);
  try {
    // stage was emptied above: the directory is new, and nothing in it was there when PR code ran.
    const dir = join(stage, prefix);
    mkdirSync(dir);
    writeFileSync(join(dir, 'results.json'), options.resultsJson);
    writeFileSync(join(dir, 'report.md'), options.report(html));
    const results = link(await uploadArchive(prefix, [join(dir, 'results.json'), join(dir, 'report.md')], dir), RESULTS_LABEL);
    return { links: [results, ...html], fullReport: results, resultsDigest };
  } catch (e) {
    core.warning(`perfgate: could not upload results.json as an artifact: ${(e as Error).message}`);
    return { links: html };
  }
}

/** Whether an artifact of the measuring run belongs to this gate and attempt. */
function belongsTo(name: string, prefix: string): boolean {
  if (name === prefix) return true;
  const rest = name.slice(prefix.length);
  return name.startsWith(prefix) && rest.startsWith('-') && name.toLowerCase().endsWith('.html') && !/^-attempt\d+-/.test(rest);
}

/** Report mode: links to this gate's artifacts of the measuring run (already listed). */
export function linkRunArtifacts(
  artifacts: RunArtifact[],
  prefix: string,
  results: Results,
  location: { serverUrl: string; repo: Repo; runId: number },
): RunArtifacts {
  const url = (a: RunArtifact) => artifactUrl(location.serverUrl, location.repo, location.runId, a.id);
  const resultsArtifact = artifacts.find((a) => a.name === prefix);
  const fullReport = resultsArtifact ? { label: RESULTS_LABEL, url: url(resultsArtifact) } : undefined;
  // The names results.json gives its files, to map flattened artifact names back to them.
  const named = new Map(filesNamedByResults(results).map((file) => [artifactNameOf(prefix, file), file]));
  const html = artifacts
    .filter((a) => a !== resultsArtifact && belongsTo(a.name, prefix))
    .map((a) => {
      const file = named.get(a.name) ?? a.name.slice(prefix.length + 1);
      return { label: basename(file), url: url(a), file };
    });
  return { links: fullReport ? [fullReport, ...html] : html, ...(fullReport && { fullReport }) };
}
