import { once } from 'node:events';
import { Agent, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createGateway } from '../../infra/local/gateway';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { bearer, call, fileRuntime } from '../support/runtime';

/**
 * Bodies where the local gateway's HTTP server could get them wrong: on GET and DELETE, unframed, chunked,
 * cut short, or larger than API Gateway takes. Raw node:http and sockets, because fetch hides resets and
 * refuses a body on GET.
 */
const rt = fileRuntime();
let ws: WorkspaceCredentials;
let controlPort: number;
beforeAll(async () => {
  ws = await rt.newWorkspace();
  controlPort = Number(new URL(rt.controlUrl).port);
});

const MB = 1024 * 1024;
const portOf = (url: string) => Number(new URL(url).port);
const newSource = async () => (await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'S' } })).body.source as { id: string };
const chunked = (body: Buffer, size = MB) => {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]);
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers in what a raw socket received, one after the other (Content-Length or chunked). */
function parseAnswers(received: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = received;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (let size = -1; size !== 0;) {
        const eol = rest.indexOf('\r\n');
        size = parseInt(rest.slice(0, eol), 16);
        body += rest.slice(eol + 2, eol + 2 + size);
        rest = rest.slice(eol + 2 + size + 2);
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body });
  }
  return answers;
}

/** Writes everything before reading anything, as a plain uploading client does, then reads until the server closes. */
function exchange(port: number, parts: (string | Buffer)[], timeoutMs = 10_000) {
  return new Promise<{ answers: RawAnswer[]; errors: string[]; timedOut: boolean }>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const errors: string[] = [];
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), socket.destroy()), timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answers: parseAnswers(Buffer.concat(received).toString('latin1')), errors, timedOut });
    });
    for (const part of parts) socket.write(part);
  });
}

/**
 * A node:http upload (in 1 MB writes), recording every error the client sees. Unless `sized` is false it sends
 * Content-Length; without it node:http frames a POST body chunked but sends a GET or DELETE body unframed.
 */
function upload(port: number, method: string, path: string, body: Buffer, options: { sized?: boolean; headers?: Record<string, string>; agent?: Agent } = {}) {
  return new Promise<{ status?: number; headers?: IncomingHttpHeaders; json?: unknown; errors: string[] }>((resolve) => {
    const headers = { ...options.headers, ...(options.sized === false ? {} : { 'Content-Length': String(body.length) }) };
    // Without an agent node:http asks for Connection: close.
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: options.agent ?? false });
    const result: Awaited<ReturnType<typeof upload>> = { errors: [] };
    req.on('error', (error: NodeJS.ErrnoException) => result.errors.push(error.code ?? error.message));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => Object.assign(result, { status: res.statusCode, headers: res.headers, json: parseJson(text) }));
    });
    req.on('close', () => setImmediate(() => resolve(result)));
    for (let at = 0; at < body.length; at += MB) req.write(body.subarray(at, at + MB));
    req.end();
  });
}

describe('GET and DELETE carrying a body answer as they do without one', () => {
  const json = { 'Content-Type': 'application/json' };
  const framings = [
    ['Content-Length', { headers: json }],
    ['Transfer-Encoding: chunked', { sized: false, headers: { ...json, 'Transfer-Encoding': 'chunked' } }],
    ['no framing (node:http without Content-Length)', { sized: false, headers: json }],
  ] as const;

  it.each(framings)('GET with {} and %s', async (_framing, options) => {
    const { id } = await newSource();
    const plain = await call(rt.controlUrl, 'GET', `/v2/sources/${id}`, { auth: bearer(ws.token) });
    expect(plain.status).toBe(200);
    const answer = await upload(controlPort, 'GET', `/v2/sources/${id}`, Buffer.from('{}'), {
      ...options,
      headers: { ...options.headers, Authorization: bearer(ws.token) },
    });
    expect(answer).toMatchObject({ status: 200, json: plain.body, errors: [] });
  });

  it.each(framings)('DELETE with {} and %s', async (_framing, options) => {
    const { id } = await newSource();
    const headers = { ...options.headers, Authorization: bearer(ws.token) };
    const answer = await upload(controlPort, 'DELETE', `/v2/sources/${id}`, Buffer.from('{}'), { ...options, headers });
    expect(answer).toMatchObject({ status: 200, json: { success: true }, errors: [] });
    expect((await call(rt.controlUrl, 'GET', `/v2/sources/${id}`, { auth: bearer(ws.token) })).status).toBe(404);
    const again = await upload(controlPort, 'DELETE', `/v2/sources/${id}`, Buffer.from('{}'), { ...options, headers });
    expect(again).toMatchObject({ status: 404, json: { error: `source with id ${id} not found` }, errors: [] });
  });

  it('an unframed {} on a keep-alive connection: the GET is answered with Connection: close, the next request on a new one', async () => {
    const { id } = await newSource();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const headers = { ...json, Authorization: bearer(ws.token) };
      const first = await upload(controlPort, 'GET', `/v2/sources/${id}`, Buffer.from('{}'), { sized: false, headers, agent });
      expect(first).toMatchObject({ status: 200, json: { source: { id } }, errors: [] });
      expect(first.headers?.connection).toBe('close');
      const next = await upload(controlPort, 'GET', '/v2/sources', Buffer.alloc(0), { headers, agent });
      expect(next).toMatchObject({ status: 200, json: { sources: expect.any(Array) }, errors: [] });
    } finally {
      agent.destroy();
    }
  });

  it('bytes that do not parse after an answered request get a JSON 400', async () => {
    const { id } = await newSource();
    const socket = connect(controlPort, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.write(`GET /v2/sources/${id} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${bearer(ws.token)}\r\n\r\n`);
    // the stray bytes only once the GET is answered (its chunked body has ended), on a connection kept alive
    while (!received.endsWith('\r\n0\r\n\r\n')) await once(socket, 'data');
    socket.write('{}');
    await once(socket, 'close');
    const answers = parseAnswers(received);
    expect(answers.map((a) => [a.status, a.headers.connection])).toEqual([
      [200, 'keep-alive'],
      [400, 'close'],
    ]);
    expect(answers[1]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answers[1]?.body ?? '')).toEqual({ error: 'Malformed HTTP request' });
  });
});

