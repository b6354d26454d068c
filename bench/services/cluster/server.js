// Calibration kind "cluster": node:cluster with 2 workers sharing one port, each the "http" kind.
const cluster = require('node:cluster');

if (cluster.isPrimary) {
  for (let i = 0; i < 2; i++) cluster.fork();
} else {
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
}
