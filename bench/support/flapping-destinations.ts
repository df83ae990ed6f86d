import { createServer, type Server, type ServerResponse } from 'node:http';

/** What the flapping destinations do: the share of requests answered 503, the share answered slowly and how slowly. */
export interface FaultRates {
  failureRate: number;
  slowRate: number;
  slowMs: [number, number];
  /** Seeds the generator that draws the faults: the same seed, the same faults in the same order. */
  seed: number;
}

/** A small deterministic generator, so a run's faults can be told again. */
export function random(seed: number) {
  return () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

interface Answered {
  path: string;
  messageId: string;
  status: number;
  at: number;
}

/** Destinations on this machine: flapping ones, healthy ones and one that can hang; every answer recorded. */
export async function flappingDestinations(options: FaultRates) {
  const next = random(options.seed);
  const answered: Answered[] = [];
  const received: { path: string; messageId: string; at: number }[] = [];
  const open = new Set<ServerResponse>();
  const state = { faults: true, hang: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const pathName = new URL(req.url ?? '/', 'http://x').pathname;
      let messageId = '';
      try {
        messageId = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messageId?: string }).messageId);
      } catch {
        messageId = '?';
      }
      received.push({ path: pathName, messageId, at: Date.now() });
      open.add(res);
      res.on('close', () => open.delete(res));
      const answer = (status: number) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'Content-Type': 'application/json' }).end('{}');
        answered.push({ path: pathName, messageId, status, at: Date.now() });
      };
      if (pathName === '/hang' && state.hang) return; // never answers
      const flapping = pathName === '/a' || pathName === '/b';
      if (!flapping || !state.faults) return answer(200);
      const roll = next();
      const status = roll < options.failureRate ? 503 : 200;
      if (next() < options.slowRate) setTimeout(() => answer(status), options.slowMs[0] + next() * (options.slowMs[1] - options.slowMs[0]));
      else answer(status);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    answered,
    received,
    state,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