describe('a client still sending a large body reads the answer, then the connection closes', () => {
  const big = Buffer.alloc(12 * MB, 'a');
  const noRoute = (plane: 'control' | 'data') => (plane === 'control' ? { error: 'No route POST /nowhere' } : { message: 'No route POST /nowhere' });

  it.each([
    ['control', 'Content-Length'],
    ['control', 'chunked'],
    ['data', 'Content-Length'],
  ] as const)('12 MB to an unknown route of the %s plane (%s) → 404', async (plane, framing) => {
    const port = portOf(plane === 'control' ? rt.controlUrl : rt.dataUrl);
    const answer = await upload(port, 'POST', '/nowhere', big, { sized: framing === 'Content-Length' });
    expect(answer).toMatchObject({ status: 404, json: noRoute(plane), errors: [] });
    expect(answer.headers?.connection).toBe('close');
  });

  it('12 MB with a method the route does not have → 405', async () => {
    const answer = await upload(controlPort, 'PUT', '/v2/sources', big);
    expect(answer).toMatchObject({ status: 405, json: { error: 'Method PUT is not allowed on /v2/sources' }, errors: [] });
    expect(answer.headers?.connection).toBe('close');
  });

  it.each([
    ['sized', 'POST', (body: Buffer) => [`Content-Length: ${body.length}\r\n\r\n`, body]],
    ['chunked', 'POST', (body: Buffer) => ['Transfer-Encoding: chunked\r\n\r\n', chunked(body)]],
    ['sized', 'DELETE', (body: Buffer) => [`Content-Length: ${body.length}\r\n\r\n`, body]],
  ] as const)('%s, over the limit, to a real route (%s) → 413 JSON and a clean close', async (_framing, method, frame) => {
    const path = method === 'POST' ? '/v2/sources' : `/v2/sources/${(await newSource()).id}`;
    const head = `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${bearer(ws.token)}\r\nContent-Type: application/json\r\n`;
    const { answers, errors, timedOut } = await exchange(controlPort, [head, ...frame(big)]);
    expect({ errors, timedOut }).toEqual({ errors: [], timedOut: false });
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ status: 413, headers: { 'content-type': 'application/json', connection: 'close' } });
    expect(JSON.parse(answers[0]?.body ?? '')).toEqual({ error: 'Request Too Long' });
  });

  it('a keep-alive client is answered 413 and its next request too', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const headers = { Authorization: bearer(ws.token) };
      const tooLarge = await upload(controlPort, 'POST', '/v2/sources', big, { sized: false, headers, agent });
      expect(tooLarge).toMatchObject({ status: 413, errors: [] });
      const started = Date.now();
      const next = await upload(controlPort, 'GET', '/v2/sources', Buffer.alloc(0), { headers, agent });
      expect(next).toMatchObject({ status: 200, errors: [] });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      agent.destroy();
    }
  });

  it('the server still answers on both planes afterwards', async () => {
    expect((await call(rt.controlUrl, 'GET', '/v2/sources', { auth: bearer(ws.token) })).status).toBe(200);
    expect((await call(rt.dataUrl, 'POST', '/nowhere', { body: {} })).status).toBe(404);
  });
});

describe('requests Node cannot parse or finish get a JSON 4xx, not a bare one', () => {
  it('a malformed chunked body → 400', async () => {
    const { answers, errors } = await exchange(controlPort, [
      `POST /v2/sources HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${bearer(ws.token)}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ]);
    expect(errors).toEqual([]);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ status: 400, headers: { 'content-type': 'application/json', connection: 'close' } });
    expect(JSON.parse(answers[0]?.body ?? '')).toEqual({ error: 'Malformed HTTP request' });
  });

  describe('with short server timeouts', () => {
    let gateway: Server;
    let port: number;
    beforeAll(async () => {
      gateway = createGateway('data', { requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 });
      gateway.listen(0, '127.0.0.1');
      await once(gateway, 'listening');
      port = (gateway.address() as AddressInfo).port;
    });
    afterAll(async () => {
      gateway.closeAllConnections();
      await new Promise((resolve) => gateway.close(resolve));
    });

    it.each([
      ['a DELETE whose body stops short', 'DELETE /v1/anything HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}'],
      ['headers that never end', 'GET /v1/anything HTTP/1.1\r\nHost: localhost\r\n'],
    ])('%s → 408', async (_name, sent) => {
      const { answers, errors, timedOut } = await exchange(port, [sent], 5000);
      expect({ errors, timedOut }).toEqual({ errors: [], timedOut: false });
      expect(answers).toHaveLength(1);
      expect(answers[0]).toMatchObject({ status: 408, headers: { 'content-type': 'application/json', connection: 'close' } });
      expect(JSON.parse(answers[0]?.body ?? '')).toEqual({ message: 'Request timed out' });
    });
  });
});
