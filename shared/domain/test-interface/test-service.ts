import type { z } from 'zod';
import { buildRequests, destinationType, sendRequest, validateDestinationConfig, type Message } from '../../destinations';
import { checkDestinationConfig } from '../../destinations/definitions';
import { resolveCredentialRefs } from '../../destinations/credential-refs';
import { withoutRoutingFields } from '../../destinations/routing-overrides';
import { invalidConfigText, supportsTest } from '../../destinations/registry';
import type { CatalogRepository } from '../catalog/ports';
import type { Destination, Source } from '../catalog/schemas';
import type { PlanStage } from '../tracking-plans/ingest-stage';
import type { Violation } from '../tracking-plans/schemas';
import type { CredentialService, InvocationCredentials } from '../credentials/credential-service';
import { redact } from '../credentials/redact';
import type { CredentialOverrides } from '../credentials/schemas';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../errors';
import { checkIdentifiers } from '../ingestion/events';
import { applyRules, compileRules, NO_RULES, type CompiledRules } from '../rules/rules';
import type { UserCodeReads } from '../transformations/ports';
import { publishedTransformation, runPublishedFor } from '../transformations/published';
import type { DestinationTestResult, Stage, TestDataEntry } from './schemas';
import { storeStages, type StoreTestScope } from './store-stages';
import { SUPPORTED_TYPES, TEXTS } from './texts';

type Stages = Required<z.output<typeof Stage>>;

/** A test message is one event; the data plane refuses events over this size too. */
export const MAX_TEST_MESSAGE_BYTES = 32 * 1024;

export interface TestOptions {
  stage?: z.output<typeof Stage>;
  force: boolean;
  /** Credentials for this call only, over the stored ones. */
  credentials?: CredentialOverrides;
}

/** The reference's error bodies carry `message`; Weir's carry `error`. A test-interface refusal has both. */
const refusal = (text: string) => new ValidationError(text, undefined, { message: text });

/**
 * The test interface (SPEC §4.C): one sample event pushed through the stages of one destination's pipeline
 * (its published user transformation in the sandbox, the destination transform, the send), each stage
 * shown as it happened. It runs the same destination code as live delivery.
 */
