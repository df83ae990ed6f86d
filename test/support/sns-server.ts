import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startDestinationServer, type DestinationServer, type ReceivedRequest } from './destination-server';

/**
 * Amazon SNS played on a local HTTP server, from its API reference: the Query API (`POST /`, a form-encoded
 * `Action=…&Version=2010-03-31` body, SigV4-signed for the `sns` service), answering XML
 * `<ActionResponse><ActionResult>…</ActionResult><ResponseMetadata>…` or `<ErrorResponse><Error>` with
 * `Type`, `Code` and `Message`. CreateTopic (idempotent by name), Subscribe (email subscriptions are `pending
 * confirmation` until `confirm`; the same endpoint again with other attributes is refused, as SNS does) and
 * Publish, which hands the message to the subscriptions whose filter policy (`{"attr": ["value", …]}` on
 * message attributes, the one form played here) its String attributes match.
 * https://docs.aws.amazon.com/sns/latest/api/API_CreateTopic.html, API_Subscribe.html, API_Publish.html,
 * https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html
 */
export interface SnsSubscription {
  topicArn: string;
  protocol: string;
  endpoint: string;
  attributes: Record<string, string>;
  arn: string;
  /** The endpoint followed the confirmation link. */
  confirmed: boolean;
}

export interface SnsPublish {
  topicArn: string;
  subject?: string;
  message: string;
  attributes: Record<string, { dataType: string; value: string }>;
  messageId: string;
}

/** A message as a subscription's endpoint receives it (the mail SNS would send). */
export interface SnsDelivery {
  endpoint: string;
  topicArn: string;
  subject?: string;
  message: string;
}

export interface SnsServer {
  url: string;
  server: DestinationServer;
  /** Topic ARNs by name. */
  topics: Map<string, string>;
  subscriptions: SnsSubscription[];
  publishes: SnsPublish[];
  deliveries: SnsDelivery[];
  /** The confirmation mails sent, by endpoint: SNS sends one for every Subscribe of an e-mail endpoint not yet confirmed. */
  confirmationMails: string[];
  /** The endpoint follows the confirmation links it was sent: its subscriptions made so far are confirmed. */
  confirm(endpoint: string): void;
  /** Answers every call with this error instead (undefined: answer again). */
  failCalls(error: { status: number; code: string; message: string } | undefined): void;
  /** Leaves every call unanswered (until turned off or closed): an SNS that does not answer in time. */
  hangCalls(hang: boolean): void;
  close(): Promise<void>;
}

const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';
const ACCOUNT = '123456789012';
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function answer(res: ServerResponse, action: string, result: Record<string, string>): void {
  const fields = Object.entries(result)
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join('');
  res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  res.end(
    `<${action}Response xmlns="${XMLNS}"><${action}Result>${fields}</${action}Result>` +
      `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
  );
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  res.end(
    `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${code}</Code>` +
      `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );
}

/** `Prefix.entry.N.<key>` / `Prefix.entry.N.<value…>` pairs of a Query map, by N. */
function entries(form: URLSearchParams, prefix: string): Map<string, Record<string, string>> {
  const found = new Map<string, Record<string, string>>();
  for (const [name, value] of form) {
    const match = new RegExp(`^${prefix}\\.entry\\.(\\d+)\\.(.+)$`).exec(name);
    if (!match) continue;
    found.set(match[1]!, { ...found.get(match[1]!), [match[2]!]: value });
  }
  return found;
}

/** Whether a message's attributes pass a subscription's filter policy (no policy: every message). */
function passes(policyText: string | undefined, attributes: SnsPublish['attributes']): boolean {
  if (!policyText) return true;
  const policy = JSON.parse(policyText) as Record<string, string[]>;
  return Object.entries(policy).every(([name, values]) => attributes[name] !== undefined && values.includes(attributes[name].value));
}

