import { z } from 'zod';

/**
 * The destination-definition registry: every destination type Weir knows, with the zod schema of its
 * configuration. Catalog validation, GET /destination-definitions and (later) the test interface read it.
 */
const HttpMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export const WebhookConfig = z.strictObject({
  webhookUrl: z.url({ protocol: /^https?$/, error: 'webhookUrl must be an http(s) URL' }),
  webhookMethod: HttpMethod.optional(),
  headers: z.array(z.strictObject({ from: z.string(), to: z.string() })).optional(),
});

export interface DestinationDefinition {
  name: string;
  displayName: string;
  config: z.ZodObject;
  supportsTest: boolean;
  supportsDeletion: boolean;
}

export const DESTINATION_DEFINITIONS: Record<string, DestinationDefinition> = {
  WEBHOOK: {
    name: 'WEBHOOK',
    displayName: 'Webhook',
    config: WebhookConfig,
    supportsTest: true,
    supportsDeletion: false,
  },
};

export const DestinationDefinitionView = z.object({
  name: z.string(),
  displayName: z.string(),
  defaultConfig: z.array(z.string()).describe('configuration variable names, usable in destinationConfig'),
  supportsTest: z.boolean(),
  supportsDeletion: z.boolean(),
});

export const listDestinationDefinitions = (): z.infer<typeof DestinationDefinitionView>[] =>
  Object.values(DESTINATION_DEFINITIONS).map((d) => ({
    name: d.name,
    displayName: d.displayName,
    defaultConfig: Object.keys(d.config.shape),
    supportsTest: d.supportsTest,
    supportsDeletion: d.supportsDeletion,
  }));