export class PipelineTestService {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'getDestination' | 'listDestinations' | 'listConnections'>,
    private readonly code: UserCodeReads,
    private readonly credentials: CredentialService,
    private readonly plans?: Pick<PlanStage, 'apply'>,
  ) {}

  async testDestination(
    workspaceId: string,
    destinationId: string,
    message: Message,
    options: TestOptions & { destinationConfig?: Record<string, unknown>; sourceId?: string },
  ): Promise<DestinationTestResult> {
    const stages = resolveStages(options.stage);
    checkMessage(message);
    const destination = await this.catalog.getDestination(workspaceId, destinationId);
    if (!destination) throw NotFoundError.of('destination', destinationId);
    const type = destinationType(destination.type);
    if (type && !supportsTest(type)) throw refusal(TEXTS.serverDelivered(destination.type));
    const checked = configForTest(destination, options.destinationConfig);
    const rules = options.sourceId === undefined ? NO_RULES : await this.rulesOf(workspaceId, options.sourceId, destinationId);
    const credentials = await this.credentials.forInvocation(workspaceId, options.credentials);
    const config = withCredentials(destination, checked, credentials, options.destinationConfig);
    const result = await this.runFor(workspaceId, destination, config, message, stages, options.force, credentials, rules);
    return redact(result, [...credentials.secrets, ...(config.secrets ?? [])]);
  }

  async testSource(workspaceId: string, sourceId: string, message: Message, options: TestOptions): Promise<DestinationTestResult[] | { message: string }> {
    const stages = resolveStages(options.stage);
    checkMessage(message);
    const source = await this.catalog.getSource(workspaceId, sourceId);
    if (!source) throw NotFoundError.of('source', sourceId);
    if (!source.enabled && !options.force) return { message: TEXTS.sourceDisabled(sourceId) };
    const connections = new Map((await this.catalog.listConnections(workspaceId)).filter((c) => c.sourceId === sourceId).map((c) => [c.destinationId, c]));
    const connected = new Set(connections.keys());
    const destinations = (await this.catalog.listDestinations(workspaceId)).filter((d) => connected.has(d.id));
    if (destinations.length === 0) throw refusal(TEXTS.notConnected(sourceId));
    const credentials = await this.credentials.forInvocation(workspaceId, options.credentials);
    // The source's tracking plan first, as ingestion runs it (nothing is counted): its verdict is shown with
    // every destination's result, and the stages run on the event as the plan left it.
    const planned = await this.plans?.apply(workspaceId, source, [structuredClone(message) as Record<string, unknown>]);
    const verdict = planned && planVerdict(source, planned);
    const event = planned ? ((planned.kept[0] ?? planned.dropped[0]) as Message) : message;
    const named: string[] = [];
    const results = await Promise.all(
      destinations.map(async (destination) => {
        const type = destinationType(destination.type);
        if (type && !supportsTest(type)) {
          return { ...identity(destination), error: TEXTS.serverDelivered(destination.type) };
        }
        if (verdict?.dropped) return { ...identity(destination), tracking_plan: verdict, data: [] };
        const rules = compileRules(connections.get(destination.id)?.rules ?? []);
        const config = withCredentials(destination, configForTest(destination), credentials);
        named.push(...(config.secrets ?? []));
        const result = await this.runFor(workspaceId, destination, config, event, stages, options.force, credentials, rules);
        return verdict ? { ...result, tracking_plan: verdict } : result;
      }),
    );
    return redact(results, [...credentials.secrets, ...named]);
  }

  private async runFor(
    workspaceId: string,
    destination: Destination,
    config: TestConfig,
    message: Message,
    stages: Stages,
    force: boolean,
    credentials: InvocationCredentials,
    rules: CompiledRules,
  ): Promise<DestinationTestResult> {
    if (!destination.enabled && !force) {
      return { destinationId: destination.id, destinationName: destination.name, error: TEXTS.destinationDisabled(destination.id) };
    }
    // As in live delivery, the message's own routing fields are dropped (only a transformation may set them),
    // then the connection's rules come first: the entry names the rule that stopped or failed it.
    let event = withoutRoutingFields(message);
    let shown: Pick<TestDataEntry, 'rules_payload'> = {};
    if (rules.steps.length > 0) {
      const ruled = applyRules(rules, event, credentials.values);
      if ('stopped' in ruled)
        return { ...identity(destination), data: [{ rules_payload: { filtered: true, rule: ruled.stopped, message: TEXTS.ruleStopped(ruled.stopped) } }] };
      if ('error' in ruled) return { ...identity(destination), data: [rulesFailed(ruled, stages)] };
      event = ruled.event;
      shown = { rules_payload: event };
    }
    const userStage = stages.user_transform ? await this.userTransform(workspaceId, destination, event, credentials) : [{ event } as UserStageOutcome];
    const scope = { workspaceId, destinationId: destination.id, credentials: credentials.values };
    const data = await Promise.all(userStage.map(async (outcome) => ({ ...shown, ...(await destinationStages(destination, config, outcome, stages, scope)) })));
    return { ...identity(destination), data };
  }

  /** The rules of the connection from a source to a destination (404 when they are not connected). */
  private async rulesOf(workspaceId: string, sourceId: string, destinationId: string): Promise<CompiledRules> {
    const connection = (await this.catalog.listConnections(workspaceId)).find((c) => c.sourceId === sourceId && c.destinationId === destinationId);
    if (!connection) throw new NotFoundError(`connection from source ${sourceId} to destination ${destinationId} not found`);
    return compileRules(connection.rules);
  }

  /** The destination's published transformation on the message: one outcome per output event. */
  private async userTransform(
    workspaceId: string,
    destination: Destination,
    message: Message,
    credentials: InvocationCredentials,
  ): Promise<UserStageOutcome[]> {
    const published = await publishedTransformation(this.code, workspaceId, destination.transformationId);
    if (!published) return [{ event: message, shown: { error: TEXTS.transformationNotFound } }];
    const result = await runPublishedFor(published, workspaceId, destination, [message], credentials.values);
    if (!result.ok) return [{ failed: result.error }];
    if (result.entries.length === 0) return [{ filtered: true }];
    return result.entries.map((entry) => ('error' in entry ? { failed: entry.error } : { event: entry.event, shown: entry.event }));
  }
}

/** What the source's tracking plan said of a test message: its violations, and whether it would be dropped. */
function planVerdict(source: Source, planned: { kept: Record<string, unknown>[]; dropped: Record<string, unknown>[] }) {
  const event = planned.kept[0] ?? planned.dropped[0];
  const context = (event?.context ?? {}) as { violationErrors?: Violation[] };
  const link = source.trackingPlan!;
  return { planId: link.planId, version: link.version, mode: link.mode, violationErrors: context.violationErrors ?? [], dropped: planned.dropped.length > 0 };
}

/** A rule failed the message (a missing salt): the later stages are aborted, as after a failed transformation. */
function rulesFailed(ruled: { error: string; rule: string }, stages: Stages): TestDataEntry {
  return {
    rules_payload: { error: ruled.error, rule: ruled.rule },
    ...(stages.user_transform && { user_transformed_payload: { error: TEXTS.rulesAborted } }),
    ...(stages.dest_transform && { dest_transformed_payload: { error: TEXTS.rulesAborted } }),
    ...(stages.send_to_destination && { destination_response: { error: TEXTS.rulesAborted } }),
  };
}

/** What the user-transformation stage made of the message (or one of its outputs). */
type UserStageOutcome = { event: Message; shown?: unknown } | { failed: string } | { filtered: true };

/** The configuration a test runs with, or the text of why it cannot build a request. */
type TestConfig = { ok: true; config: Record<string, unknown> } | { ok: false; error: string };

