import { resolveConfig, parseConfigText, configJsonSchema } from './src/config/index.js';
const tryIt = (label: string, input: any) => {
  try { console.log(label, JSON.stringify(resolveConfig(input), null, 1)); } catch (e) { console.log(label, 'ERROR\n' + (e as Error).message); }
};
tryIt('minimal', { document: { service: { start: 'node s.js' }, scenarios: ['GET /hello'] } });
tryIt('errors', { document: parseConfigText(`
service:
  strat: x
  install: true
  cwd: ../x
  env: { "1BAD": 1, OK: null, PORT: 3000 }
  ready: { path: health, timeout: fast }
scenarioes: []
scenarios:
  - GET /hello
  - { path: /x, method: FETCH, foo: 1 }
  - FETCH /x
  - 42
  - { method: get }
  - { path: /y, body: 12, headers: { "bad header": x }, connections: 0 }
load: { slice: fast, pairs: 3, blocks: 9, warmup: -1, connections: 1.5 }
gate: { throughput: fast, latency-p99: 5%, latency_p50: 150%, latency_p90: true, cpu_per_request: { limit: 0, gated: maybe } }
alpha: 0.7
seed: -1
benchmarks: ["x"]
`, 'perfgate.yml'), overrides: { load: { pipelining: 0 } } });
tryIt('nothing', {});
tryIt('dup', { document: { service: { start: 'x' }, scenarios: ['GET /a', '/a', { name: 'n', path: '/b' }, { name: 'n', path: '/c' }] } });
tryIt('lines', { document: { service: { start: 'x' }, scenarios: 'GET /a\n\npost /b\nFETCH /c' } });
tryIt('root', { document: [1, 2] });
