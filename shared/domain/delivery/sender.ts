import { createHash } from 'node:crypto';
import {
  buildRequests,
  destinationType,
  sendRequest,
  type BatchApi,
  type ChunkEventVerdict,
  type DeliveryResult,
  type DestinationRequest,
  type Message,
  type ServerBatch,
  type ServerBatchContext,
  type ServerBatchResult,
} from '../../destinations';
import { outsideAgeWindow } from '../../destinations/age-window';
import { combine, envelopeOf } from '../../destinations/batching';
import { refusedForContent } from '../../destinations/chunk-verdicts';
import type { Destination } from '../catalog/schemas';
import type { Circuit } from './circuit';
import type { AbortClass } from './funnel';

/** What sending one message (or the rest of its requests) to a destination came to. */
export type SendOutcome =
  /** Answered 2xx (every request of the message). */
  | { kind: 'delivered'; status: number; response: unknown; request?: DestinationRequest }
  /** Answered with a refusal that no retry will change (4xx but 408 and 429): aborted. */
  | { kind: 'refused'; status: number; response: unknown; error: string; request?: DestinationRequest; remaining: DestinationRequest[] }
  /** Failed in a way a later attempt may not (5xx, 429, 408, no answer): parked for a retry. */
  | {
      kind: 'retryable';
      status: number;
      error: string;
      request?: DestinationRequest;
      remaining: DestinationRequest[];
      answered: boolean;
      /** The destination's `Retry-After`: not to be tried again sooner. */
      retryAfterMs?: number;
    }
  /** Not sent: the destination's circuit is open. Parked, and not counted as an attempt. */
  | { kind: 'skipped'; status: number; error: string; request?: DestinationRequest; remaining: DestinationRequest[] };

/** What a message is sent as: the requests of an HTTP type, or the message itself for a server-delivered type. */
export type Prepared = { ok: true; requests: DestinationRequest[]; message?: Message } | { ok: false; error: string; abortClass?: AbortClass };

/** What a message is sent as; an event outside its type's age window is not sent at all (class `age`). */
export function prepare(destination: Destination, message: Message): Prepared {
  const type = destinationType(destination.type);
  if (!type) return { ok: false, error: `unknown destination type ${destination.type}` };
  const outside = outsideAgeWindow(type, message, destination.config);
  if (outside !== undefined) return { ok: false, error: outside, abortClass: 'age' };
  if (type.deliver || type.serverBatch) return { ok: true, requests: [], message };
  return buildRequests(type, message, destination.config);
}

const succeeded = (status: number) => status >= 200 && status < 300;
const describe = (status: number, response: unknown) =>
  `destination answered ${status}: ${typeof response === 'string' ? response : JSON.stringify(response)}`.slice(0, 500);

/** Where a server-delivered chunk's events come from (its ServerBatchContext, less the chunk's own key). */
export type ServerScope = Omit<ServerBatchContext, 'chunkKey'>;

/** The same for the same outputs of the same events to the same destination (each id is `messageId#output`). */
export const chunkKeyOf = (destinationId: string, ids: string[]): string =>
  createHash('sha256')
    .update([destinationId, ...ids].join('\n'))
    .digest('hex')
    .slice(0, 32);

/**
 * Sends a prepared message through the destination's circuit: requests in order, stopping at the first that
 * fails; a server-delivered type delivers the message itself (a chunk type as a chunk of one, with `scope`).
 * The circuit hears every verdict.
 */
