import type { ServerResponse } from 'node:http';
import { startDestinationServer, type DestinationServer, type ReceivedRequest } from './destination-server';

/**
 * A destination whose answers a test scripts request by request (per path prefix), so that a crash can be made
 * to land at an exact point of a delivery: the Nth request answered 200 or 503, or held open (a slow send)
 * until the test releases it or the sender dies. Every answer is recorded with the events it carried.
 */
export type Step = 200 | 503 | 'hold';

export interface Answered {
  prefix: string;
  messageIds: string[];
  status: number;
  at: number;
}

export interface ScriptedPath {
  /** Requests received so far. */
  count(): number;
  /** Resolves once the nth request (from 1) has arrived. */
  arrived(n: number): Promise<void>;
  /** Answers the requests held so far with 200. */
  release(): void;
  /** From now on every request is answered 200 at once (the faults are over). */
  heal(): void;
}

/** The events a request carries: a webhook's one messageId, or the insert ids of a Mixpanel-style array. */
export function messageIdsOf(request: ReceivedRequest): string[] {
  const body = request.json as unknown;
  const items = Array.isArray(body) ? body : Array.isArray((body as { batch?: unknown })?.batch) ? (body as { batch: unknown[] }).batch : [body];
  return items.map((item) => {
    const event = item as { messageId?: unknown; properties?: { $insert_id?: unknown }; insert_id?: unknown };
    return String(event?.messageId ?? event?.properties?.$insert_id ?? event?.insert_id ?? '?');
  });
}

export interface ScriptedVendor {
  url: string;
  answered: Answered[];
  /** Requests under `prefix` follow `steps` (the first request takes steps[0]; beyond them, 200). */
  script(prefix: string, steps: Step[]): ScriptedPath;
  /** Distinct events answered 2xx under `prefix`. */
  delivered(prefix: string): Set<string>;
  /** Events answered 2xx more than once under `prefix`. */
  deliveredTwice(prefix: string): string[];
  close(): Promise<void>;
}

export async function startScriptedVendor(): Promise<ScriptedVendor> {
  const server: DestinationServer = await startDestinationServer();
  const answered: Answered[] = [];
  const answer = (prefix: string, request: ReceivedRequest, res: ServerResponse, status: number) => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(status < 300 ? '{"status":1}' : '{"error":"unavailable"}');
    answered.push({ prefix, messageIds: messageIdsOf(request), status, at: Date.now() });
  };
  const ok = (prefix: string, status: number, ids: Set<string>) => {
    for (const a of answered) if (a.prefix === prefix && a.status === status) a.messageIds.forEach((id) => ids.add(id));
    return ids;
  };
  return {
    url: server.url,
    answered,
    script(prefix, steps) {
      let count = 0;
      let healed = false;
      const held: (() => void)[] = [];
      const waiters: { n: number; resolve: () => void }[] = [];
      server.on(prefix, (request, res) => {
        const step = healed ? 200 : (steps[count] ?? 200);
        count++;
        if (step === 'hold') held.push(() => answer(prefix, request, res, 200));
        else answer(prefix, request, res, step);
        for (const w of waiters.filter((w) => w.n <= count)) w.resolve();
      });
      return {
        count: () => count,
        arrived: (n) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
        release: () => held.splice(0).forEach((send) => send()),
        heal: () => void (healed = true),
      };
    },
    delivered: (prefix) => ok(prefix, 200, new Set()),
    deliveredTwice(prefix) {
      const seen = new Set<string>();
      const twice = new Set<string>();
      for (const a of answered) if (a.prefix === prefix && a.status === 200) for (const id of a.messageIds) (seen.has(id) ? twice : seen).add(id);
      return [...twice];
    },
    close: () => server.close(),
  };
}
