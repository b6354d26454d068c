// Shared by the calibration services (bench/services/*): deterministic CPU work that stands for
// "the head does more per request". `work.json` in the service's repository says how much more:
// {"extra": 0.05} is 5% of the kind's own CPU cost per request (BASE_US, measured on the
// calibration machine), done as a fixed number of iterations, never as a timed spin (a timed
// spin would shrink when the machine is slow and hide the effect). bench/calibrate-starts.mjs
// reports the throughput drop actually measured next to the nominal one.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Iterations of `spin` per µs of CPU on the calibration machine (2 vCPU AMD EPYC, Node 20/24). */
const ITERATIONS_PER_US = 1000;

function extraOf(dir) {
  try {
    return Number(JSON.parse(readFileSync(join(dir, 'work.json'), 'utf8')).extra) || 0;
  } catch {
    return 0;
  }
}

function spin(n) {
  let x = 1;
  for (let i = 0; i < n; i++) x = (Math.imul(x, 1103515245) + 12345) | 0;
  return x;
}

/** The per-request extra work of a service whose own CPU cost per request is `baseUs`. */
function extraWork(dir, baseUs) {
  const iterations = Math.round(extraOf(dir) * baseUs * ITERATIONS_PER_US);
  return iterations > 0 ? () => spin(iterations) : () => 0;
}

/** A small JSON payload, the same for every kind. */
const payload = () => ({
  hello: 'world',
  time: 1700000000000,
  items: Array.from({ length: 10 }, (_, i) => ({ id: i, name: `item ${i}`, price: i * 1.5, tags: ['a', 'b'] })),
});

/** A plain node:http handler answering GET /json with the payload, after `extra()` (the "http" and "cluster" kinds). */
function jsonHandler(extra) {
  return (req, res) => {
    if (req.url !== '/json') {
      res.writeHead(404).end();
      return;
    }
    extra();
    const body = JSON.stringify(payload());
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

module.exports = { extraOf, extraWork, jsonHandler, spin, payload };
