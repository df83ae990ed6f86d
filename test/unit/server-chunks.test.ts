import * as z from 'zod';
import type { Message, ServerBatchContext, ServerBatchResult } from '../../shared/destinations';
import { defineDestination } from '../../shared/destinations/types';
import type { Destination } from '../../shared/domain/catalog/schemas';
import { Circuit } from '../../shared/domain/delivery/circuit';
import { chunkKeyOf, sendServerChunk } from '../../shared/domain/delivery/sender';
import { slotsOf, unitAt } from '../../shared/domain/delivery/units';

/** A store that records each chunk it is given and answers as the test says. */
function recordingStore(answer: (messages: Message[]) => ServerBatchResult) {
  const calls: { messages: Message[]; context: ServerBatchContext }[] = [];
  const definition = { name: 'STORE', displayName: 'A store', config: z.strictObject({}), supportsTest: false, supportsDeletion: false };
  const type = defineDestination(definition, {
    delivery: 'server',
    serverBatch: {
      maxEvents: 3,
      deliver: async (messages, _config, context) => {
        calls.push({ messages, context });
        return answer(messages);
      },
    },
  });
  return { type, calls };
}

const destination = { id: 'dest-1', type: 'STORE', config: {} } as unknown as Destination;
const scope = { workspaceId: 'ws', sourceId: 'src', destinationId: 'dest-1', credentials: async () => ({}) };
const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'track', event: 'e', userId: `u${i}`, messageId: `m-${i}` }));

describe('server-delivered chunks', () => {
  it('groups consecutive events of a chunk type up to its maxEvents, whoever the users are', () => {
    const { type } = recordingStore(() => ({ status: 200, response: '', retryable: false }));
    const list = events(7);
    const slots = slotsOf(
      type,
      list,
      list.map((event) => ({ outputs: [event] })),
      { progress: 0, output: 0 },
      (message) => ({ ok: true, requests: [], message }),
    );
    const units: string[][] = [];
    for (let i = 0; i < slots.length;) {
      const unit = unitAt(type, slots, i, new Set());
      units.push(unit.sends.map((slot) => slot.messageId));
      i = unit.end;
    }
    expect(units).toEqual([['m-0', 'm-1', 'm-2'], ['m-3', 'm-4', 'm-5'], ['m-6']]);
  });

  it('gives the same events the same chunk key, and other events or another destination another', () => {
    expect(chunkKeyOf('d', ['a#0', 'b#0'])).toBe(chunkKeyOf('d', ['a#0', 'b#0']));
    expect(chunkKeyOf('d', ['a#0', 'b#0'])).not.toBe(chunkKeyOf('d', ['a#0', 'b#1']));
    expect(chunkKeyOf('d', ['a#0'])).not.toBe(chunkKeyOf('e', ['a#0']));
  });

  it("reads the store's per-event verdicts, and its status where it gives none", async () => {
    const perEvent = recordingStore((messages) => ({
      status: 200,
      response: '',
      retryable: false,
      verdicts: messages.map((m) => (m.messageId === 'm-1' ? { kind: 'refused', error: 'bad row' } : { kind: 'delivered' })),
    }));
    const chunk = { messages: events(3), ids: ['m-0#0', 'm-1#0', 'm-2#0'] };
    const sent = await sendServerChunk(destination, perEvent.type.serverBatch!, chunk, new Circuit(() => 1000), scope);
    expect(sent.verdicts.map((v) => v.kind)).toEqual(['delivered', 'refused', 'delivered']);
    expect(perEvent.calls[0]!.context).toMatchObject({ workspaceId: 'ws', sourceId: 'src', chunkKey: chunkKeyOf('dest-1', chunk.ids) });

    const down = recordingStore(() => ({ status: 503, response: '', error: 'SlowDown', retryable: true, retryAfterMs: 5000 }));
    const failed = await sendServerChunk(destination, down.type.serverBatch!, chunk, new Circuit(() => 1000), scope);
    expect(failed).toMatchObject({ status: 503, retryAfterMs: 5000, verdicts: [0, 1, 2].map(() => ({ kind: 'retryable', error: 'SlowDown' })) });
  });

  it('turns a store that throws into a retryable failure of the chunk', async () => {
    const broken = recordingStore(() => {
      throw new Error('socket hang up');
    });
    const sent = await sendServerChunk(destination, broken.type.serverBatch!, { messages: events(1), ids: ['m-0#0'] }, new Circuit(() => 1000), scope);
    expect(sent.verdicts).toEqual([{ kind: 'retryable', error: 'socket hang up' }]);
  });
});
