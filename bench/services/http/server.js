// Calibration kind "http": plain node:http answering a small JSON document (about 30 µs of CPU
// per request on the calibration machine).
const { createServer } = require('node:http');
const { extraWork, jsonHandler } = require('./work.js');

createServer(jsonHandler(extraWork(__dirname, 30))).listen(Number(process.env.PORT ?? 3000));
