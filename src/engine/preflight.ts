/**
 * Everything that can be checked before a checkout: base and head resolve to commits, and the
 * configuration (head's perfgate.yml under the flags or inputs) is valid. The compare service
 * (compare/service.ts) calls it first, so a typo costs a second instead of a worktree, an
 * install and an empty run folder; `perfgate plan` stops here.
 */
import { isAbsolute, join } from 'node:path';
import { ConfigError, configSizeLimit, DEFAULT_CONFIG_FILE, loadConfigFile, parseConfigText, resolveConfigWithScenarios } from '../config/load.js';
import type { PerfgateConfig } from '../config/types.js';
import { type ResolvedSides, readAtCommit, resolveSides } from './workspace/trees.js';

export interface PreflightRequest {
  /** Any directory inside the repository. */
  repoDir: string;
  baseRef: string;
  mergeBase: boolean;
  /** null: the work tree as it is. */
  headRef: string | null;
  /** Config file named by the user (absolute, or relative to head's root), or null for an optional perfgate.yml. */
  configFile: string | null;
  /** Flags or inputs in the perfgate.yml shape (they win over the file). */
  overrides: unknown;
  /** Who gave the overrides, for messages: "command-line flags", "action inputs". */
  overridesSource: string;
  /** Scenario names to select from the file, or ad-hoc scenario lines (resolveConfigWithScenarios); empty: all. */
  scenarios?: readonly string[];
}

export interface Preflight extends ResolvedSides {
  config: PerfgateConfig;
  /**
   * The configuration as the base commit has it, under the same flags or inputs: base's service is
   * installed, built, set up and started as base wrote it, never as the pull request says. null
   * when base has none that resolves (baseConfigProblem says why).
   */
  baseConfig: PerfgateConfig | null;
  baseConfigProblem: string | null;
  /** Where the configuration file was read from; null when there was none. */
  configSource: string | null;
}

export async function preflight(request: PreflightRequest): Promise<Preflight> {
  const sides = await resolveSides(request);
  const loaded = await readHeadConfig(sides, request.headRef !== null, request.configFile);
  const config = resolveConfigWithScenarios(
    {
      document: loaded?.document,
      source: loaded?.source ?? DEFAULT_CONFIG_FILE,
      overrides: request.overrides,
      overridesSource: request.overridesSource,
    },
    request.scenarios ?? [],
  );
  const base = await readBaseConfig(sides, request, loaded?.document);
  return { ...sides, config, configSource: loaded?.source ?? null, ...base };
}

/**
 * Base's configuration file at the base commit, resolved like head's; a problem instead when it
 * cannot be. A base without the file (from before perfgate was set up) gets its service from the
 * flags or inputs and perfgate's defaults, with head's scenarios, load and gate (the run uses
 * head's for those anyway): never head's service commands, which are the pull request's to write.
 * When those give base no service to start, base runs with head's commands, and the problem says so.
 */
async function readBaseConfig(
  sides: ResolvedSides,
  request: PreflightRequest,
  headDocument: unknown,
): Promise<Pick<Preflight, 'baseConfig' | 'baseConfigProblem'>> {
  const name = request.configFile ?? DEFAULT_CONFIG_FILE;
  if (isAbsolute(name)) return { baseConfig: null, baseConfigProblem: `the configuration file ${name} is outside the repository` };
  const source = `${sides.base.ref}:${name}`;
  const resolve = (document: unknown) =>
    resolveConfigWithScenarios({ document, source, overrides: request.overrides, overridesSource: request.overridesSource }, request.scenarios ?? []);
  const firstLine = (error: unknown) => (error instanceof ConfigError ? error.message.split('\n')[0]! : (error as Error).message);
  let text: string | null;
  try {
    text = await readAtCommit(sides.root, sides.base.sha, name, configSizeLimit(source));
    if (text !== null) return { baseConfig: resolve(parseConfigText(text, source)), baseConfigProblem: null };
  } catch (error) {
    return { baseConfig: null, baseConfigProblem: firstLine(error) };
  }
  try {
    return { baseConfig: resolve(withoutService(headDocument)), baseConfigProblem: null };
  } catch (error) {
    return {
      baseConfig: null,
      baseConfigProblem: `base has no ${name}, and the ${request.overridesSource} and perfgate's defaults give it no service to start (${firstLine(error)})`,
    };
  }
}

/** A configuration document without its service: what base may take from head's file. */
function withoutService(document: unknown): unknown {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return document;
  const { service: _, ...rest } = document as Record<string, unknown>;
  return rest;
}

/** Head's configuration file: from the work tree, or from the head commit without checking it out. */
async function readHeadConfig(
  sides: ResolvedSides,
  fromCommit: boolean,
  configFile: string | null,
): Promise<{ document: unknown; source: string } | null> {
  const required = configFile !== null;
  const name = configFile ?? DEFAULT_CONFIG_FILE;
  if (isAbsolute(name) || !fromCommit) return loadConfigFile(isAbsolute(name) ? name : join(sides.root, name), { required });
  const source = `${sides.head.ref}:${name}`;
  const text = await readAtCommit(sides.root, sides.head.sha, name, configSizeLimit(source));
  if (text === null) {
    if (!required) return null;
    throw new ConfigError([`${source}: config file not found in the head commit; check the path given as --config`]);
  }
  return { document: parseConfigText(text, source), source };
}
