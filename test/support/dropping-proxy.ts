import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DroppingProxy {
  url: string;
  /** Requests the target answered, the dropped ones included. */
  answered: { path: string; status: number }[];
  /** The next `n` answers are dropped: the target answers, the client's connection is closed before it hears. */
  dropNext(n?: number): void;
  close(): Promise<void>;
}

/**
 * A proxy in front of the data plane that loses answers the way a phone changing networks does: the request
 * reaches Weir and is acknowledged (its 200 is read here in full), then the client's socket is destroyed, so the
 * client sees a network error and sends the same request again.
 */
export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const upstream = new URL(target);
  let drops = 0;
  const answered: DroppingProxy['answered'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
        (answer: IncomingMessage) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            answered.push({ path: req.url ?? '', status: answer.statusCode ?? 0 });
            if (drops > 0) {
              drops--;
              return void req.socket.destroy();
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      forward.on('error', () => req.socket.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    dropNext: (n = 1) => void (drops += n),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
