// Calibration kind "fastify": fastify 5 from npm, one JSON route.
const fastify = require('fastify')({ logger: false });
const { extraWork, payload } = require('./work.js');

const extra = extraWork(__dirname, 35);
fastify.get('/json', async () => {
  extra();
  return payload();
});
fastify.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
