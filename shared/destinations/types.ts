import type { z } from 'zod';

/**
 * The contract of a destination type. Each type lives in a folder of its own under shared/destinations: its
 * `definition.ts` exports its `DestinationDefinition` (name, configuration schema, what it supports), which
 * definitions.ts lists for the catalog and GET /destination-definitions; its `index.ts` exports the
 * type's code (DestinationCode), which registry.ts joins to the definition on first use. The test interface, live
 * delivery and user deletion all go through these objects, so a type behaves the same wherever it is used.
 */

/** One outgoing request, the shape SPEC §2.7 shows in `dest_transformed_payload`. */
export interface DestinationRequest {
  version: '1';
  type: 'REST';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  endpoint: string;
  headers: Record<string, string>;
  params: Record<string, string>;
  body: {
    JSON: Record<string, unknown>;
    JSON_ARRAY: Record<string, unknown>;
    XML: Record<string, unknown>;
    FORM: Record<string, unknown>;
  };
  files: Record<string, unknown>;
  /** The anonymousId the request is about, as the reference shows it (absent when the event has none). */
  userId?: string;
}

/** An event as the pipeline carries it (identify, track, page, screen, group, alias). */
export type Message = Record<string, unknown>;

/** What a destination answered to one request, as the test interface and delivery report it. */
export interface DeliveryResult {
  /** HTTP status; where no answer came, the status a gateway would give (see http-client.ts). */
  status: number;
  /** JSON body when the answer is JSON, text for text/xml answers, otherwise "". */
  response: unknown;
  /** Set when no HTTP answer was received (refused address, time-out, network failure). */
  error?: string;
  /** Whether sending the same request again later may succeed (5xx, 429, 408, time-outs, network). */
  retryable: boolean;
  /** How long the destination asked to be left alone (a 429's or 503's `Retry-After`), in milliseconds. */
  retryAfterMs?: number;
}

/** The user a deletion is about: userId always, other identifiers where the regulation gave them. */
export interface DeletionUser {
  userId: string;
  email?: string;
  phone?: string;
  [identifier: string]: string | undefined;
}

/**
 * How a vendor's user deletion ended. `unsupported` and `not_found` are final answers that need no retry;
 * `failed` with `retryable` true is worth another attempt later.
 */
export type DeletionOutcome =
  { status: 'completed'; detail?: string } | { status: 'unsupported' | 'not_found'; reason: string } | { status: 'failed'; error: string; retryable: boolean };

/** The HTTP client a deletion call sends with (the one of http-client.ts, or a test's). */
export type RequestSender = (request: DestinationRequest) => Promise<DeliveryResult>;

/** What a deletion call may use; server-delivered types (Redis) bring their own client instead. */
export interface DeletionIO {
  send: RequestSender;
}

/**
 * How old (and how far ahead of now) an event may be for the vendor to keep it: outside this window it is not
 * sent but aborted alone, with a reason naming the vendor's limit (class `age` of the funnel).
 */
export interface AgeWindow {
  /** The vendor as the reasons name it: "Facebook" gives "older than Facebook's 7 days". */
  vendor: string;
  /** The oldest event the vendor keeps, in milliseconds before now, and as its documentation says it ("7 days"). */
  maxAgeMs: number;
  maxAge: string;
  /** The furthest ahead of now an event time may be (the clocks' tolerance); an hour unless given. */
  maxAheadMs?: number;
}

/** What the vendor made of one event of a chunk, where its answer tells events apart. */
export type ChunkEventVerdict = { kind: 'delivered' } | { kind: 'refused'; error: string } | { kind: 'retryable'; error: string };

/**
 * A vendor's batch API: the one-event requests `transform` builds for events going to the same place are
 * sent as one request whose `lists` (paths into the body, e.g. `JSON.events`) hold them all. Requests combine
 * only where everything else (endpoint, headers, params, the rest of the body) is the same, so a per-request
 * field such as GA4's client_id keeps its own requests.
 */
export interface BatchApi {
  /** Most events per request, and most bytes of body, the vendor takes. */
  maxEvents: number | ((request: DestinationRequest) => number);
  maxBytes: number;
  lists: string[];
  /**
   * Per-event verdicts when the vendor's answer names the events it took or refused (by their index in the
   * chunk), a 2xx answer included (Customer.io's 207); undefined when the answer is about the request as a whole.
   * `request` is the request as sent, for answers that name events by something they carried; `items` the
   * one-event requests it combines, in order, for answers that name an item by its place in one of several
   * lists (Braze's `input_array` and `index`).
   */
  verdicts?(
    answer: { status: number; response: unknown },
    count: number,
    request?: DestinationRequest,
    items?: DestinationRequest[],
  ): ChunkEventVerdict[] | undefined;
  /**
   * Whether a whole-request refusal (a 400, 413 or 422 naming no event) is about the credentials or the
   * destination's setup rather than the events: such a refusal aborts the chunk whole. Any other is taken as
   * refused for its content, and the chunk is sent again in halves, down to one event, so that only the events
   * the vendor refuses alone are aborted (see chunk-verdicts.ts). Undefined: every such refusal is about content.
   */
  setupRefusal?(answer: { status: number; response: unknown }): boolean;
  /**
   * What a one-event request is about where the vendor refuses a request holding two items about the same
   * record (HubSpot's batch upsert): requests with the same key go in different chunks. Undefined: no limit.
   */
  itemKey?(request: DestinationRequest): string | undefined;
}

