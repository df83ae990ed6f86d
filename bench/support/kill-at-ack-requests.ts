/**
 * The small requests of a kill-at-acknowledgement burst, one of each kind a client sends: a batch of one user's
 * events and one of several users' (/v1/batch), a track (/v1/track), Segment's paths (/v1/t, /v1/i, /v1/p, /v1/b,
 * analytics.js's own) and a beacon (/beacon/v1/batch, the write key in the query, a text/plain body). Every event
 * has a messageId of its own.
 */
export const KINDS = [
  'batch one user',
  'batch many users',
  'track',
  'segment t',
  'segment i',
  'segment p',
  'segment b',
  'beacon',
  'batch one user (older source)',
  'batch many users (older source)',
] as const;
export type Kind = (typeof KINDS)[number];

export interface Sent {
  kind: Kind;
  writeKey: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  messageIds: string[];
}

const basic = (writeKey: string) => `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;

/**
 * Cycle `cycle`'s burst: every kind to the cycle's fresh source, and the two batches to the older source too,
 * sent in an order that turns with the cycle, so that each kind is in turn the one sent first.
 */
export function burstOf(cycle: number, freshKey: string, olderKey: string): Sent[] {
  const id = (kind: string, i = 0) => `k${cycle}-${kind}-${i}`;
  const json = (kind: Kind, writeKey: string, path: string, body: Record<string, unknown>): Sent => {
    const text = JSON.stringify(body);
    const events = Array.isArray(body.batch) ? (body.batch as { messageId: string }[]) : [body as { messageId: string }];
    return {
      kind,
      writeKey,
      path,
      headers: { Authorization: basic(writeKey), 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) },
      body: text,
      messageIds: events.map((e) => e.messageId),
    };
  };
  const track = (messageId: string, userId: string) => ({ type: 'track', userId, event: 'Killed At Ack', messageId, properties: { cycle } });
  const oneUser = (tag: string) => Array.from({ length: 3 }, (_, i) => track(id(tag, i), `u${cycle}-${tag}`));
  const manyUsers = (tag: string) => Array.from({ length: 4 }, (_, i) => track(id(tag, i), `u${cycle}-${tag}-${i}`));
  const beacon = JSON.stringify({ batch: [track(id('beacon', 0), `u${cycle}-beacon`), track(id('beacon', 1), `u${cycle}-beacon`)] });
  const requests: Sent[] = [
    json('batch one user', freshKey, '/v1/batch', { batch: oneUser('one') }),
    json('batch many users', freshKey, '/v1/batch', { batch: manyUsers('many') }),
    json('track', freshKey, '/v1/track', { userId: `u${cycle}-track`, event: 'Killed At Ack', messageId: id('track') }),
    json('segment t', freshKey, '/v1/t', { userId: `u${cycle}-t`, event: 'Killed At Ack', messageId: id('t'), writeKey: freshKey }),
    json('segment i', freshKey, '/v1/i', { userId: `u${cycle}-i`, traits: { cycle }, messageId: id('i'), writeKey: freshKey }),
    json('segment p', freshKey, '/v1/p', { userId: `u${cycle}-p`, name: 'Home', messageId: id('p'), writeKey: freshKey }),
    json('segment b', freshKey, '/v1/b', { batch: manyUsers('b'), writeKey: freshKey }),
    {
      kind: 'beacon',
      writeKey: freshKey,
      path: `/beacon/v1/batch?writeKey=${encodeURIComponent(freshKey)}`,
      headers: { 'Content-Type': 'text/plain;charset=UTF-8', 'Content-Length': String(Buffer.byteLength(beacon)) },
      body: beacon,
      messageIds: [id('beacon', 0), id('beacon', 1)],
    },
    json('batch one user (older source)', olderKey, '/v1/batch', { batch: oneUser('older-one') }),
    json('batch many users (older source)', olderKey, '/v1/batch', { batch: manyUsers('older-many') }),
  ];
  const turn = cycle % requests.length;
  return [...requests.slice(turn), ...requests.slice(0, turn)];
}
