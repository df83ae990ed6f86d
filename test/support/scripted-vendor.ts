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
  /**
   * Resolves once the nth request (from 1) has arrived; rejects after `timeoutMs` (default 30 s) naming the path,
   * the request waited for and the answers given so far.
   */
  arrived(n: number, timeoutMs?: number): Promise<void>;
  /** Answers the requests held so far with 200. */
  release(): void;
  /** From now on every request is answered 200 at once (the faults are over). */
  heal(): void;
}

/**
 * The events a request carries: a webhook's one messageId, or the ids of a batch API's items: a Mixpanel-style
 * array (`$insert_id`), a `batch`, or GA4's `events`, which have no id of their own (a `message_id` param).
 */
export function messageIdsOf(request: ReceivedRequest): string[] {
  const body = request.json as { batch?: unknown; events?: unknown } | unknown[] | undefined;
  const list = Array.isArray(body) ? body : Array.isArray(body?.batch) ? body.batch : Array.isArray(body?.events) ? body.events : undefined;
  return (list ?? [body]).map((item) => {
    const event = item as { messageId?: unknown; properties?: { $insert_id?: unknown }; insert_id?: unknown; params?: { message_id?: unknown } };
    return String(event?.messageId ?? event?.properties?.$insert_id ?? event?.insert_id ?? event?.params?.message_id ?? '?');
  });
}

/** Consecutive equal entries once, with their count: `200 (1 event) ×84`. */
function runsOf(entries: string[]): string {
  const runs: [string, number][] = [];
  for (const entry of entries) {
    const last = runs.at(-1);
    if (last?.[0] === entry) last[1]++;
    else runs.push([entry, 1]);
  }
  return runs.map(([entry, n]) => (n > 1 ? `${entry} ×${n}` : entry)).join(', ');
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
      const waiters = new Set<{ n: number; resolve: () => void }>();
      // What each request got so far, for a wait that ends without its request.
      const taken: string[] = [];
      server.on(prefix, (request, res) => {
        const step = healed ? 200 : (steps[count] ?? 200);
        count++;
        const events = messageIdsOf(request).length;
        taken.push(`${step} (${events} event${events === 1 ? '' : 's'})`);
        if (step === 'hold') held.push(() => answer(prefix, request, res, 200));
        else answer(prefix, request, res, step);
        for (const w of [...waiters].filter((w) => w.n <= count)) w.resolve();
      });
      const arrived = (n: number, timeoutMs = 30_000) =>
        count >= n
          ? Promise.resolve()
          : new Promise<void>((resolve, reject) => {
              const waiter = {
                n,
                resolve: () => {
                  clearTimeout(timer);
                  waiters.delete(waiter);
                  resolve();
                },
              };
              const timer = setTimeout(() => {
                waiters.delete(waiter);
                const seen = count === 0 ? 'none arrived' : `${count} arrived: ${runsOf(taken)}`;
                reject(new Error(`${prefix}: waited ${timeoutMs / 1000} s for request ${n}; ${seen}`));
              }, timeoutMs);
              waiters.add(waiter);
            });
      return {
        count: () => count,
        arrived,
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
