import * as z from 'zod';
import type { Source } from '../catalog/schemas';
import { writeKeyOf, type WriteKeys } from './write-keys';

/**
 * What the field's client SDKs read before they send: the RudderStack SDKs their source's configuration
 * (`configUrl`/sourceConfig, as RudderStack's control plane answers it), Analytics.js its settings (`cdnURL`/
 * v1/projects/{writeKey}/settings). Both point the client at Weir alone. Device-mode destinations (a vendor's
 * own script loaded in the page) are not offered: `destinations` is always empty, every event goes through
 * the data plane.
 */
export const SourceConfigQuery = z.looseObject({ writeKey: z.string().max(1000).optional() });
export const WriteKeyParams = z.object({ writeKey: z.string().min(1).max(1000) });

export const SourceConfig = z.object({
  isHosted: z.boolean(),
  source: z.object({
    id: z.string(),
    name: z.string(),
    writeKey: z.string(),
    workspaceId: z.string(),
    enabled: z.boolean(),
    deleted: z.boolean(),
    config: z.record(z.string(), z.unknown()),
    sourceDefinition: z.object({ name: z.string(), displayName: z.string(), category: z.string().nullable() }),
    destinations: z.array(z.unknown()).describe('device-mode destinations: none, every event goes through the data plane'),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  updatedAt: z.string(),
  consentManagementMetadata: z.object({ providers: z.array(z.unknown()) }),
});

export const SegmentSettings = z
  .object({
    integrations: z.object({
      'Segment.io': z.looseObject({ apiKey: z.string(), apiHost: z.string(), protocol: z.enum(['http', 'https']) }),
    }),
    metrics: z.object({ sampleRate: z.number() }),
    remotePlugins: z.array(z.unknown()),
  })
  .loose();

/** Where the page reached the data plane: what Analytics.js is told to send its events to. */
export interface DataPlaneHost {
  /** `host[:port][/stage]`, without a trailing slash. */
  host: string;
  protocol: 'http' | 'https';
}

export class SdkConfigService {
  constructor(private readonly writeKeys: WriteKeys) {}

  /** A disabled source answers `enabled: false` (the SDKs then send nothing); an unknown key 401. */
  async sourceConfig(authorization: string | undefined, queryWriteKey: unknown): Promise<z.input<typeof SourceConfig>> {
    const { workspaceId, source } = await this.writeKeys.sourceOf(writeKeyOf(authorization, queryWriteKey));
    return {
      isHosted: true,
      source: {
        id: source.id,
        name: source.name,
        writeKey: source.writeKey,
        workspaceId,
        enabled: source.enabled,
        deleted: false,
        config: { statsCollection: { errors: { enabled: false }, metrics: { enabled: false } } },
        sourceDefinition: definitionOf(source),
        destinations: [],
        createdAt: source.createdAt,
        updatedAt: source.updatedAt,
      },
      updatedAt: source.updatedAt,
      consentManagementMetadata: { providers: [] },
    };
  }

  /** Analytics.js's settings: its Segment.io integration sends to this data plane's `/v1`. */
  async segmentSettings(writeKey: string, at: DataPlaneHost): Promise<z.input<typeof SegmentSettings>> {
    const { source } = await this.writeKeys.sourceOf(writeKey);
    return {
      integrations: { 'Segment.io': { apiKey: source.writeKey, apiHost: `${at.host}/v1`, protocol: at.protocol } },
      // One integration only: any other makes Analytics.js load a classic destination's script from Segment's CDN.
      // It reports its own metrics to Segment's host unless told not to.
      metrics: { sampleRate: 0 },
      remotePlugins: [],
    };
  }
}

const definitionOf = (source: Source) => ({ name: source.type, displayName: source.type, category: null });
