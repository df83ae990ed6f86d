import * as z from 'zod';
import type { AuthorizerName, FunctionName } from './functions';
import {
  Connection,
  ConnectionCreate,
  Destination,
  DestinationCreate,
  DestinationPatch,
  IdParams,
  Source,
  SourceCreate,
  SourcePatch,
  Success,
} from '../domain/catalog/schemas';
import { DestinationDefinitionView } from '../destinations/registry';
import { BatchBody, IngestParams, MAX_REQUEST_BYTES, PixelParams, PixelQuery, SingleEventBody, WriteKeyQuery } from '../domain/ingestion/schemas';
import { SegmentSettings, SourceConfig, SourceConfigQuery, WriteKeyParams } from '../domain/ingestion/sdk-config';
import {
  EventIdParams,
  EventModel,
  EventModelsQuery,
  EventVersion,
  EventVersionsQuery,
  JsonSchemaDocument,
  KeyCounts,
  KeyCountsParams,
  Metadata,
  MissingKeys,
  VersionIdParams,
} from '../domain/event-schemas/schemas';
import { LiveEventsPage, LiveEventsQuery, Outcomes, SourceLiveEventsPage } from '../domain/delivery/monitoring';
import { AuditQuery, AuditReport } from '../domain/delivery/audit';
import { ParkedRecordIdParams, ParkedRecordView, ParkedRecordsQuery } from '../domain/streams/schemas';
import { CredentialKeyParams, CredentialPut, CredentialView } from '../domain/credentials/schemas';
import { Regulation, RegulationCreate, RegulationDetail, RegulationIdParams, RegulationListQuery, RegulationPage } from '../domain/regulations/schemas';
import { DestinationTestResult, ForceQuery, SourceTestResult, TestDestinationBody, TestSourceBody } from '../domain/test-interface/schemas';
import {
  LibrariesTestAnswer,
  Library,
  LibraryCreate,
  LibraryUpdate,
  LibraryVersion,
  LibraryVersionListed,
  PublishQuery,
  PublishRequest,
  SuiteRequest,
  Transformation,
  TransformationCreate,
  TransformationUpdate,
  TransformationVersion,
  ValidationOutput,
  VersionParams,
  VersionsQuery,
} from '../domain/transformations/schemas';

/**
 * The route manifest: the one place a route is described. API Gateway (infra/stacks), the local gateway
 * (infra/local), request validation (shared/http) and GET /openapi.json are all generated from it.
 * Adding a route is one entry here plus its action in the function's handler.
 */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway resource template, e.g. /v2/sources/{id}. */
  path: string;
  fn: FunctionName;
  auth: AuthorizerName | 'none';
  summary: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  /** Status of a successful answer (default 200). */
  status?: number;
  /** Largest body this route reads, in bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /**
   * Credentials the handler checks itself, where no authorizer can (`auth: 'none'`): the source write key of
   * ingestion may come in the body, which authorizers never see.
   */
  handlerAuth?: 'writeKey';
  /** What a successful answer is, when not JSON: ingestion's plain-text `OK`, a pixel's GIF. */
  responseType?: 'text' | 'gif';
  /**
   * Web pages call it, from any origin (write keys are public by design): preflights and answers carry
   * BROWSER_CORS (shared/contract/cors.ts) in both runtimes. Routes without it give other origins nothing.
   */
  browser?: true;
}

const route = <const R extends RouteDefinition>(r: R) => r;

const Health = z.object({ status: z.literal('ok') });

/** What every route that takes events has: the write key checked by the handler, 200 `OK` once stored, any page. */
const STORES_EVENTS = {
  response: z.literal('OK'),
  responseType: 'text',
  handlerAuth: 'writeKey',
  maxBodyBytes: MAX_REQUEST_BYTES,
  browser: true,
} as const;
const ErrorBody = z.object({ error: z.string(), details: z.record(z.string(), z.string()).optional() });
export { ErrorBody };