/** Where the events of a server-delivered chunk come from, and what the delivery may read. */
export interface ServerBatchContext {
  workspaceId: string;
  sourceId: string;
  destinationId: string;
  /**
   * The same for the same events (the chunk's messageIds, hashed): an object named with it is overwritten,
   * never duplicated, when a chunk is sent again after a crash.
   */
  chunkKey: string;
  /** The workspace's credentials (name → value), read once per delivery round. */
  credentials(): Promise<Record<string, string>>;
}

/** What a server-delivered chunk came to: the answer as a whole, and per event where the store tells them apart. */
export type ServerBatchResult = DeliveryResult & { verdicts?: ChunkEventVerdict[] };

/**
 * A store or stream the data plane writes a chunk of events to itself (object storage, a warehouse, a
 * stream): consecutive events of a stream batch go in one call of up to `maxEvents`. Never throws.
 */
export interface ServerBatch<Config> {
  maxEvents: number;
  deliver(messages: Message[], config: Config, context: ServerBatchContext): Promise<ServerBatchResult>;
}

/**
 * What a destination type is without its code: all the catalog validates a configuration with and all
 * GET /destination-definitions shows. A definition file imports nothing but zod and small schema pieces, so the
 * functions that only validate or list configurations never carry the types' code (transforms, clients, SDKs).
 */
export interface DestinationDefinition<Schema extends z.ZodObject = z.ZodObject> {
  /** The definition name stored on a destination, e.g. WEBHOOK. */
  name: string;
  displayName: string;
  /** The configuration's zod schema; its keys are the `defaultConfig` of GET /destination-definitions. */
  config: Schema;
  /** Whether the test interface transforms and sends to it (a unit test holds it to the code: registry.ts). */
  supportsTest: boolean;
  /** Whether suppress_with_delete regulations delete users there (held to the code the same way). */
  supportsDeletion: boolean;
}

/** Helps each definition keep its config's type when it is declared. */
export const defineDefinition = <S extends z.ZodObject>(definition: DestinationDefinition<S>): DestinationDefinition<S> => definition;

export interface DestinationType<Schema extends z.ZodObject = z.ZodObject> {
  /** The definition's name, display name and configuration schema (see DestinationDefinition). */
  name: string;
  displayName: string;
  config: Schema;
  /**
   * `http`: Weir sends the requests that `transform` builds (test interface and live delivery).
   * `server`: the data plane's own server delivers it (SPEC §4.C rule 9); the test interface refuses it.
   */
  delivery: 'http' | 'server';
  /**
   * The vendor's own text for a configuration field that cannot build a request (the test interface shows
   * it as the destination-transform result); undefined: a generic text naming the field.
   */
  invalidConfigText?(field: string): string | undefined;
  /** Pure: one event and a validated config → the request(s) to send. Throws DestinationError. */
  transform?(message: Message, config: z.output<Schema>): DestinationRequest[];
  /** Where the vendor has a batch API: how one-event requests combine into one (see BatchApi). */
  batch?: BatchApi;
  /**
   * A type without a batch API whose endpoint takes several requests at once: a run of batches sends events of
   * different users side by side (each user's still one after the other; send-chains.ts), up to the delivery
   * policy's `sendConcurrency`. Absent: one request at a time (vendors with per-second limits, a Slack channel).
   */
  concurrent?: true;
  /**
   * The vendor's age window for this event with this config (see AgeWindow); undefined: events of any time go.
   * Delivery checks it before sending (sender.ts), for every type alike.
   */
  ageWindow?(message: Message, config: z.output<Schema>): AgeWindow | undefined;
  /**
   * Whether an answer is the vendor's throttling or quota answer, whatever its status (BigQuery's 403
   * rateLimitExceeded): the events are parked, and its `Retry-After` honoured, as for a 429 (http-client.ts).
   */
  throttled?(answer: { status: number; response: unknown }): boolean;
  /** Server-delivered types: delivers one event itself (there is no HTTP request to show). */
  deliver?(message: Message, config: z.output<Schema>): Promise<DeliveryResult>;
  /** Server-delivered types that write chunks of events (see ServerBatch); takes precedence over `deliver`. */
  serverBatch?: ServerBatch<z.output<Schema>>;
  /**
   * A server-delivered type the test interface answers all the same (a warehouse: SPEC §4.C rule 9 names
   * streaming platforms, key-value stores, object storage, spreadsheets and streaming warehouses only): what its
   * destination-transform stage shows for one event; its send stage writes that event as a chunk of one.
   */
  preview?(message: Message, config: z.output<Schema>): { ok: true; payload: Record<string, unknown>[] } | { ok: false; error: string };
  /** Deletes the users' data at the vendor (one call for all of them where the vendor allows it). */
  deleteUsers?(users: DeletionUser[], config: z.output<Schema>, io: DeletionIO): Promise<DeletionOutcome>;
}

/** A type's code: everything of its `DestinationType` but what its definition says. */
export type DestinationCode<S extends z.ZodObject = z.ZodObject> = Omit<DestinationType<S>, 'name' | 'displayName' | 'config'>;

/**
 * A type's code, typed by its definition (`defineDestinationCode<typeof webhookDefinition>({...})`), which it
 * imports as a type only: each type's index.ts is bundled on its own and loaded on first use (registry.ts), and
 * carries neither its definition nor zod; the registry joins it to the definition the function already holds.
 */
export const defineDestinationCode = <D extends DestinationDefinition>(code: DestinationCode<D['config']>): DestinationCode<D['config']> => code;

/** A type built from its definition (name, display name, schema: declared once) and its code. */
export const defineDestination = <S extends z.ZodObject>(definition: DestinationDefinition<S>, code: DestinationCode<S>): DestinationType<S> => ({
  name: definition.name,
  displayName: definition.displayName,
  config: definition.config,
  ...code,
});
