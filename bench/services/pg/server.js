// Calibration kind "pg": node:http and the pg driver from npm, one indexed lookup per request on a
// real PostgreSQL (a database per side, made by setup.js), then the JSON payload. Its CPU per
// request (about 150 µs here) is the driver's and the handler's; the query's time is spent in the
// database server, which base and head share.
const { createServer } = require('node:http');
const { Pool } = require('pg');
const { extraWork, payload } = require('./work.js');

const pool = new Pool({ database: `calibration_${process.env.PERFGATE_SIDE || 'dev'}`, max: 10 });
const extra = extraWork(__dirname, 150);
let next = 0;

createServer(async (req, res) => {
  if (req.url !== '/json') {
    res.writeHead(404).end();
    return;
  }
  try {
    next = (next % 1000) + 1;
    const { rows } = await pool.query('SELECT id, name, price FROM items WHERE id = $1', [next]);
    extra();
    const body = JSON.stringify({ item: rows[0], ...payload() });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  } catch (error) {
    res.writeHead(500).end(error.message);
  }
}).listen(Number(process.env.PORT ?? 3000));
