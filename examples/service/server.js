// A small JSON API used by perfgate's demo and tests: GET /hello, POST /echo, GET /health.
// It hard-codes its port like many real services do; perfgate's preload moves it.
import { createServer } from 'node:http';
import { renderGreeting } from './src/payload.js';

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/hello')) {
    const body = JSON.stringify(renderGreeting(new URL(req.url, 'http://x').searchParams.get('name') ?? 'world'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
    return;
  }
  if (req.method === 'POST' && req.url === '/echo') {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      let parsed;
      try {
        parsed = JSON.parse(raw);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":"body must be JSON"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: parsed, length: raw.length }));
    });
    return;
  }
  if (req.url === '/health') {
    res.writeHead(200);
    res.end('ok');
    return;
  }
  res.writeHead(404);
  res.end();
});

server.listen(3000, () => console.log('example service listening on', server.address().port));
