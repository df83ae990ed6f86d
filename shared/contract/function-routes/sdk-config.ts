import { SegmentSettings, SourceConfig, SourceConfigQuery, WriteKeyParams } from '../../domain/ingestion/sdk-config';
import { route } from './define';

/** Data plane: what the SDKs load at start, the write key checked by the handler. */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const SDK_CONFIG_ROUTES = [
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
] as const;
