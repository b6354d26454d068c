// Calibration kind "io": each request awaits about 5 ms (standing for a database call), then
// answers JSON; with a fixed number of connections its throughput is set by that wait. "More
// work" here is a slower call: {"extra": 0.05} makes the mean wait 5% longer, by adding 1 ms
// to a deterministic share of the requests (timers have 1 ms resolution).
const { createServer } = require('node:http');
const { extraOf, payload } = require('./work.js');

const WAIT_MS = 5;
const share = extraOf(__dirname) * WAIT_MS; // requests that wait 1 ms more, as a fraction
let owed = 0;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

createServer(async (req, res) => {
  if (req.url !== '/json') {
    res.writeHead(404).end();
    return;
  }
  owed += share;
  let ms = WAIT_MS;
  if (owed >= 1) {
    owed -= 1;
    ms += 1;
  }
  await wait(ms);
  const body = JSON.stringify(payload());
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT ?? 3000));
