import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * Why a proxy stands between the local runtime and DynamoDB Local.
 *
 * DynamoDB Local (1.25) answers a TransactWriteItems before the transaction is durable: its SQLite access
 * queues the COMMIT on its single database thread and returns without waiting for it (`commitTransaction`
 * enqueues the job and drops it; a PutItem or BatchWriteItem waits for its own job). A SIGKILL of the store
 * in that moment loses a transaction the client already holds a 200 for, and with it whatever Weir
 * acknowledged on the strength of it.
 *
 * The database thread runs its jobs in order, so any request that waits for a job of its own returns only
 * after every job queued before it, the COMMIT included. This proxy answers a transaction only once such a
 * request (ListTables, which reads SQLite) has come back: "acknowledged by the store" means committed, as it
 * does on AWS. Every other request passes through untouched.
 */

/** The operations whose commit DynamoDB Local leaves queued behind its answer. */
const TRANSACTIONAL = new Set(['DynamoDB_20120810.TransactWriteItems', 'DynamoDB_20120810.ExecuteTransaction']);

export interface CommitBarrier {
  /** The endpoint clients use in place of the store's own. */
  endpoint: string;
  stop(): Promise<void>;
}

export async function startCommitBarrier(upstream: string): Promise<CommitBarrier> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  const forward = (method: string, path: string, headers: IncomingMessage['headers'], body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const outbound = httpRequest({ host: target.hostname, port: target.port, method, path, headers, agent }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', reject);
      });
      outbound.on('error', reject);
      outbound.end(body);
    });

  /** Returns once every job the store had queued before it has run. */
  const barrier = async (headers: IncomingMessage['headers']) => {
    const body = Buffer.from('{"Limit":1}');
    const { status } = await forward(
      'POST',
      '/',
      {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        // DynamoDB Local checks that a signature is present, not what it signs: the transaction's own will do.
        authorization: headers.authorization,
        'x-amz-date': headers['x-amz-date'],
        'content-length': String(body.length),
      },
      body,
    );
    if (status !== 200) throw new Error(`the store answered ${status} to the commit barrier`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await forward(req.method ?? 'POST', req.url ?? '/', { ...req.headers, host: target.host }, Buffer.concat(chunks));
    if (TRANSACTIONAL.has(String(req.headers['x-amz-target'])) && answer.status === 200) await barrier(req.headers);
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // No answer is better than a false one: the client retries or reports the failure.
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