// One line per route: the manifest reads as a table.
// prettier-ignore
export const ROUTES = [
  // --- control plane: service metadata ----------------------------------------------------------------
  route({ method: 'GET', path: '/health', fn: 'controlMeta', auth: 'none', summary: 'Liveness', response: Health }),
  route({
    method: 'GET',
    path: '/openapi.json',
    fn: 'controlMeta',
    auth: 'none',
    summary: 'This API as OpenAPI 3.1, generated from the route manifest',
    response: z.record(z.string(), z.unknown()),
  }),
  route({
    method: 'GET',
    path: '/destination-definitions',
    fn: 'controlMeta',
    auth: 'none',
    summary: 'Destination types, their configuration variables and what they support',
    response: z.array(DestinationDefinitionView),
  }),

  // --- control plane: catalog (Bearer) -----------------------------------------------------------------
  route({ method: 'GET', path: '/v2/sources', fn: 'catalog', auth: 'bearer', summary: 'List sources', response: z.object({ sources: z.array(Source) }) }),
  route({ method: 'POST', path: '/v2/sources', fn: 'catalog', auth: 'bearer', summary: 'Create a source (a write key is generated)', body: SourceCreate, response: z.object({ source: Source }), status: 201 }),
  route({ method: 'GET', path: '/v2/sources/{id}', fn: 'catalog', auth: 'bearer', summary: 'Get a source', params: IdParams, response: z.object({ source: Source }) }),
  route({ method: 'PATCH', path: '/v2/sources/{id}', fn: 'catalog', auth: 'bearer', summary: 'Rename, enable or disable a source', params: IdParams, body: SourcePatch, response: z.object({ source: Source }) }),
  route({ method: 'DELETE', path: '/v2/sources/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a source and its connections', params: IdParams, response: Success }),

  route({ method: 'GET', path: '/v2/destinations', fn: 'catalog', auth: 'bearer', summary: 'List destinations', response: z.object({ destinations: z.array(Destination) }) }),
  route({ method: 'POST', path: '/v2/destinations', fn: 'catalog', auth: 'bearer', summary: 'Create a destination of a defined type', body: DestinationCreate, response: z.object({ destination: Destination }), status: 201 }),
  route({ method: 'GET', path: '/v2/destinations/{id}', fn: 'catalog', auth: 'bearer', summary: 'Get a destination', params: IdParams, response: z.object({ destination: Destination }) }),
  route({ method: 'PATCH', path: '/v2/destinations/{id}', fn: 'catalog', auth: 'bearer', summary: 'Rename, enable/disable or reconfigure a destination', params: IdParams, body: DestinationPatch, response: z.object({ destination: Destination }) }),
  route({ method: 'DELETE', path: '/v2/destinations/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a destination and its connections', params: IdParams, response: Success }),

  route({ method: 'GET', path: '/v2/connections', fn: 'catalog', auth: 'bearer', summary: 'List connections', response: z.object({ connections: z.array(Connection) }) }),
  route({ method: 'POST', path: '/v2/connections', fn: 'catalog', auth: 'bearer', summary: 'Connect a source to a destination', body: ConnectionCreate, response: z.object({ connection: Connection }), status: 201 }),
  route({ method: 'GET', path: '/v2/connections/{id}', fn: 'catalog', auth: 'bearer', summary: 'Get a connection', params: IdParams, response: z.object({ connection: Connection }) }),
  route({ method: 'DELETE', path: '/v2/connections/{id}', fn: 'catalog', auth: 'bearer', summary: 'Delete a connection', params: IdParams, response: Success }),

  // --- control plane: what the pipeline did (Bearer) -------------------------------------------------------
  route({ method: 'GET', path: '/v2/destinations/{id}/outcomes', fn: 'monitoring', auth: 'bearer', summary: 'Delivered, retrying, aborted, filtered and suppressed event counts of a destination, with its last errors', params: IdParams, response: Outcomes }),
  route({ method: 'GET', path: '/v2/sources/{id}/live-events', fn: 'monitoring', auth: 'bearer', summary: 'The events a source received in the last day, newest first (suppressed events never appear), with those it refused', params: IdParams, query: LiveEventsQuery, response: SourceLiveEventsPage }),
  route({ method: 'GET', path: '/v2/destinations/{id}/live-events', fn: 'monitoring', auth: 'bearer', summary: 'What was recently sent to a destination and what it answered, newest first', params: IdParams, query: LiveEventsQuery, response: LiveEventsPage }),

  // --- control plane: event schemas of the workspace's own sources (Bearer; the data plane's admin API sees all) --
  route({ method: 'GET', path: '/v2/sources/{id}/event-models', fn: 'eventSchemas', auth: 'bearer', summary: "The event models of one of the workspace's sources, in row order", params: IdParams, response: z.array(EventModel) }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/versions', fn: 'eventSchemas', auth: 'bearer', summary: 'The versions of an event model', params: EventIdParams, response: z.array(EventVersion) }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/metadata', fn: 'eventSchemas', auth: 'bearer', summary: "An event model's sampled events, count and frequent values", params: EventIdParams, response: Metadata }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/key-counts', fn: 'eventSchemas', auth: 'bearer', summary: 'In how many events of the model each key was present (and not null)', params: EventIdParams, response: KeyCounts }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/json-schema', fn: 'eventSchemas', auth: 'bearer', summary: 'The event model as a JSON Schema (draft 2020-12)', params: EventIdParams, response: JsonSchemaDocument }),
  route({ method: 'GET', path: '/v2/event-versions/{VersionID}/metadata', fn: 'eventSchemas', auth: 'bearer', summary: "An event version's sampled events, count and frequent values", params: VersionIdParams, response: Metadata }),
  route({ method: 'GET', path: '/v2/event-versions/{VersionID}/missing-keys', fn: 'eventSchemas', auth: 'bearer', summary: "Keys of the model's schema that this version's events lack", params: VersionIdParams, response: MissingKeys }),

  // --- control plane: data regulations (Bearer) ------------------------------------------------------------
  route({
    method: 'POST',
    path: '/v2/regulations',
    fn: 'regulations',
    auth: 'bearer',
    summary: 'Suppress users (and delete them at destinations): one regulation per user; 201 "Created", or JSON with Accept: application/json; Idempotency-Key honoured',
    body: RegulationCreate,
    response: z.array(Regulation),
    status: 201,
  }),
  route({ method: 'GET', path: '/v2/regulations', fn: 'regulations', auth: 'bearer', summary: 'List regulations in creation order, a page at a time', query: RegulationListQuery, response: RegulationPage }),
  route({ method: 'GET', path: '/v2/regulations/{id}', fn: 'regulations', auth: 'bearer', summary: 'A regulation with its status and, for deletions, each destination\'s job', params: RegulationIdParams, response: RegulationDetail }),
  route({ method: 'DELETE', path: '/v2/regulations/{id}', fn: 'regulations', auth: 'bearer', summary: 'Cancel a regulation: suppression lifted at once, waiting deletions stopped (idempotent)', params: RegulationIdParams, response: Regulation }),

  // --- control plane: transformations and libraries (Basic email:token or Bearer) ------------------------
  route({ method: 'POST', path: '/transformations', fn: 'transformations', auth: 'account', summary: 'Create a transformation (publish via query or body)', query: PublishQuery, body: TransformationCreate, response: Transformation }),
  route({ method: 'GET', path: '/transformations', fn: 'transformations', auth: 'account', summary: 'List transformations, drafts included', response: z.object({ transformations: z.array(Transformation) }) }),
  route({ method: 'GET', path: '/transformations/{id}', fn: 'transformations', auth: 'account', summary: 'Get a transformation (its latest revision)', params: IdParams, response: Transformation }),
  route({ method: 'POST', path: '/transformations/{id}', fn: 'transformations', auth: 'account', summary: 'Update a transformation: a new revision', params: IdParams, query: PublishQuery, body: TransformationUpdate, response: Transformation }),
  route({ method: 'DELETE', path: '/transformations/{id}', fn: 'transformations', auth: 'account', summary: 'Delete a transformation no destination uses', params: IdParams, response: Success }),
  route({ method: 'GET', path: '/transformations/{id}/versions', fn: 'transformations', auth: 'account', summary: 'List revisions', params: IdParams, query: VersionsQuery, response: z.object({ TransformationVersions: z.array(TransformationVersion) }) }),
  route({ method: 'GET', path: '/transformations/{id}/versions/{versionId}', fn: 'transformations', auth: 'account', summary: 'Get one revision', params: VersionParams, response: TransformationVersion }),
  route({ method: 'POST', path: '/libraries', fn: 'transformations', auth: 'account', summary: 'Create a library (publish via query or body)', query: PublishQuery, body: LibraryCreate, response: Library }),
  route({ method: 'GET', path: '/libraries', fn: 'transformations', auth: 'account', summary: 'List libraries', response: z.object({ libraries: z.array(Library) }) }),
  route({ method: 'GET', path: '/libraries/{id}', fn: 'transformations', auth: 'account', summary: 'Get a library (its latest revision)', params: IdParams, response: Library }),
  route({ method: 'POST', path: '/libraries/{id}', fn: 'transformations', auth: 'account', summary: 'Update a library: a new revision', params: IdParams, query: PublishQuery, body: LibraryUpdate, response: Library }),
  route({ method: 'DELETE', path: '/libraries/{id}', fn: 'transformations', auth: 'account', summary: 'Delete a library no transformation imports', params: IdParams, response: Success }),
  route({ method: 'GET', path: '/libraries/{id}/versions', fn: 'transformations', auth: 'account', summary: 'List revisions', params: IdParams, query: VersionsQuery, response: z.object({ libraryVersions: z.array(LibraryVersionListed) }) }),
  route({ method: 'GET', path: '/libraries/{id}/versions/{versionId}', fn: 'transformations', auth: 'account', summary: 'Get one revision', params: VersionParams, response: LibraryVersion }),
  route({ method: 'POST', path: '/transformations/libraries/publish', fn: 'transformations', auth: 'account', summary: 'Test, then publish revisions all together (400 with results when a test fails)', body: PublishRequest, response: z.object({ published: z.literal(true) }) }),
  route({ method: 'POST', path: '/transformations/libraries/test', fn: 'transformations', auth: 'account', summary: 'Test revisions on their testInput (or the default events)', body: PublishRequest, response: LibrariesTestAnswer }),
  route({ method: 'POST', path: '/transformations/publish', fn: 'transformations', auth: 'account', summary: 'Run test suites, then publish (200 with published:false when a test fails)', body: SuiteRequest, response: z.object({ published: z.boolean(), validationOutput: ValidationOutput }) }),
  route({ method: 'POST', path: '/transformations/tests/run', fn: 'transformations', auth: 'account', summary: 'Run test suites with expected outputs', body: SuiteRequest, response: z.object({ pass: z.boolean(), message: z.string().optional(), validationOutput: ValidationOutput }) }),

  // --- control plane: credentials for transformations (Basic email:token or Bearer) ------------------------
  route({ method: 'GET', path: '/credentials', fn: 'credentials', auth: 'account', summary: "List credentials: keys, isSecret and times, and the values of those that are not secret", response: z.object({ credentials: z.array(CredentialView) }) }),
  route({ method: 'PUT', path: '/credentials/{key}', fn: 'credentials', auth: 'account', summary: 'Create or replace a credential that transformations read with getCredential(key); a secret is never shown again', params: CredentialKeyParams, body: CredentialPut, response: z.object({ credential: CredentialView }) }),
  route({ method: 'DELETE', path: '/credentials/{key}', fn: 'credentials', auth: 'account', summary: 'Delete a credential', params: CredentialKeyParams, response: Success }),

  // --- control plane: test interface (Basic email:token or Bearer) -------------------------------------------
  route({
    method: 'POST',
    path: '/v0/testDestination/{destination_id}',
    fn: 'testInterface',
    auth: 'account',
    summary: "Push a sample event through one destination's stages (user transformation, destination transform, send)",
    params: z.object({ destination_id: z.string().min(1).max(64) }),
    query: ForceQuery,
    body: TestDestinationBody,
    response: DestinationTestResult,
  }),
  route({
    method: 'POST',
    path: '/v0/testSource/{source_id}',
    fn: 'testInterface',
    auth: 'account',
    summary: 'Push a sample event through every destination connected to a source',
    params: z.object({ source_id: z.string().min(1).max(64) }),
    query: ForceQuery,
    body: TestSourceBody,
    response: SourceTestResult,
  }),

  // --- data plane --------------------------------------------------------------------------------------
  route({ method: 'GET', path: '/health', fn: 'dataMeta', auth: 'none', summary: 'Liveness', response: Health }),
  route({
    method: 'GET',
    path: '/openapi.json',
    fn: 'dataMeta',
    auth: 'none',
    summary: 'The data plane as OpenAPI 3.1 (ingestion and data governance), generated from the route manifest',
    response: z.record(z.string(), z.unknown()),
  }),
  route({
    method: 'POST',
    path: '/v1/{type}',
    fn: 'ingest',
    auth: 'none',
    summary:
      "Ingest an event (identify, track, page, screen, group, alias, or Segment's i, t, p, s, g, a) or a batch {batch:[...]} (batch, b, import): write key as the Basic user name or a writeKey field; gzip and JSON whatever the content type; 200 OK",
    params: IngestParams,
    body: SingleEventBody,
    ...STORES_EVENTS,
  }),
  route({
    method: 'POST',
    path: '/beacon/v1/batch',
    fn: 'ingest',
    auth: 'none',
    summary: 'A batch sent with navigator.sendBeacon: the write key in the query, the body JSON in any content type (text/plain); 200 OK',
    query: WriteKeyQuery,
    body: BatchBody,
    ...STORES_EVENTS,
  }),
  route({
    method: 'GET',
    path: '/pixel/v1/{type}',
    fn: 'ingest',
    auth: 'none',
    summary: 'A track or page from an image request (an email open): the event from the query (writeKey, anonymousId, event, name, properties.<key>); the answer is always a 1×1 GIF',
    params: PixelParams,
    query: PixelQuery,
    response: z.string(),
    responseType: 'gif',
    handlerAuth: 'writeKey',
    browser: true,
  }),
  route({
    method: 'GET',
    path: '/sourceConfig',
    fn: 'sdkConfig',
    auth: 'none',
    summary: "The source's configuration as the RudderStack SDKs read it (their configUrl): write key as the Basic user name or ?writeKey=",
    query: SourceConfigQuery,
    response: SourceConfig,
    handlerAuth: 'writeKey',
    browser: true,
  }),
  route({
    method: 'GET',
    path: '/v1/projects/{writeKey}/settings',
    fn: 'sdkConfig',
    auth: 'none',
    summary: "The settings Segment's Analytics.js loads from its cdnURL: events to this data plane",
    params: WriteKeyParams,
    response: SegmentSettings,
    handlerAuth: 'writeKey',
    browser: true,
  }),

  // --- data plane: data governance (admin Basic; a refusal answers 400) ------------------------------------
  route({ method: 'GET', path: '/schemas/event-models', fn: 'governance', auth: 'admin', summary: 'Event models, in row order; WriteKey limits them to one source', query: EventModelsQuery, response: z.array(EventModel) }),
  route({ method: 'GET', path: '/schemas/event-versions', fn: 'governance', auth: 'admin', summary: 'The versions of an event model; [] for an EventID that names no model', query: EventVersionsQuery, response: z.array(EventVersion) }),
  route({ method: 'GET', path: '/schemas/event-model/{EventID}/metadata', fn: 'governance', auth: 'admin', summary: "An event model's sampled events, count and frequent values", params: EventIdParams, response: Metadata }),
  route({ method: 'GET', path: '/schemas/event-version/{VersionID}/metadata', fn: 'governance', auth: 'admin', summary: "An event version's sampled events, count and frequent values", params: VersionIdParams, response: Metadata }),
  route({ method: 'GET', path: '/schemas/event-model/{EventID}/key-counts', fn: 'governance', auth: 'admin', summary: 'In how many events of the model each key was present (and not null); {} for an EventID that names no model', params: KeyCountsParams, response: KeyCounts }),
  route({ method: 'GET', path: '/schemas/event-version/{VersionID}/missing-keys', fn: 'governance', auth: 'admin', summary: "Keys of the model's schema that this version's events lack", params: VersionIdParams, response: MissingKeys }),
  route({ method: 'GET', path: '/schemas/{VersionID}/missing-keys', fn: 'governance', auth: 'admin', summary: 'The same, at the short path of the published example', params: VersionIdParams, response: MissingKeys }),
  route({ method: 'GET', path: '/schemas/event-model/{EventID}/json-schema', fn: 'governance', auth: 'admin', summary: 'The event model as a JSON Schema (draft 2020-12) its events validate against', params: EventIdParams, response: JsonSchemaDocument }),

  // --- data plane: operations (admin Basic) -----------------------------------------------------------------
  route({ method: 'GET', path: '/admin/parked-records', fn: 'parkedRecords', auth: 'admin', summary: 'Stream records a consumer could not handle after its attempts, parked with their error, by due time', query: ParkedRecordsQuery, response: z.array(ParkedRecordView) }),
  route({ method: 'POST', path: '/admin/parked-records/{id}/replay', fn: 'parkedRecords', auth: 'admin', summary: 'Hand a parked record to its consumer again now', params: ParkedRecordIdParams, response: ParkedRecordView, status: 202 }),
  route({ method: 'GET', path: '/admin/audit', fn: 'deliveryAudit', auth: 'admin', summary: "A source's stored events reconciled with each connected destination's outcomes: events by state, those in no state, and whether the counters equal them", query: AuditQuery, response: AuditReport }),
] as const;

export type Route = (typeof ROUTES)[number];
export type RouteKey<R extends RouteDefinition = Route> = `${R['method']} ${R['path']}`;
export const routeKey = (r: Pick<RouteDefinition, 'method' | 'path'>): string => `${r.method} ${r.path}`;
