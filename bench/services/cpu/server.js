// Calibration kind "cpu": each request does about 2 ms of arithmetic, which dominates the HTTP
// overhead (the service the first calibration used).
const { createServer } = require('node:http');
const { extraWork, spin } = require('./work.js');

const extra = extraWork(__dirname, 2000);
createServer((req, res) => {
  if (req.url !== '/json') {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.stringify({ result: spin(2_000_000) + extra() });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT ?? 3000));
