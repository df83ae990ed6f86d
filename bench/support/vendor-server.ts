import { createServer, type ServerResponse } from 'node:http';

// Plays the vendors of the cost and latency benches in a process of its own, so their CPU is not counted as
// Weir's: a webhook, and Amplitude's HTTP V2 API (which takes many events per request). GET /stats tells
// what arrived: requests and events per path, and when each messageId first arrived (ms since start).
// `BENCH_VENDOR_DOWN` names a path that answers 503 (or `BENCH_VENDOR_DOWN_STATUS`) to everything.
// `BENCH_VENDOR_LATENCY_MS`: each answer waits that long, as a vendor's would; /stats then also tells `busyMs`,
// the time during which at least one request was waiting for its answer (requests at once counted once).

const requests: Record<string, number> = {};
const events: Record<string, number> = {};
const firstSeen: Record<string, number> = {};
const started = performance.now();
const latencyMs = Number(process.env.BENCH_VENDOR_LATENCY_MS) || 0;
let inFlight = 0;
let busySince = 0;
let busyMs = 0;
/** Counts a request from its arrival to its answer; the time with any in flight is busy time. */
function track(res: ServerResponse): void {
  if (inFlight++ === 0) busySince = performance.now();
  res.on('close', () => {
    if (--inFlight === 0) busyMs += performance.now() - busySince;
  });
}

const server = createServer((req, res) => {
  if (req.url !== '/stats') track(res);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/stats') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ requests, events, firstSeen, busyMs }));
      return;
    }
    if (req.method === 'DELETE' && path === '/stats') {
      for (const record of [requests, events, firstSeen]) for (const key of Object.keys(record)) delete record[key];
      busyMs = 0;
      res.writeHead(204).end();
      return;
    }
    // A vendor that is down (`BENCH_VENDOR_DOWN`: a path, e.g. /hook): every request to it answers 503, or
    // `BENCH_VENDOR_DOWN_STATUS` (400: one that refuses everything, as with a wrong API key).
    if (process.env.BENCH_VENDOR_DOWN && path === process.env.BENCH_VENDOR_DOWN) {
      return void res.writeHead(Number(process.env.BENCH_VENDOR_DOWN_STATUS) || 503).end('down');
    }
    const at = performance.now() - started;
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    const items = Array.isArray(body.events) ? (body.events as Record<string, unknown>[]) : [body];
    requests[path] = (requests[path] ?? 0) + 1;
    events[path] = (events[path] ?? 0) + items.length;
    for (const item of items) {
      const id = String(item.insert_id ?? item.messageId ?? '');
      if (id && firstSeen[id] === undefined) firstSeen[id] = at;
    }
    const answer = Array.isArray(body.events)
      ? { code: 200, events_ingested: items.length, payload_size_bytes: chunks.length, server_upload_time: Date.now() }
      : {};
    const reply = () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    if (latencyMs > 0) setTimeout(reply, latencyMs);
    else reply();
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
