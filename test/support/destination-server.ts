import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
  json?: unknown;
}

export type Responder = (req: ReceivedRequest, res: ServerResponse) => void;

/**
 * A local HTTP server playing a destination or a vendor's API: it records every request and answers by
 * path through the responders a test gives (default: 200 `{"ok":true}`). Stop it with `close()`.
 */
export interface DestinationServer {
  url: string;
  received: ReceivedRequest[];
  /** Answers requests whose path begins with `prefix` with `responder` (later entries win). */
  on(prefix: string, responder: Responder): void;
  /** Requests received and not answered yet. */
  pending(): number;
  close(): Promise<void>;
}

export const json =
  (status: number, body: unknown): Responder =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

export const text =
  (status: number, body: string, contentType = 'text/plain'): Responder =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': contentType });
    res.end(body);
  };

/** Never answers (until the server closes): a destination that times out. */
export const silent: Responder = () => undefined;

/** The messageIds of the events `server` got at `path`, in the order they came. */
export const messageIdsAt = (server: DestinationServer, path: string) =>
  server.received.filter((r) => r.path === path).map((r) => String((r.json as { messageId: string }).messageId));

export async function startDestinationServer(host = '127.0.0.1'): Promise<DestinationServer> {
  const received: ReceivedRequest[] = [];
  const responders: [string, Responder][] = [['/', json(200, { ok: true })]];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {
        parsed = undefined;
      }
      const request: ReceivedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        ...(parsed !== undefined && { json: parsed }),
      };
      received.push(request);
      open.add(res);
      res.on('close', () => open.delete(res));
      const match = [...responders].reverse().find(([prefix]) => url.pathname.startsWith(prefix));
      match![1](request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    received,
    on: (prefix, responder) => void responders.push([prefix, responder]),
    pending: () => [...open].filter((res) => !res.writableEnded).length,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
