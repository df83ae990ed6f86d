import { createServer } from 'node:net';

/** Ports handed out in this process: three picks for one `npm start` never name the same port. */
const handedOut = new Set<number>();

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A free port for a service a test or the bench starts, and may start again on the same port (`npm start`'s
 * planes and console). It lies below Linux's ephemeral range (32768–60999), where no listen(0) of this machine
 * lands (DynamoDB Local, the local vendor servers), in a block of 5,000 of its own per jest worker
 * (JEST_WORKER_ID): a port picked free and released stays free until the service binds it, though another test
 * file runs at the same time. (Picked from the ephemeral range, one was seen taken in between.)
 */
export async function servicePort(): Promise<number> {
  const worker = Math.max(1, Number(process.env.JEST_WORKER_ID ?? 1));
  const base = 10_000 + ((worker - 1) % 4) * 5_000;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = base + Math.floor(Math.random() * 5_000);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port in ${base}-${base + 4_999}`);
}
