/* eslint-disable @typescript-eslint/no-require-imports -- a `require` with a literal path, which the bundle leaves as it is */
import type * as amplitudeModule from './destinations/amplitude';
import type * as bigQueryStreamModule from './destinations/bigquery';
import type * as brazeModule from './destinations/braze';
import type * as customerioModule from './destinations/customerio';
import type * as facebookConversionsModule from './destinations/facebook-conversions';
import type * as firehoseModule from './destinations/firehose';
import type * as ga4Module from './destinations/ga4';
import type * as googleSheetsModule from './destinations/google-sheets';
import type * as heapModule from './destinations/heap';
import type * as hubspotModule from './destinations/hubspot';
import type * as intercomModule from './destinations/intercom';
import type * as iterableModule from './destinations/iterable';
import type * as kafkaModule from './destinations/kafka';
import type * as klaviyoModule from './destinations/klaviyo';
import type * as mixpanelModule from './destinations/mixpanel';
import type * as pinterestConversionsModule from './destinations/pinterest-conversions';
import type * as postgresModule from './destinations/postgres';
import type * as posthogModule from './destinations/posthog';
import type * as redisModule from './destinations/redis';
import type * as s3Module from './destinations/s3';
import type * as segmentModule from './destinations/segment';
import type * as slackModule from './destinations/slack';
import type * as snapchatConversionsModule from './destinations/snapchat-conversions';
import type * as tiktokAdsModule from './destinations/tiktok-ads';
import type * as webhookModule from './destinations/webhook';
import type { DestinationCode } from './destinations/types';

/**
 * Where each destination type's code is (shared/destinations/<folder>/index.ts), and how it is loaded: on its first
 * use in a process, by shared/destinations/registry.ts. A function's bundle leaves these `require`s as they are
 * (infra/bundles.ts marks `./destinations/<folder>` external) and ships each type's code bundled on its own as
 * `destinations/<folder>/index.js` beside the handler, where they find it; run from the sources (tests,
 * `npm start`), the same paths name the folders themselves. So a function carries the 25 types' definitions and
 * loads the code of only the types it sends to. This file sits in shared/ so that one relative path holds in both.
 */
export interface DestinationCodeModule {
  /** The type's name, as its definition states it. */
  name: string;
  /** Its folder under shared/destinations, and under destinations/ beside a handler's bundle. */
  folder: string;
  load(): DestinationCode;
}

export const DESTINATION_CODE: readonly DestinationCodeModule[] = [
  { name: 'WEBHOOK', folder: 'webhook', load: () => (require('./destinations/webhook') as typeof webhookModule).webhook },
  { name: 'AM', folder: 'amplitude', load: () => (require('./destinations/amplitude') as typeof amplitudeModule).amplitude },
  { name: 'MP', folder: 'mixpanel', load: () => (require('./destinations/mixpanel') as typeof mixpanelModule).mixpanel },
  { name: 'POSTHOG', folder: 'posthog', load: () => (require('./destinations/posthog') as typeof posthogModule).posthog },
  { name: 'BRAZE', folder: 'braze', load: () => (require('./destinations/braze') as typeof brazeModule).braze },
  { name: 'CUSTOMERIO', folder: 'customerio', load: () => (require('./destinations/customerio') as typeof customerioModule).customerio },
  { name: 'GA4', folder: 'ga4', load: () => (require('./destinations/ga4') as typeof ga4Module).ga4 },
  { name: 'SLACK', folder: 'slack', load: () => (require('./destinations/slack') as typeof slackModule).slack },
  {
    name: 'FACEBOOK_CONVERSIONS',
    folder: 'facebook-conversions',
    load: () => (require('./destinations/facebook-conversions') as typeof facebookConversionsModule).facebookConversions,
  },
  { name: 'TIKTOK_ADS', folder: 'tiktok-ads', load: () => (require('./destinations/tiktok-ads') as typeof tiktokAdsModule).tiktokAds },
  {
    name: 'PINTEREST_CONVERSIONS',
    folder: 'pinterest-conversions',
    load: () => (require('./destinations/pinterest-conversions') as typeof pinterestConversionsModule).pinterestConversions,
  },
  {
    name: 'SNAPCHAT_CONVERSIONS',
    folder: 'snapchat-conversions',
    load: () => (require('./destinations/snapchat-conversions') as typeof snapchatConversionsModule).snapchatConversions,
  },
  { name: 'HS', folder: 'hubspot', load: () => (require('./destinations/hubspot') as typeof hubspotModule).hubspot },
  { name: 'INTERCOM', folder: 'intercom', load: () => (require('./destinations/intercom') as typeof intercomModule).intercom },
  { name: 'KLAVIYO', folder: 'klaviyo', load: () => (require('./destinations/klaviyo') as typeof klaviyoModule).klaviyo },
  { name: 'REDIS', folder: 'redis', load: () => (require('./destinations/redis') as typeof redisModule).redis },
  { name: 'S3', folder: 's3', load: () => (require('./destinations/s3') as typeof s3Module).s3 },
  { name: 'POSTGRES', folder: 'postgres', load: () => (require('./destinations/postgres') as typeof postgresModule).postgres },
  { name: 'KAFKA', folder: 'kafka', load: () => (require('./destinations/kafka') as typeof kafkaModule).kafka },
  {
    name: 'GOOGLESHEETS',
    folder: 'google-sheets',
    load: () => (require('./destinations/google-sheets') as typeof googleSheetsModule).googleSheets,
  },
  { name: 'BQSTREAM', folder: 'bigquery', load: () => (require('./destinations/bigquery') as typeof bigQueryStreamModule).bigQueryStream },
  { name: 'FIREHOSE', folder: 'firehose', load: () => (require('./destinations/firehose') as typeof firehoseModule).firehose },
  { name: 'ITERABLE', folder: 'iterable', load: () => (require('./destinations/iterable') as typeof iterableModule).iterable },
  { name: 'SEGMENT', folder: 'segment', load: () => (require('./destinations/segment') as typeof segmentModule).segment },
  { name: 'HEAP', folder: 'heap', load: () => (require('./destinations/heap') as typeof heapModule).heap },
];
