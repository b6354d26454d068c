// Another run's artifact is downloaded from the blob storage address the API redirects to. A
// runner behind a proxy reaches the API through it (the toolkit's HTTP client reads https_proxy,
// http_proxy and no_proxy): the blob download must go the same way, and a loopback address never.
// A real forward proxy on this machine, and a real blob server behind it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, test } from 'node:test';
import type { GitHubClient } from '../../src/github/client.js';
import { fetchArtifactZip } from '../../src/github/run-artifacts.js';

const BYTES = Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'));
const DIGEST = `sha256:${createHash('sha256').update(BYTES).digest('hex')}`;
/** A name that resolves nowhere: only the proxy knows where it is. */
const BLOB_HOST = 'blob.perfgate.test';

let blob: Server;
let proxy: Server;
const proxied: string[] = [];
const port = (server: Server) => (server.address() as AddressInfo).port;
const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

before(async () => {
  blob = createServer((_req, res) => res.end(BYTES));
  // A forward proxy: CONNECT tunnels (what undici's ProxyAgent asks for, for http and https
  // alike) and absolute-form requests, each sent on to the origin; the origin's name is the
  // test's, so it is the blob server on this machine.
  proxy = createServer((req, res) => {
    proxied.push(req.url ?? '');
    const target = new URL(req.url ?? '/');
    const upstream = request({ host: '127.0.0.1', port: Number(target.port), path: target.pathname + target.search, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  proxy.on('connect', (req, client, head) => {
    proxied.push(`CONNECT ${req.url}`);
    const upstream = connect(Number(new URL(`http://${req.url}`).port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await Promise.all([listen(blob), listen(proxy)]);
});

after(() => {
  blob.closeAllConnections();
  proxy.closeAllConnections();
  blob.close();
  proxy.close();
  delete process.env.HTTP_PROXY;
});

/** The API's part: a redirect to `location`, as GitHub answers GET …/artifacts/{id}/zip. */
const redirectingTo = (location: string) =>
  ({ rest: { actions: { downloadArtifact: async () => ({ status: 302, headers: { location }, data: null }) } } }) as unknown as GitHubClient;

const artifact = { id: 7, name: 'perfgate-default', sizeBytes: BYTES.length, digest: DIGEST };
const repo = { owner: 'acme', repo: 'shop' };

test('the blob download goes through the proxy the environment names, as the API calls do', async () => {
  process.env.HTTP_PROXY = `http://127.0.0.1:${port(proxy)}`;
  const location = `http://${BLOB_HOST}:${port(blob)}/artifacts/7.zip?sig=abc`;
  const zip = await fetchArtifactZip(redirectingTo(location), repo, artifact, 1024, 'the artifact');
  assert.deepEqual(zip, BYTES);
  assert.deepEqual(proxied, [`CONNECT ${BLOB_HOST}:${port(blob)}`]);
});

test('a loopback blob address is fetched directly, as the toolkit fetches the API there', async () => {
  process.env.HTTP_PROXY = `http://127.0.0.1:${port(proxy)}`;
  proxied.length = 0;
  const zip = await fetchArtifactZip(redirectingTo(`http://127.0.0.1:${port(blob)}/artifacts/7.zip`), repo, artifact, 1024, 'the artifact');
  assert.deepEqual(zip, BYTES);
  assert.deepEqual(proxied, []);
});
