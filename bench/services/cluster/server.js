// Calibration kind "cluster": node:cluster with 2 workers sharing one port, each the "http" kind.
const cluster = require('node:cluster');

if (cluster.isPrimary) {
  for (let i = 0; i < 2; i++) cluster.fork();
} else {
  const { createServer } = require('node:http');
  const { extraWork, jsonHandler } = require('./work.js');
  createServer(jsonHandler(extraWork(__dirname, 30))).listen(Number(process.env.PORT ?? 3000));
}
