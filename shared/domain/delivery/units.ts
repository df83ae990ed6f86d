import type { DestinationRequest, DestinationType, Message } from '../../destinations';
import { envelopeOf, itemBytes } from '../../destinations/batching';
import { userKeyOf } from '../users';
import type { AbortClass } from './funnel';
import type { BatchPosition } from './records';
import type { Prepared } from './sender';
import type { EventOutcome } from './user-transform';

/**
 * What a batch turns into before anything is sent: one slot per output of each pending event, in order, each
 * with the batch position after it. Pure but for the clock (an event outside its vendor's age window is aborted
 * unsent), so the same events always give the same slots and chunks.
 */
interface SlotBase {
  index: number;
  output: number;
  after: BatchPosition;
  messageId: string;
  /** Whose order the slot keeps: the event's userId, else its anonymousId, else the message alone. */
  userKey: string;
}

export type Slot = SlotBase &
  (
    | { kind: 'none' }
    | { kind: 'duplicate' }
    | { kind: 'filtered'; rule?: string }
    | { kind: 'aborted'; error: string; rule?: string; abortClass?: AbortClass }
    | { kind: 'send'; requests: DestinationRequest[]; message?: Message; envelope?: string; bytes: number }
  );

export type SendSlot = Extract<Slot, { kind: 'send' }>;

/** The envelope of every slot of a server-delivered chunk type. */
const SERVER_CHUNK = 'server-chunk';

/** How many events, and bytes of requests, one unit starting with `first` may take. */
function limitsOf(type: DestinationType | undefined, first: SendSlot): { maxEvents: number; maxBytes: number } | undefined {
  if (first.envelope === undefined) return undefined;
  if (first.envelope === SERVER_CHUNK && type?.serverBatch) return { maxEvents: type.serverBatch.maxEvents, maxBytes: Infinity };
  const api = type?.batch;
  if (!api) return undefined;
  return { maxEvents: typeof api.maxEvents === 'function' ? api.maxEvents(first.requests[0]!) : api.maxEvents, maxBytes: api.maxBytes };
}

export function slotsOf(
  type: DestinationType | undefined,
  events: Message[],
  outcomes: EventOutcome[],
  start: BatchPosition,
  prepare: (message: Message) => Prepared,
): Slot[] {
  const slots: Slot[] = [];
  events.forEach((event, i) => {
    const index = start.progress + i;
    const base = { index, messageId: String(event.messageId), userKey: userKeyOf(event) };
    const next = { progress: index + 1, output: 0 };
    const outcome = outcomes[i]!;
    const rule = 'rule' in outcome && outcome.rule !== undefined ? { rule: outcome.rule } : {};
    if ('filtered' in outcome) return slots.push({ ...base, output: 0, after: next, kind: 'filtered', ...rule });
    // An event some of whose outputs went before (a resumed batch) has the rest aborted from there.
    if ('error' in outcome) return slots.push({ ...base, output: i === 0 ? start.output : 0, after: next, kind: 'aborted', error: outcome.error, ...rule });
    if (outcome.outputs.length === 0) return slots.push({ ...base, output: 0, after: next, kind: 'none' });
    outcome.outputs.forEach((message, k) => {
      if (i === 0 && k < start.output) return;
      const after = k + 1 === outcome.outputs.length ? next : { progress: index, output: k + 1 };
      const prepared = prepare(message);
      if (!prepared.ok) {
        const abortClass = prepared.abortClass !== undefined ? { abortClass: prepared.abortClass } : {};
        return slots.push({ ...base, output: k, after, kind: 'aborted', error: prepared.error, ...abortClass });
      }
      const single = prepared.requests.length === 1 && !prepared.message ? prepared.requests[0]! : undefined;
      // A server-delivered chunk type writes any consecutive events together.
      const envelope = type?.serverBatch && prepared.message ? SERVER_CHUNK : type?.batch && single ? envelopeOf(type.batch, single) : undefined;
      slots.push({
        ...base,
        output: k,
        after,
        kind: 'send',
        requests: prepared.requests,
        ...(prepared.message && { message: prepared.message }),
        ...(envelope !== undefined && { envelope }),
        bytes: single && envelope !== undefined && type?.batch ? itemBytes(type.batch, single) : 0,
      });
    });
  });
  return slots;
}

/**
 * The slots sent together from `from` on: a chunk of consecutive one-event requests with the same envelope,
 * up to the vendor's limits (slots that send nothing now are taken along and settled with it), or one slot.
 * Returns the index after the unit and its send slots.
 */
export function unitAt(type: DestinationType | undefined, slots: Slot[], from: number, held: Set<string>): { end: number; sends: SendSlot[] } {
  const first = slots[from] as SendSlot;
  const limits = limitsOf(type, first);
  if (!limits) return { end: from + 1, sends: [first] };
  const { maxEvents, maxBytes } = limits;
  const sends: SendSlot[] = [first];
  const keyOf = (slot: SendSlot) => type?.batch?.itemKey?.(slot.requests[0]!);
  const keys = new Set([keyOf(first)]);
  let bytes = first.bytes;
  let end = from + 1;
  for (; end < slots.length && sends.length < maxEvents; end++) {
    const slot = slots[end]!;
    // Slots that send nothing now (filtered, aborted, a held user's) are taken along and settled with it.
    if (slot.kind !== 'send' || held.has(slot.userKey)) continue;
    if (slot.envelope !== first.envelope || bytes + slot.bytes > maxBytes) break;
    // A second item about the same record waits for the next chunk (the vendor would refuse the request).
    const key = keyOf(slot);
    if (key !== undefined && keys.has(key)) break;
    keys.add(key);
    sends.push(slot);
    bytes += slot.bytes;
  }
  // Slots that send nothing after the chunk's last send belong to whatever comes next.
  while (end > from + 1 && !sends.includes(slots[end - 1] as SendSlot)) end--;
  return { end, sends };
}
