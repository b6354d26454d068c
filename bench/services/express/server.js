// Calibration kind "express": express 5 from npm, one JSON route.
const express = require('express');
const { extraWork, payload } = require('./work.js');

const extra = extraWork(__dirname, 60);
const app = express();
app.get('/json', (_req, res) => {
  extra();
  res.json(payload());
});
app.listen(Number(process.env.PORT ?? 3000));
