// Azurite (the Azure Blob emulator) as the e2e tests' blob storage: one process, its blob service
// on a free port, in memory. Plain JavaScript so that scripts/test.mjs can start one for a whole
// run and hand its URL to every e2e file (PERFGATE_TEST_AZURITE), each file then storing its
// blobs in a container of its own: starting Azurite costs a few seconds of CPU per process.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../node_modules/azurite/dist/src/blob/main.js', import.meta.url));

/** Starts Azurite; resolves with its process and its blob service's URL once it listens. */
export async function startAzurite() {
  const scratch = mkdtempSync(join(tmpdir(), 'perfgate-azurite-'));
  const child = spawn(
    process.execPath,
    [MAIN, ...['--blobHost', '127.0.0.1', '--blobPort', '0'], ...['--inMemoryPersistence', '--skipApiVersionCheck', '--loose', '--disableTelemetry']],
    // In memory, so nothing is written; the scratch cwd catches anything that still is.
    { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`Azurite did not start:\n${output}`)), 20_000);
    child.stdout.on('data', (chunk) => {
      output += chunk.toString();
      const match = /listens on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1].replace(/\/$/, ''));
      }
    });
    child.stderr.on('data', (chunk) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`Azurite exited (${code}):\n${output}`)));
  });
  return { process: child, url };
}