export async function send(
  destination: Destination,
  prepared: { requests: DestinationRequest[]; message?: Message; id?: string },
  circuit: Circuit,
  scope?: ServerScope,
): Promise<SendOutcome> {
  const verdict = circuit.admit(destination.id);
  if (!verdict.send) return { kind: 'skipped', status: verdict.status, error: verdict.error, request: prepared.requests[0], remaining: prepared.requests };

  const type = destinationType(destination.type);
  if (prepared.message && type?.serverBatch) {
    const context = { ...scope!, chunkKey: chunkKeyOf(destination.id, [prepared.id ?? String(prepared.message.messageId)]) };
    const result = await deliverChunk(type.serverBatch, [prepared.message], destination.config, context);
    // A 2xx whose verdict refuses or puts off the event is judged as a 400 or a 503 would be.
    const own = result.status < 300 ? result.verdicts?.[0] : undefined;
    const retryable = own?.kind === 'retryable';
    const judged = own && own.kind !== 'delivered' ? { ...result, status: retryable ? 503 : 400, error: own.error, retryable } : result;
    return judge(destination.id, circuit, judged, undefined, []);
  }
  if (prepared.message && type?.deliver) {
    const result = await type.deliver(prepared.message, destination.config);
    return judge(destination.id, circuit, result, undefined, []);
  }
  let last: { status: number; response: unknown; request?: DestinationRequest } = { status: 200, response: undefined };
  for (let i = 0; i < prepared.requests.length; i++) {
    const request = prepared.requests[i]!;
    const result = await sendRequest(request, { throttled: type?.throttled });
    const outcome = judge(destination.id, circuit, result, request, prepared.requests.slice(i), type?.batch);
    if (outcome.kind !== 'delivered') return outcome;
    last = { status: result.status, response: result.response, request };
  }
  if (prepared.requests.length === 0) circuit.release(destination.id);
  return { kind: 'delivered', ...last };
}

function judge(
  destinationId: string,
  circuit: Circuit,
  result: { status: number; response: unknown; error?: string; retryable: boolean; retryAfterMs?: number },
  request: DestinationRequest | undefined,
  remaining: DestinationRequest[],
  api?: BatchApi,
): SendOutcome {
  if (succeeded(result.status)) {
    circuit.succeeded(destinationId);
    // A one-event request to a batch API (a retry) may still have its event refused in a 2xx (Customer.io's 207).
    const named = request && api?.verdicts && envelopeOf(api, request) !== undefined ? api.verdicts(result, 1, request, [request])?.[0] : undefined;
    if (named?.kind === 'refused') return { kind: 'refused', status: result.status, response: result.response, error: named.error, request, remaining };
    if (named?.kind === 'retryable') return { kind: 'retryable', status: result.status, error: named.error, request, remaining, answered: true };
    return { kind: 'delivered', status: result.status, response: result.response, request };
  }
  const error = result.error ?? describe(result.status, result.response);
  if (!result.retryable) {
    // An answer, even a refusal, shows the destination is there.
    circuit.succeeded(destinationId);
    return { kind: 'refused', status: result.status, response: result.response, error, request, remaining };
  }
  circuit.failed(destinationId, { status: result.status, error, answered: result.error === undefined });
  const wait = result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {};
  return { kind: 'retryable', status: result.status, error, request, remaining, answered: result.error === undefined, ...wait };
}

/** What sending a chunk of one-event requests as one came to: a verdict per event, and the request as sent. */
export interface ChunkSent {
  /** The request as sent; none for a chunk a server-delivered type wrote itself. */
  request?: DestinationRequest;
  status: number;
  response?: unknown;
  /** Not sent: the circuit is open (the retries it parks are not counted as attempts). */
  skipped: boolean;
  /** The destination answered (whatever it said): no time-out, no refused connection. */
  answered: boolean;
  verdicts: ChunkEventVerdict[];
  /** The destination's `Retry-After`: the events it put off are not to be tried again sooner. */
  retryAfterMs?: number;
  /** Where the chunk was refused whole for its content and sent again in parts: for each event, its part's result. */
  parts?: ChunkSent[];
  /** Refused whole for its content (refusedForContent): worth sending again in halves. */
  splittable?: boolean;
}

/**
 * Sends `requests` (one event each, one envelope) as one request of the vendor's batch API, through the
 * destination's circuit. Where the vendor's answer names the events it refused or put off, each event gets
 * its own verdict; otherwise the answer's status decides for all of them. A chunk refused as a whole for its
 * content (refusedForContent) is sent again in halves, each half the same way, down to one event: only what the
 * vendor refuses alone is aborted. A half is sent once: nothing a vendor accepted is sent again.
 */
