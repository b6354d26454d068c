// The most a configuration may ask for: each bound refuses at once, names the key, the limit
// and the fix, and is in the published JSON Schema; perfgate.yml's size is capped before the
// YAML is parsed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  MAX_BLOCKS,
  MAX_CONFIG_BYTES,
  MAX_INSTANCES,
  MAX_LOAD_MS,
  MAX_PAIRS,
  MAX_REQUESTS,
  MAX_SCENARIOS,
} from '../../src/config/bounds.js';
import { ConfigError, configJsonSchema, loadConfigFile, parseConfigText, resolveConfig } from '../../src/config/index.js';

const START = { start: 'node server.js' };
const lines = (n: number) => Array.from({ length: n }, (_, i) => `GET /route-${i}`);

/** The ConfigError message of a document that must not resolve. */
function problems(document: unknown, overrides?: unknown): string {
  try {
    resolveConfig({ document, overrides, overridesSource: 'action inputs' });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  assert.fail('the configuration resolved');
}

describe('upper bounds of what a configuration asks for', () => {
  test('load.pairs: at most 10000', () => {
    const at = resolveConfig({ document: { service: START, scenarios: ['GET /'], load: { pairs: MAX_PAIRS, blocks: 3 } } });
    assert.equal(at.load.pairs, MAX_PAIRS);
    assert.equal(
      problems({ service: START, scenarios: ['GET /'], load: { pairs: MAX_PAIRS + 1 } }),
      'perfgate.yml: load.pairs: 10001 is not allowed; use an integer of at most 10000 (10000 pairs of 1s are almost 3 hours of load per scenario)',
    );
  });

  test('load.blocks: at most 30', () => {
    const at = resolveConfig({ document: { service: START, scenarios: ['GET /'], load: { blocks: MAX_BLOCKS } } });
    assert.equal(at.load.blocks, MAX_BLOCKS);
    assert.equal(
      problems({ service: START, scenarios: ['GET /'], load: { blocks: MAX_BLOCKS + 1 } }),
      'perfgate.yml: load.blocks: 31 is not allowed; use an integer of at most 30 (every block restarts both sides; for more evidence raise load.pairs or load.instances)',
    );
  });

  test('load.instances: at most 16', () => {
    assert.equal(resolveConfig({ document: { service: START, scenarios: ['GET /'], load: { instances: MAX_INSTANCES } } }).load.instances, 16);
    assert.equal(
      problems({ service: START, scenarios: ['GET /'], load: { instances: MAX_INSTANCES + 1 } }),
      'perfgate.yml: load.instances: 17 is not allowed; use an integer from 1 to 16',
    );
  });

  test('scenarios: at most 200, as a list in the file and as the text of the scenarios input', () => {
    assert.equal(resolveConfig({ document: { service: START, scenarios: lines(MAX_SCENARIOS) } }).scenarios.length, 200);
    const fix =
      'has 201 scenarios; list at most 200 (each is measured on its own for every pair: 10 take 10–40 minutes), and measure the others with a second configuration file (the config input / --config)';
    const listed = problems({ service: START, scenarios: lines(MAX_SCENARIOS + 1) });
    assert.match(listed, /^perfgate\.yml: scenarios: \["GET \/route-0",/);
    assert.ok(listed.endsWith(fix), listed);
    const text = problems({ service: START }, { scenarios: lines(MAX_SCENARIOS + 1).join('\n') });
    assert.match(text, /^action inputs: scenarios: "GET \/route-0\\nGET/);
    assert.ok(text.endsWith(fix), text);
  });

  test('requests of one scenario: at most 100', () => {
    const requests = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `/r${i}` }));
    const at = resolveConfig({ document: { service: START, scenarios: [{ name: 'mix', requests: requests(MAX_REQUESTS) }] } });
    assert.equal(at.scenarios[0]!.requests!.length, 100);
    assert.match(
      problems({ service: START, scenarios: [{ name: 'mix', requests: requests(MAX_REQUESTS + 1) }] }),
      /^perfgate\.yml: scenarios\[0\]\.requests: \[\{"path":"\/r0"\}.* is too long; list at most 100 requests$/,
    );
  });

  test('the measured load of the whole configuration: at most 48 hours', () => {
    // 2880 pairs of 60 s on one scenario are exactly 48 h
    const at = resolveConfig({ document: { service: START, scenarios: ['GET /'], load: { pairs: 2880, slice: '60s' } } });
    assert.equal(at.load.pairs * at.load.sliceMs, MAX_LOAD_MS);
    assert.equal(
      problems({ service: START, scenarios: ['GET /'], load: { pairs: 2881, slice: '60s' } }),
      'perfgate.yml: load.pairs: 2881 is 48 hours of measured load with 1m slices; ask for at most 48 hours: use at most 2880 pairs or a shorter load.slice',
    );
    assert.equal(
      problems({ service: START, scenarios: ['GET /'], load: { pairs: 3000, slice: '30s', mode: 'alternate' } }),
      'perfgate.yml: load.pairs: 3000 is 50 hours of measured load with 30s slices, alternating (base, then head); ask for at most 48 hours: use at most 2880 pairs or a shorter load.slice',
    );
    assert.equal(
      problems({ service: START, scenarios: lines(200), load: { pairs: 1000, slice: '5s' } }),
      'perfgate.yml: load.pairs: 1000 is 278 hours of measured load with 5s slices over 200 scenarios; ask for at most 48 hours: use at most 172 pairs, a shorter load.slice or fewer scenarios',
    );
    // micro-benchmarks alone measure no HTTP load, whatever load says
    assert.equal(resolveConfig({ document: { benchmarks: 'bench/*.js', load: { pairs: MAX_PAIRS, slice: '60s' } } }).scenarios.length, 0);
  });

  test('a configuration that plans thousands of hours is refused at once, every bound it breaks named', () => {
    const started = performance.now();
    const message = problems({ service: START, scenarios: lines(1000), load: { pairs: 1_000_000, blocks: 5000, instances: 64, slice: '60s' } });
    const ms = performance.now() - started;
    assert.deepEqual(
      message.split('\n').map((line) => line.slice(0, line.indexOf(':', 'perfgate.yml: '.length))),
      ['perfgate.yml: scenarios', 'perfgate.yml: load.pairs', 'perfgate.yml: load.blocks', 'perfgate.yml: load.instances'],
    );
    console.log(`refusing pairs 1,000,000 × blocks 5000 × 1000 scenarios took ${ms.toFixed(0)} ms`);
  });

  test('the published JSON Schema carries the bounds', () => {
    const schema = configJsonSchema() as { properties: Record<string, { properties?: Record<string, { maximum?: number }>; anyOf?: { maxItems?: number }[] }> };
    const load = schema.properties['load']!.properties!;
    assert.equal(load['pairs']!.maximum, MAX_PAIRS);
    assert.equal(load['blocks']!.maximum, MAX_BLOCKS);
    assert.equal(load['instances']!.maximum, MAX_INSTANCES);
    assert.deepEqual(
      schema.properties['scenarios']!.anyOf!.map((branch) => branch.maxItems),
      [MAX_SCENARIOS, undefined],
    );
  });
});

describe('the size cap of perfgate.yml, checked before parsing', () => {
  const cap = 'perfgate reads at most 1 MiB (1,048,576 bytes), far more than any configuration needs: check that it is perfgate\'s configuration, and keep data in a file a scenario names (values:)';

  test('a file of exactly 1 MiB is read; one byte more is refused unread', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-bounds-'));
    try {
      const head = 'service: { start: node server.js }\nscenarios: [GET /]\n';
      const filler = `#${'x'.repeat(MAX_CONFIG_BYTES - head.length - 2)}\n`;
      const file = join(dir, 'perfgate.yml');
      writeFileSync(file, head + filler);
      assert.deepEqual(loadConfigFile(file)?.document, { service: { start: 'node server.js' }, scenarios: ['GET /'] });
      writeFileSync(file, `${head + filler}\n`);
      assert.throws(() => loadConfigFile(file), (error: Error) => {
        assert.equal(error.message, `${file}: the config file is 1 MiB (1,048,577 bytes); ${cap}`);
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an endless file (a device or pipe) is refused after 1 MiB', () => {
    assert.throws(() => loadConfigFile('/dev/zero'), (error: Error) => {
      assert.equal(error.message, `/dev/zero: the config file is more than 1 MiB; ${cap}`);
      return true;
    });
  });

  test('text read from a commit is refused before the YAML is parsed', () => {
    const text = `scenarios:\n${'  - GET /x\n'.repeat(200_000)}`;
    assert.throws(() => parseConfigText(text, 'head:perfgate.yml'), (error: Error) => {
      assert.equal(error.message, `head:perfgate.yml: the config file is 2.1 MiB (2,200,011 bytes); ${cap}`);
      return true;
    });
  });

  test('a 60 MB perfgate.yml on disk is refused in little time and memory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perfgate-bounds-'));
    try {
      const file = join(dir, 'perfgate.yml');
      // Valid YAML all the way: a parser would build every one of these scenarios.
      writeFileSync(file, `scenarios:\n${'  - GET /a-route-of-the-service\n'.repeat(1_875_000)}`);
      // A fresh process, so its peak memory is the refusal's alone.
      const script = `
        const { loadConfigFile } = await import(${JSON.stringify(new URL('../../src/config/load.ts', import.meta.url).href)});
        const before = process.resourceUsage().maxRSS;
        const started = performance.now();
        let message = null;
        try { loadConfigFile(${JSON.stringify(file)}); } catch (error) { message = error.message; }
        const ms = performance.now() - started;
        console.log(JSON.stringify({ message, ms, beforeKb: before, peakKb: process.resourceUsage().maxRSS }));`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      const figures = JSON.parse(child.stdout) as { message: string; ms: number; beforeKb: number; peakKb: number };
      assert.equal(figures.message, `${file}: the config file is 57.2 MiB (60,000,011 bytes); ${cap}`);
      // Parsing it would take gigabytes; refusing it unread adds nothing to the process's peak.
      assert.ok(figures.peakKb - figures.beforeKb < 50 * 1024, `peak grew by ${figures.peakKb - figures.beforeKb} kB`);
      console.log(
        `refusing a 60 MB perfgate.yml: ${figures.ms.toFixed(2)} ms; peak RSS ${(figures.peakKb / 1024).toFixed(0)} MB (${((figures.peakKb - figures.beforeKb) / 1024).toFixed(1)} MB above the process before it)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
