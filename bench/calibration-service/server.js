// The calibration service: each request does a fixed amount of CPU work, and `work.json` in
// the repository sets how much more the head does ({"extra": 0.05} = 5% more iterations). The
// work (about 2 ms) dominates the HTTP overhead (about 0.1 ms), so 5% more work is close to a
// 5% throughput drop; bench/calibrate.mjs reports the drop it actually measured next to the
// nominal one.
const { createServer } = require('node:http');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const { extra } = JSON.parse(readFileSync(join(__dirname, 'work.json'), 'utf8'));
const ITERATIONS = Math.round(2_000_000 * (1 + extra));

function work(n) {
  let x = 1;
  for (let i = 0; i < n; i++) x = (Math.imul(x, 1103515245) + 12345) | 0;
  return x;
}

createServer((_req, res) => {
  const body = String(work(ITERATIONS));
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT ?? 3000));
