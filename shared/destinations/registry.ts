import { amplitude } from './amplitude';
import { bigQueryStream } from './bigquery';
import { braze } from './braze';
import { customerio } from './customerio';
import { firehose } from './firehose';
import { facebookConversions } from './facebook-conversions';
import { ga4 } from './ga4';
import { heap } from './heap';
import { hubspot } from './hubspot';
import { intercom } from './intercom';
import { iterable } from './iterable';
import { klaviyo } from './klaviyo';
import { googleSheets } from './google-sheets';
import { kafka } from './kafka';
import { mixpanel } from './mixpanel';
import { pinterestConversions } from './pinterest-conversions';
import { postgres } from './postgres';
import { posthog } from './posthog';
import { redis } from './redis';
import { segment } from './segment';
import { slack } from './slack';
import { s3 } from './s3';
import { snapchatConversions } from './snapchat-conversions';
import { tiktokAds } from './tiktok-ads';
import type { DestinationType } from './types';
import { webhook } from './webhook';

/**
 * The destination-type registry: every type Weir knows, with its code. The test interface, delivery and
 * deletion find their code in it. Validating or listing configurations needs only the types' definitions
 * (definitions.ts, the same types in the same order), which carry none of this code.
 */
const TYPES: DestinationType[] = [
  webhook,
  amplitude,
  mixpanel,
  posthog,
  braze,
  customerio,
  ga4,
  slack,
  facebookConversions,
  tiktokAds,
  pinterestConversions,
  snapchatConversions,
  hubspot,
  intercom,
  klaviyo,
  redis,
  s3,
  postgres,
  kafka,
  googleSheets,
  bigQueryStream,
  firehose,
  iterable,
  segment,
  heap,
];

export const DESTINATION_TYPES: ReadonlyMap<string, DestinationType> = new Map(TYPES.map((t) => [t.name, t]));

export const destinationType = (name: string): DestinationType | undefined => DESTINATION_TYPES.get(name);

/** What the code supports; each definition states the same (held by a unit test). */
export const supportsTest = (type: DestinationType) =>
  type.delivery === 'http' ? type.transform !== undefined : type.preview !== undefined && type.serverBatch !== undefined;
export const supportsDeletion = (type: DestinationType) => type.deleteUsers !== undefined;

/** The text a configuration that cannot build a request shows in a destination-transform result. */
export function invalidConfigText(type: DestinationType, problem: { field: string; message: string }): string {
  return type.invalidConfigText?.(problem.field) ?? `Invalid ${type.displayName} config: ${problem.field}: ${problem.message}`;
}
