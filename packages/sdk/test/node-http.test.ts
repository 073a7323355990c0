/**
 * The client's HTTP exchange on Node (src/node/http.ts), against a real `node:http` server on
 * loopback: answers and error answers come back as with `fetch`; a request written on a
 * kept-alive socket that the server closes before answering is sent once more on a new one; an
 * aborted request rejects; and the package's `node` entry installs this exchange.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WeaveClient, isWeaveApiError } from '../src/node/index.js';
import { nodeExchange } from '../src/node/http.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

describe('the node:http exchange', () => {
  let server: Server;
  let url = '';
  let handler: Handler = () => undefined;
  let requests = 0;
  const seen: IncomingMessage[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      handler(req, res, ++requests);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
    res.end(body);
  };

  test('answers with status, headers and the exact body; an error answer becomes a WeaveApiError; the socket is kept alive', async () => {
    requests = 0;
    seen.length = 0;
    handler = (req, res, n) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () =>
        n === 1
          ? json(res, 200, `{"echo":${body},"auth":"${req.headers.authorization ?? ''}"}`)
          : json(res, 404, '{"error":{"code":"not_found","message":"no such thing"}}'),
      );
    };
    const client = new WeaveClient({ url, namespace: 'ns', apiKey: 'k' });
    const answer = await client.requestRaw('POST', '/things', {
      body: { s: 'ü' },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-request-id'), 'r-1');
    assert.deepEqual(answer.body, { echo: { s: 'ü' }, auth: 'Bearer k' });
    await assert.rejects(client.request('GET', '/missing'), (e: unknown) => {
      assert.ok(isWeaveApiError(e));
      assert.equal(e.code, 'not_found');
      assert.equal(e.status, 404);
      assert.equal(e.requestId, 'r-1');
      return true;
    });
    assert.equal(seen[0]?.socket, seen[1]?.socket, 'the second call reused the first socket');
    assert.equal(seen[0]?.headers['user-agent'], undefined, 'not undici: no user-agent is sent');
  });

  test('a request on a kept-alive socket that the server closes unanswered is sent once more, on a new socket', async () => {
    requests = 0;
    seen.length = 0;
    handler = (req, res, n) => {
      if (n === 2) {
        req.socket.destroy(); // the idle-timeout race: the socket goes before any answer
        return;
      }
      json(res, 200, `{"n":${n}}`);
    };
    const exchange = nodeExchange();
    const first = await exchange(new URL(`${url}/a`), { method: 'GET', headers: {} });
    assert.equal(first.text, '{"n":1}');
    const second = await exchange(new URL(`${url}/b`), { method: 'GET', headers: {} });
    assert.equal(second.text, '{"n":3}', 'answered by the second try');
    assert.equal(requests, 3);
    assert.notEqual(seen[2]?.socket, seen[1]?.socket);
  });

  test('an aborted request rejects and is not sent again', async () => {
    requests = 0;
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    handler = () => arrived(); // never answers
    const abort = new AbortController();
    const pending = nodeExchange()(new URL(`${url}/hang`), {
      method: 'GET',
      headers: {},
      signal: abort.signal,
    });
    await reached;
    abort.abort();
    await assert.rejects(pending, (e: unknown) => (e as Error).name === 'AbortError');
    assert.equal(requests, 1);
  });
});