/**
 * destinationConfig over the stored configuration, for this call only. A key the type does not have is the
 * request's fault (400 naming it); a value that cannot build a request (a webhookUrl missing, empty or not a
 * URL) is what the destination-transform stage reports, as the reference does, with the vendor's text.
 */
function configForTest(destination: Destination, overrides?: Record<string, unknown>): TestConfig {
  const type = destinationType(destination.type);
  const merged = { ...destination.config, ...overrides };
  if (!type) return { ok: true, config: validateDestinationConfig(destination.type, merged, 'destinationConfig') };
  const checked = checkDestinationConfig(type, merged);
  if (checked.ok) return checked;
  if (checked.unknownKeys) validateDestinationConfig(destination.type, merged, 'destinationConfig');
  return { ok: false, error: invalidConfigText(type, checked) };
}

/**
 * The configuration with the values of the credentials it names (the stored ones, under this call's own), and
 * those values, which the result never shows. A credential that `destinationConfig` names and the workspace does
 * not have is the request's fault (400 naming the field); one the stored configuration names, what the
 * destination-transform stage reports.
 */
function withCredentials(
  destination: Destination,
  config: TestConfig,
  credentials: InvocationCredentials,
  overrides?: Record<string, unknown>,
): TestConfig & { secrets?: string[] } {
  const type = destinationType(destination.type);
  if (!config.ok || !type) return config;
  const resolved = resolveCredentialRefs(type, config.config, credentials.values);
  if (resolved.ok) return { ok: true, config: resolved.config, secrets: Object.values(resolved.values) };
  if (overrides && Object.hasOwn(overrides, resolved.field)) throw refusal(`destinationConfig.${resolved.field}: ${resolved.message}`);
  return { ok: false, error: `config.${resolved.field}: ${resolved.message}` };
}

/** The destination-transform and send stages for one event the user stage let through. */
async function destinationStages(
  destination: Destination,
  config: TestConfig,
  outcome: UserStageOutcome,
  stages: Stages,
  scope: StoreTestScope,
): Promise<TestDataEntry> {
  if ('filtered' in outcome) return { user_transformed_payload: { filtered: true, message: TEXTS.filtered } };
  if ('failed' in outcome) {
    return {
      user_transformed_payload: { error: outcome.failed },
      ...(stages.dest_transform && { dest_transformed_payload: { error: TEXTS.userStageAborted } }),
      ...(stages.send_to_destination && { destination_response: { error: TEXTS.destStageAborted } }),
    };
  }
  const entry: TestDataEntry = stages.user_transform ? { user_transformed_payload: outcome.shown } : {};
  if (!stages.dest_transform) return entry;
  // The destination transform could not build what to send: the send stage is aborted.
  const unbuilt = (error: string): TestDataEntry => ({
    ...entry,
    dest_transformed_payload: { error },
    ...(stages.send_to_destination && { destination_response: { error: TEXTS.destStageAborted } }),
  });
  const type = destinationType(destination.type);
  if (type?.preview && config.ok) {
    const store = await storeStages(type, config.config, outcome.event, stages.send_to_destination, scope);
    if (!store.built.ok) return unbuilt(store.built.error);
    return { ...entry, dest_transformed_payload: store.built.payload, ...store.sent };
  }
  const built = !config.ok
    ? config
    : type
      ? buildRequests(type, outcome.event, config.config)
      : { ok: false as const, error: `unknown destination type ${destination.type}` };
  if (!built.ok) return unbuilt(built.error);
  entry.dest_transformed_payload = built.requests as unknown as Record<string, unknown>[];
  if (!stages.send_to_destination) return entry;
  const results = await Promise.all(built.requests.map((request) => sendRequest(request)));
  entry.destination_response = results.map((r) => (r.error ? { error: r.error } : r.response));
  entry.destination_response_status = results.map((r) => r.status);
  return entry;
}

const identity = (destination: Destination) => ({
  destinationId: destination.id,
  destination: destination.type,
  destinationName: destination.name,
});

/**
 * Stage omitted: every stage runs (the documented sample omits it). Given: only the stages set true; as in
 * the reference, send_to_destination runs only with dest_transform (what is sent is what that stage builds).
 */
function resolveStages(stage: z.output<typeof Stage> | undefined): Stages {
  return stage
    ? {
        user_transform: stage.user_transform === true,
        dest_transform: stage.dest_transform === true,
        send_to_destination: stage.send_to_destination === true,
      }
    : { user_transform: true, dest_transform: true, send_to_destination: true };
}

function checkMessage(message: Message): void {
  if (Buffer.byteLength(JSON.stringify(message)) > MAX_TEST_MESSAGE_BYTES) {
    throw new PayloadTooLargeError(`message: larger than ${MAX_TEST_MESSAGE_BYTES} bytes`);
  }
  if (typeof message.type !== 'string') throw refusal(TEXTS.typeMissing);
  if (!SUPPORTED_TYPES.has(message.type)) throw refusal(TEXTS.typeUnsupported);
  // The pipeline's own bound: ingestion refuses an event whose ids cannot be stored, so a test does too.
  checkIdentifiers(message, 'message');
}