export async function sendChunk(
  destination: Destination,
  api: BatchApi,
  requests: DestinationRequest[],
  circuit: Circuit,
  throttled?: (answer: { status: number; response: unknown }) => boolean,
): Promise<ChunkSent> {
  /** One request for the whole part; `splittable` when its refusal is about content and names no event. */
  const sendWhole = async (part: DestinationRequest[]): Promise<ChunkSent> => {
    const request = combine(api, part);
    const admitted = circuit.admit(destination.id);
    if (!admitted.send) return { request, ...notAdmitted(admitted, part.length) };
    const result = await sendRequest(request, { throttled });
    // A 2xx may still name events the vendor refused (Customer.io's 207, Braze's errors[]): those get their own verdict.
    const named = result.error === undefined ? api.verdicts?.(result, part.length, request, part) : undefined;
    const sent = chunkOutcome(destination, circuit, result, named, part.length, result.error === undefined);
    return { request, ...sent, splittable: !named && refusedForContent(api, result) };
  };
  const send = async (part: DestinationRequest[]): Promise<ChunkSent> => {
    const sent = await sendWhole(part);
    if (!sent.splittable || part.length < 2) return sent;
    const half = Math.ceil(part.length / 2);
    const halves = [await send(part.slice(0, half)), await send(part.slice(half))];
    return { ...sent, verdicts: halves.flatMap((h) => h.verdicts), parts: halves.flatMap((h) => h.parts ?? h.verdicts.map(() => h)) };
  };
  return send(requests);
}

/** A chunk the destination's circuit did not let through: every event parked, not counted as an attempt. */
const notAdmitted = ({ status, error }: { status: number; error: string }, count: number): ChunkSent => ({
  status,
  skipped: true,
  answered: false,
  verdicts: Array.from({ length: count }, () => ({ kind: 'retryable', error })),
});

/**
 * What a chunk's answer comes to, for the vendor's batch API and the stores alike: the events it names get their
 * own verdicts, the others the status's; the circuit hears of it (an answer naming events, or a final refusal,
 * shows the destination is there).
 */
function chunkOutcome(
  destination: Destination,
  circuit: Circuit,
  result: DeliveryResult,
  named: ChunkEventVerdict[] | undefined,
  count: number,
  answered: boolean,
): ChunkSent {
  const ok = succeeded(result.status);
  const error = result.error ?? describe(result.status, result.response);
  if (ok || named || !result.retryable) circuit.succeeded(destination.id);
  else circuit.failed(destination.id, { status: result.status, error, answered: result.error === undefined });
  const verdict: ChunkEventVerdict = ok ? { kind: 'delivered' } : result.retryable ? { kind: 'retryable', error } : { kind: 'refused', error };
  const wait = result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {};
  return {
    status: result.status,
    response: result.response,
    skipped: false,
    answered,
    verdicts: named ?? Array.from({ length: count }, () => verdict),
    ...wait,
  };
}

/** A server-delivered type's call, kept to its promise of never throwing. */
export async function deliverChunk(
  batch: ServerBatch<Record<string, unknown>>,
  messages: Message[],
  config: Record<string, unknown>,
  context: ServerBatchContext,
): Promise<ServerBatchResult> {
  try {
    return await batch.deliver(messages, config, context);
  } catch (error) {
    return { status: 502, response: '', error: error instanceof Error ? error.message : String(error), retryable: true };
  }
}

/**
 * Writes consecutive messages as one chunk of a server-delivered type (a data lake, a warehouse, a stream),
 * through the destination's circuit: a verdict per event where the store tells them apart, else the status's.
 * `ids` (`messageId#output`) name the chunk, so the same events written again make the same chunk key.
 */
export async function sendServerChunk(
  destination: Destination,
  batch: ServerBatch<Record<string, unknown>>,
  chunk: { messages: Message[]; ids: string[] },
  circuit: Circuit,
  scope: ServerScope,
): Promise<ChunkSent> {
  const count = chunk.messages.length;
  const admitted = circuit.admit(destination.id);
  if (!admitted.send) return notAdmitted(admitted, count);
  const result = await deliverChunk(batch, chunk.messages, destination.config, { ...scope, chunkKey: chunkKeyOf(destination.id, chunk.ids) });
  return chunkOutcome(destination, circuit, result, result.verdicts, count, result.error === undefined || !result.retryable);
}
