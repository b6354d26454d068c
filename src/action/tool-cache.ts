/**
 * The engine's tool cache in the action: GitHub's Actions cache (@actions/cache: the cache
 * service at ACTIONS_RESULTS_URL, blob storage at the signed URLs it hands out). It keeps the 0x
 * install between workflow runs, so only the first run of a key pays for `npm install`.
 * Best effort throughout: no cache service (a local run, GitHub Enterprise Server without the
 * cache) is a quiet skip, and a failing one only warns; either way 0x is installed as before.
 */
import * as cache from '@actions/cache';
import * as core from '@actions/core';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DirectoryCache } from '../engine/ports.js';
import { programPathOrNull } from '../engine/process/programs.js';

/** What @actions/cache runs: tar, and the compressors tar starts by name (zstd's version probe, unzstd, zstdmt, gzip). */
export const ARCHIVE_PROGRAMS = ['tar', 'zstd', 'unzstd', 'zstdmt', 'gzip'] as const;

/**
 * Runs `call` with PATH holding only the archive programs as perfgate found them when it
 * started. The toolkit looks tar and zstd up on PATH at each call, and tar looks up its
 * compressor, all with the runner's cache token in their environment: a program the pull
 * request's install planted on PATH (~/.local/bin comes first on GitHub's runners) would
 * otherwise be the one run.
 */
async function withOwnArchivers<T>(call: () => Promise<T>): Promise<T> {
  const bin = mkdtempSync(join(tmpdir(), 'perfgate-archivers-'));
  const path = process.env.PATH;
  try {
    for (const name of ARCHIVE_PROGRAMS) {
      const file = programPathOrNull(name);
      if (file) symlinkSync(file, join(bin, name));
    }
    process.env.PATH = bin;
    return await call();
  } finally {
    process.env.PATH = path;
    rmSync(bin, { recursive: true, force: true });
  }
}

/** Why the cache cannot be used here, or null when it can. */
export function cacheUnavailable(env: Record<string, string | undefined>): string | null {
  if (!env.ACTIONS_RUNTIME_TOKEN) return 'ACTIONS_RUNTIME_TOKEN not set (not running as a step on a GitHub runner)';
  // The toolkit's own check: ACTIONS_RESULTS_URL for the cache service v2, ACTIONS_CACHE_URL for v1 (GHES).
  if (!cache.isFeatureAvailable()) return 'the runner offers no cache service (ACTIONS_RESULTS_URL / ACTIONS_CACHE_URL not set)';
  return null;
}

export function actionToolCache(env: Record<string, string | undefined>): DirectoryCache {
  const unavailable = cacheUnavailable(env);
  return {
    async restore(dir, key) {
      if (unavailable) {
        core.info(`perfgate: tools not restored from the Actions cache: ${unavailable}`);
        return false;
      }
      try {
        // The toolkit logs a hit ("Cache hit for: …") and warns on a failed download itself.
        const hit = await withOwnArchivers(() => cache.restoreCache([dir], key));
        if (hit === undefined) core.info(`perfgate: no Actions cache for ${key} yet; installing, then saving it`);
        return hit !== undefined;
      } catch (e) {
        core.warning(`perfgate: could not restore ${key} from the Actions cache (installing instead): ${(e as Error).message}`);
        return false;
      }
    },
    async save(dir, key) {
      if (unavailable) return;
      try {
        const id = await withOwnArchivers(() => cache.saveCache([dir], key));
        if (id !== -1) core.info(`perfgate: saved ${dir} to the Actions cache as ${key}`);
      } catch (e) {
        core.warning(`perfgate: could not save ${key} to the Actions cache (the next run installs it again): ${(e as Error).message}`);
      }
    },
  };
}
