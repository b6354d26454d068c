// The issue-27 timing service: an Express 4 app with three routes (a JSON hello, a user looked up
// by id, a POST that validates a JSON body), installed from its lockfile like a user's service.
// work.json's "extra" makes GET /users/:id alone do that much more CPU work per request
// (bench/services/work.js); bench/three-routes.mjs makes the commits.
const express = require('express');
const { extraWork, payload } = require('./work.js');

const extra = extraWork(__dirname, 60);
const users = Array.from({ length: 1000 }, (_, id) => ({ id, name: `user ${id}`, roles: ['reader', id % 7 === 0 ? 'admin' : 'member'] }));
const app = express();
app.use(express.json());
app.get('/hello', (_req, res) => res.json({ hello: 'world' }));
app.get('/users/:id', (req, res) => {
  const user = users[Number(req.params.id)];
  if (!user) return res.status(404).json({ error: 'no such user' });
  extra();
  res.json({ ...user, ...payload() });
});
app.post('/orders', (req, res) => {
  const { items } = req.body ?? {};
  if (!Array.isArray(items) || !items.every((i) => Number.isInteger(i.qty) && i.qty > 0)) return res.status(400).json({ error: 'items need a positive qty' });
  res.status(201).json({ accepted: items.length });
});
app.listen(Number(process.env.PORT ?? 3000));