export async function startSnsServer(expected: { region: () => string }): Promise<SnsServer> {
  const server = await startDestinationServer();
  const topics = new Map<string, string>();
  const subscriptions: SnsSubscription[] = [];
  const publishes: SnsPublish[] = [];
  const deliveries: SnsDelivery[] = [];
  const confirmationMails: string[] = [];
  let callFailure: { status: number; code: string; message: string } | undefined;
  let hanging = false;

  const createTopic = (form: URLSearchParams, res: ServerResponse) => {
    const name = form.get('Name') ?? '';
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(name)) return error(res, 400, 'InvalidParameter', 'Invalid parameter: Topic Name');
    if (!topics.has(name)) topics.set(name, `arn:aws:sns:${expected.region()}:${ACCOUNT}:${name}`);
    answer(res, 'CreateTopic', { TopicArn: topics.get(name)! });
  };

  const subscribe = (form: URLSearchParams, res: ServerResponse) => {
    const topicArn = form.get('TopicArn') ?? '';
    if (![...topics.values()].includes(topicArn)) return error(res, 404, 'NotFound', 'Topic does not exist');
    const [protocol, endpoint] = [form.get('Protocol') ?? '', form.get('Endpoint') ?? ''];
    if (protocol === 'email' && !/^[^@\s]+@[^@\s]+$/.test(endpoint)) return error(res, 400, 'InvalidParameter', 'Invalid parameter: Email address');
    const attributes = Object.fromEntries([...entries(form, 'Attributes').values()].map((e) => [e.key ?? '', e.value ?? '']));
    const existing = subscriptions.find((s) => s.topicArn === topicArn && s.protocol === protocol && s.endpoint === endpoint);
    if (existing && JSON.stringify(existing.attributes) !== JSON.stringify(attributes)) {
      return error(res, 400, 'InvalidParameter', 'Invalid parameter: Attributes Reason: Subscription already exists with different attributes');
    }
    const subscription = existing ?? { topicArn, protocol, endpoint, attributes, arn: `${topicArn}:${randomUUID()}`, confirmed: false };
    if (!existing) subscriptions.push(subscription);
    if (protocol === 'email' && !subscription.confirmed) confirmationMails.push(endpoint);
    answer(res, 'Subscribe', { SubscriptionArn: subscription.confirmed ? subscription.arn : 'pending confirmation' });
  };

  const publish = (form: URLSearchParams, res: ServerResponse) => {
    const topicArn = form.get('TopicArn') ?? '';
    if (![...topics.values()].includes(topicArn)) return error(res, 404, 'NotFound', 'Topic does not exist');
    const message = form.get('Message');
    if (!message) return error(res, 400, 'InvalidParameter', 'Invalid parameter: Empty message');
    const subject = form.get('Subject') ?? undefined;
    if (subject !== undefined && (subject.length >= 100 || !/^[\x20-\x7e]+$/.test(subject))) {
      return error(res, 400, 'InvalidParameter', 'Invalid parameter: Subject');
    }
    const attributes = Object.fromEntries(
      [...entries(form, 'MessageAttributes').values()].map((e) => [e.Name ?? '', { dataType: e['Value.DataType'] ?? '', value: e['Value.StringValue'] ?? '' }]),
    );
    const messageId = randomUUID();
    publishes.push({ topicArn, ...(subject !== undefined && { subject }), message, attributes, messageId });
    for (const s of subscriptions) {
      if (s.topicArn === topicArn && s.confirmed && passes(s.attributes.FilterPolicy, attributes)) {
        deliveries.push({ endpoint: s.endpoint, topicArn, ...(subject !== undefined && { subject }), message });
      }
    }
    answer(res, 'Publish', { MessageId: messageId });
  };

  const actions: Record<string, (form: URLSearchParams, res: ServerResponse) => void> = {
    CreateTopic: createTopic,
    Subscribe: subscribe,
    Publish: publish,
  };
  server.on('/', (req: ReceivedRequest, res) => {
    const scope = new RegExp(`^AWS4-HMAC-SHA256 Credential=[^/]+/\\d{8}/${expected.region()}/sns/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$`);
    if (!scope.test(String(req.headers.authorization)))
      return error(res, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    if (req.method !== 'POST' || !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return error(res, 400, 'MalformedQueryString', 'expected a form-encoded POST');
    }
    const form = new URLSearchParams(req.body);
    const action = actions[form.get('Action') ?? ''];
    if (!action || form.get('Version') !== '2010-03-31') return error(res, 400, 'InvalidAction', `Could not find operation ${form.get('Action')}`);
    if (hanging) return;
    if (callFailure) return error(res, callFailure.status, callFailure.code, callFailure.message);
    action(form, res);
  });
  return {
    url: server.url,
    server,
    topics,
    subscriptions,
    publishes,
    deliveries,
    confirmationMails,
    confirm: (endpoint) => subscriptions.filter((s) => s.endpoint === endpoint).forEach((s) => (s.confirmed = true)),
    failCalls: (failure) => void (callFailure = failure),
    hangCalls: (hang) => void (hanging = hang),
    close: () => server.close(),
  };
}
