'use strict';
/*
 * perfgate's micro-benchmark preload, given to every benchmark process with
 * `node --require <this file> <benchmark file>`.
 *
 * It hooks the user's own copy of benchmark.js, tinybench or mitata when their code loads it
 * (whatever file calls run(), CommonJS or ESM), and appends one JSON line per benchmark that
 * finishes to PERFGATE_BENCH_OUTPUT. The user's console output is left alone: perfgate reads
 * these records, never the text a suite prints.
 *
 * How each library is reached:
 * - CommonJS `require`, and ESM importing a CommonJS library (Node calls Module._load with the
 *   resolved path): a wrapper around Module._load sees the exports as they are returned.
 * - ESM libraries imported from ESM (tinybench, mitata): module.register() hooks (Node >= 20.6)
 *   append to the library's entry module a self-import that hands its namespace to us once it
 *   has evaluated, before any user code can call it.
 * Hook points, from each library's source:
 * - benchmark.js: every Benchmark emits 'complete' on itself when done, in a Suite or alone;
 *   Benchmark.prototype.emit is wrapped (clones, which carry `_original`, are skipped), and
 *   Suite.prototype.push tells which suite a benchmark belongs to.
 * - tinybench: Bench.prototype.run / runSync resolve with every task's `result`.
 * - mitata: run() measures each trial through B.prototype.run, which returns its stats.
 * Prototypes are patched, not exports, so ESM namespaces (read-only) need no rewriting.
 *
 * Plain CommonJS with no dependencies: it runs inside the user's process before their code.
 * Nothing here may throw into the user's program; a failure to capture shows up as a file
 * without results, which the engine reports.
 */
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const { isMainThread } = require('node:worker_threads');

const output = process.env.PERFGATE_BENCH_OUTPUT;
const CAPTURE = Symbol.for('perfgate.bench.capture');
const PATCHED = Symbol.for('perfgate.bench.patched');
/** Samples kept per benchmark per process: an evenly spaced subset beyond this. */
const MAX_SAMPLES = 1000;
const NAME_HINT = /benchmark|tinybench|mitata/;

function write(record) {
  try {
    fs.appendFileSync(output, `${JSON.stringify({ ...record, pid: process.pid })}\n`);
  } catch {
    // the engine reports a file without results
  }
}

