// Calibration kind "http": plain node:http answering a small JSON document (about 30 µs of CPU
// per request on the calibration machine).
const { createServer } = require('node:http');
const { extraWork, payload } = require('./work.js');

const extra = extraWork(__dirname, 30);
createServer((req, res) => {
  if (req.url !== '/json') {
    res.writeHead(404).end();
    return;
  }
  extra();
  const body = JSON.stringify(payload());
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT ?? 3000));
