import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDestinationServer } from '../support/destination-server';
import { start, stop } from '../support/npm-start';
import { basic, bearer, call } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * `npm start` on a persisted data directory, stopped in the middle of delivering to a slow destination and
 * started again: every accepted event reaches the destination, and none twice.
 */
jest.setTimeout(150_000);

test('a restart in the middle of delivery loses nothing and duplicates nothing', async () => {
  const hook = await startDestinationServer();
  // A slow destination, so the stop falls in the middle of delivery.
  hook.on('/', (_req, res) => void setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'), 150));
  const home = mkdtempSync(path.join(tmpdir(), 'weir-e2e-'));
  const env = {
    WEIR_HOME: home,
    WEIR_BOOTSTRAP_EMAIL: 'ops@example.com',
    WEIR_BOOTSTRAP_TOKEN: 'restart-test-token-0123456789',
    WEIR_OUTBOUND_ALLOWLIST: '127.0.0.1',
  };
  const token = bearer(env.WEIR_BOOTSTRAP_TOKEN);
  const first = await start(env);
  const messageIds = Array.from({ length: 40 }, (_, i) => `restart-${i}`);
  try {
    const source = (await call(first.control, 'POST', '/v2/sources', { auth: token, body: { name: 'app' } })).body.source;
    const destination = (
      await call(first.control, 'POST', '/v2/destinations', {
        auth: token,
        body: { name: 'slow', type: 'WEBHOOK', config: { webhookUrl: `${hook.url}/slow` } },
      })
    ).body.destination;
    await call(first.control, 'POST', '/v2/connections', { auth: token, body: { sourceId: source.id, destinationId: destination.id } });
    for (const messageId of messageIds) {
      const answer = await call(first.data, 'POST', '/v1/track', {
        auth: basic(source.writeKey, ''),
        body: { userId: 'u', event: 'e', messageId },
      });
      expect(answer.status).toBe(200);
    }
    await waitFor(
      '5 events delivered before the restart',
      () => hook.received.length,
      (n) => n >= 5,
      { timeoutMs: 30_000, everyMs: 50 },
    );
  } finally {
    await stop(first);
  }
  const beforeRestart = hook.received.length;
  expect(beforeRestart).toBeLessThan(messageIds.length);

  const second = await start(env);
  try {
    await waitFor(
      'every event delivered after the restart',
      () => hook.received.length,
      (n) => n >= messageIds.length,
      { timeoutMs: 60_000 },
    );
    // A moment more, for anything sent twice to show.
    await sleep(1000);
    const received = hook.received.map((r) => (r.json as { messageId: string }).messageId);
    expect(received.slice().sort()).toEqual(messageIds.slice().sort());
  } finally {
    await stop(second);
    await hook.close();
  }
});