function errorText(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function finite(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Samples as ns per operation, at most MAX_SAMPLES of them (evenly spaced). */
function samplesNs(samples, toNs) {
  if (!Array.isArray(samples)) return [];
  const step = Math.max(1, samples.length / MAX_SAMPLES);
  const out = [];
  for (let i = 0; i < samples.length && out.length < MAX_SAMPLES; i += step) {
    const value = finite(samples[Math.floor(i)]);
    if (value !== null) out.push(value * toNs);
  }
  return out;
}

/** A statistics object without its samples (those are recorded once, normalised). */
function withoutSamples(stats) {
  if (stats === null || typeof stats !== 'object') return null;
  const out = {};
  for (const [key, value] of Object.entries(stats)) {
    if (key === 'samples' || key === 'sample' || key === 'debug') continue;
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/** Runs `fn`; a failure to record must never reach the user's program. */
function safely(fn) {
  try {
    fn();
  } catch {
    // the engine reports a benchmark without a number
  }
}

/** The prototype to patch, or why the export cannot be hooked (no such class, or no such method). */
function prototypeOf(exports, className, method) {
  const Class = exports?.[className];
  if (typeof Class !== 'function') return `it exports no ${className} class`;
  if (typeof Class.prototype[method] !== 'function') return `${className}.prototype.${method} is missing`;
  return Class.prototype;
}

/**
 * Wraps proto[method] so that `onDone(this, result)` runs once the call has finished (after its
 * promise settles, when it returns one), also when it threw (then with no result).
 */
function afterMethod(proto, method, onDone) {
  const original = proto[method];
  proto[method] = function perfgateAfter(...args) {
    let returned;
    try {
      returned = original.apply(this, args);
    } catch (error) {
      safely(() => onDone(this, undefined));
      throw error;
    }
    if (!returned || typeof returned.then !== 'function') {
      safely(() => onDone(this, returned));
      return returned;
    }
    return returned.then(
      (value) => {
        safely(() => onDone(this, value));
        return value;
      },
      (error) => {
        safely(() => onDone(this, undefined));
        throw error;
      },
    );
  };
}

function result(lib, fields) {
  write({ type: 'result', library: lib.name, version: lib.version, ...fields });
}

function failure(lib, name, suite, message) {
  write({ type: 'error', library: lib.name, version: lib.version, name, suite, message });
}

// ------------------------------------------------------------------------------ benchmark.js

function hookBenchmarkJs(exports, lib) {
  const Benchmark = typeof exports === 'function' ? exports : exports?.Benchmark;
  if (typeof Benchmark !== 'function') return 'it exports no Benchmark constructor';
  const proto = Benchmark.prototype;
  if (typeof proto.emit !== 'function') return 'Benchmark.prototype.emit is missing';
  if (proto[PATCHED]) return null;
  const suites = new WeakMap();
  const Suite = Benchmark.Suite;
  if (typeof Suite === 'function' && typeof Suite.prototype.push === 'function') {
    const push = Suite.prototype.push;
    Suite.prototype.push = function perfgatePush(...benches) {
      for (const bench of benches) if (bench && typeof bench === 'object') suites.set(bench, this);
      return push.apply(this, benches);
    };
  }
  // In async mode benchmark.js emits 'complete' twice per run (its queue re-emits it for the
  // remaining listeners): a run is recorded once, known by the time stamp run() gives it.
  const recorded = new WeakMap();
  const emit = proto.emit;
  proto.emit = function perfgateEmit(type, ...rest) {
    const eventType = typeof type === 'string' ? type : type?.type;
    const run = this.times?.timeStamp;
    // Recorded before the listeners run: one of them may end the process.
    if (eventType === 'complete' && this instanceof Benchmark && !this._original && recorded.get(this) !== run) {
      recorded.set(this, run);
      safely(() => recordBenchmarkJs(this, suites.get(this), lib));
    }
    return emit.call(this, type, ...rest);
  };
  proto[PATCHED] = true;
  return null;
}

function recordBenchmarkJs(bench, suite, lib) {
  const name = bench.name != null && bench.name !== '' ? String(bench.name) : `benchmark ${bench.id}`;
  const suiteName = suite && suite.name != null && suite.name !== '' ? String(suite.name) : null;
  if (bench.error) return failure(lib, name, suiteName, errorText(bench.error));
  if (bench.aborted) return failure(lib, name, suiteName, 'the benchmark was aborted');
  const stats = bench.stats || {};
  // hz is 1 / (mean seconds per operation) over the samples of this process.
  result(lib, {
    name,
    suite: suiteName,
    opsPerSec: finite(bench.hz),
    rme: finite(stats.rme),
    sampleCount: Array.isArray(stats.sample) ? stats.sample.length : 0,
    samplesNs: samplesNs(stats.sample, 1e9),
    stats: { ...withoutSamples(stats), hz: finite(bench.hz), count: finite(bench.count), cycles: finite(bench.cycles) },
  });
}

// ---------------------------------------------------------------------------------- tinybench

function hookTinybench(exports, lib) {
  const proto = prototypeOf(exports, 'Bench', 'run');
  if (typeof proto === 'string') return proto;
  if (proto[PATCHED]) return null;
  // Tasks that finished are recorded even when a later one made run() throw (throws: true).
  afterMethod(proto, 'run', (bench) => recordTinybench(bench, lib));
  if (typeof proto.runSync === 'function') afterMethod(proto, 'runSync', (bench) => recordTinybench(bench, lib));
  proto[PATCHED] = true;
  return null;
}

function recordTinybench(bench, lib) {
  const tasks = Array.isArray(bench.tasks) ? bench.tasks : [];
  const suite = typeof bench.name === 'string' && bench.name !== '' ? bench.name : null;
  // one odd task must not hide the others
  for (const task of tasks) safely(() => recordTinybenchTask(task, suite, lib));
}

function recordTinybenchTask(task, suite, lib) {
  const name = String(task.name);
  const r = task.result;
  if (!r) return;
  // tinybench >= 3 reports a state; 2.x only an error and flat statistics.
  if (r.state === 'errored' || r.error) return failure(lib, name, suite, errorText(r.error));
  if (r.state !== undefined && r.state !== 'completed' && r.state !== 'aborted-with-statistics') return;
  const latency = r.latency && typeof r.latency === 'object' ? r.latency : r;
  // Mean time per operation in ms → ops/s; the same "1 / mean time" as benchmark.js's hz.
  const meanMs = finite(latency.mean);
  const opsPerSec = meanMs !== null && meanMs > 0 ? 1000 / meanMs : finite(r.throughput ? r.throughput.mean : r.hz);
  const samples = Array.isArray(latency.samples) ? latency.samples : [];
  result(lib, {
    name,
    suite,
    opsPerSec,
    rme: finite(latency.rme),
    sampleCount: finite(latency.samplesCount) ?? (samples.length || finite(task.runs) || 0),
    samplesNs: samplesNs(samples, 1e6),
    stats: {
      latencyMs: withoutSamples(latency),
      throughputOpsPerSec: withoutSamples(r.throughput),
      period: finite(r.period),
      totalTime: finite(r.totalTime),
    },
  });
}

// ------------------------------------------------------------------------------------- mitata

function hookMitata(exports, lib) {
  // run() measures every trial through B#run, which resolves with the trial's statistics.
  const proto = prototypeOf(exports, 'B', 'run');
  if (typeof proto === 'string') return proto;
  if (proto[PATCHED]) return null;
  afterMethod(proto, 'run', (_, trial) => recordMitata(trial, lib));
  proto[PATCHED] = true;
  return null;
}

function recordMitata(trial, lib) {
  for (const run of trial?.runs || []) {
    const name = String(run.name);
    if (run.error) {
      failure(lib, name, null, errorText(run.error));
      continue;
    }
    const stats = run.stats || {};
    const avgNs = finite(stats.avg);
    result(lib, {
      name,
      suite: null,
      opsPerSec: avgNs !== null && avgNs > 0 ? 1e9 / avgNs : null,
      rme: null,
      sampleCount: Array.isArray(stats.samples) ? stats.samples.length : 0,
      samplesNs: samplesNs(stats.samples, 1),
      stats: withoutSamples(stats),
    });
  }
}

// --------------------------------------------------------------------------------- capturing

const HOOKS = {
  benchmark: { hook: hookBenchmarkJs, supported: 'benchmark 2.x' },
  tinybench: { hook: hookTinybench, supported: 'tinybench 2 or later' },
  mitata: { hook: hookMitata, supported: 'mitata 1.x' },
};

/** The package a file belongs to: the nearest package.json that has a name. */
function packageOf(file) {
  let dir = path.dirname(file);
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (pkg && typeof pkg.name === 'string') {
        return { name: pkg.name, version: String(pkg.version ?? 'unknown'), dir, main: pkg.main };
      }
    } catch {
      // no package.json here
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Files looked at already (a library or not): each is looked at once. */
const handled = new Set();

/** Hooks a freshly loaded module when it is one of the libraries' entry points. */
function capture(file, exports) {
  if (handled.has(file)) return;
  handled.add(file);
  const pkg = packageOf(file);
  const library = pkg && Object.hasOwn(HOOKS, pkg.name) ? HOOKS[pkg.name] : null;
  if (!library) return;
  const lib = { name: pkg.name, version: pkg.version, path: file };
  const problem = library.hook(exports, lib);
  if (problem === null) {
    write({ type: 'library', library: lib.name, version: lib.version, path: file });
    return;
  }
  // Only the package's entry point must have the hooks; other files of it may be loaded too.
  const entry = path.resolve(pkg.dir, typeof pkg.main === 'string' ? pkg.main : 'index.js');
  if (path.resolve(file) === entry || path.resolve(file) === `${entry}.js`) {
    write({
      type: 'unsupported',
      library: lib.name,
      version: lib.version,
      path: file,
      message: `${lib.name} ${lib.version} cannot be captured: ${problem}. perfgate reads ${library.supported}.`,
    });
  }
}

if (output) {
  const originalLoad = Module._load;
  Module._load = function perfgateLoad(request, parent, isMain, ...rest) {
    const exports = originalLoad.call(this, request, parent, isMain, ...rest);
    // Cheap test first: this runs for every require of the process.
    if (typeof request === 'string' && NAME_HINT.test(request)) {
      try {
        capture(Module._resolveFilename(request, parent, isMain), exports);
      } catch {
        // not resolvable as a file (a builtin, say): not ours
      }
    }
    return exports;
  };

  // --require preloads run on Node's module-loader thread too; hooks registered from there
  // would chain a second time.
  if (isMainThread && typeof Module.register === 'function') {
    globalThis[CAPTURE] = (url, namespace) => {
      try {
        capture(fileURLToPath(url), namespace);
      } catch {
        // never break the user's import
      }
    };
    // Runs on the loader thread: remembers what the bare library names resolve to, and
    // appends to those ES modules an import of themselves that hands the namespace over.
    const hooks = `
const names = new Set(['benchmark', 'tinybench', 'mitata']);
const entries = new Set();
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (names.has(specifier)) entries.add(resolved.url);
  return resolved;
}
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (loaded.format !== 'module' || !entries.has(url) || loaded.source == null) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  const self = JSON.stringify(url);
  return {
    ...loaded,
    source: source + '\\n;import * as __perfgateSelf from ' + self + ';\\nglobalThis[Symbol.for("perfgate.bench.capture")]?.(' + self + ', __perfgateSelf);\\n',
  };
}
`;
    try {
      Module.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
    } catch {
      // ESM libraries imported from ESM are then not captured; the engine says so
    }
  }
}
