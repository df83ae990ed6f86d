import * as z from 'zod';
import { CredentialOverrides } from '../credentials/schemas';

/** The test interface (SPEC §2.7, §4.C): request bodies and results. */
const Flag = z.boolean({ error: 'must be true or false' }).optional();

export const Stage = z
  .strictObject({ user_transform: Flag, dest_transform: Flag, send_to_destination: Flag })
  .describe('omitted: every stage runs; given: a stage left out does not run');

const Message = z
  .record(z.string(), z.unknown(), { error: 'message must be an event object' })
  .describe('an event of type identify, track, page, screen, group or alias');

export const TestDestinationBody = z.strictObject({
  stage: Stage.optional(),
  message: Message,
  destinationConfig: z
    .record(z.string(), z.unknown(), { error: 'destinationConfig must be an object' })
    .optional()
    .describe('merged over the stored configuration for this call only'),
  sourceId: z.string().min(1).max(64).optional().describe('run the rules of the connection from this source first'),
  credentials: z.optional(CredentialOverrides),
});

export const TestSourceBody = z.strictObject({
  stage: Stage.optional(),
  message: Message,
  destinationConfig: z.never({ error: 'is accepted only by /v0/testDestination/{destination_id}' }).optional(),
  credentials: z.optional(CredentialOverrides),
});

export const ForceQuery = z.object({
  force: z.enum(['true', 'false'], { error: 'force must be true or false' }).optional(),
});

const ErrorText = z.object({ error: z.string() });

export const TestDataEntry = z.object({
  rules_payload: z
    .unknown()
    .optional()
    .describe('with connection rules: the event as they left it, or {filtered, rule, message} / {error, rule} naming the rule that acted'),
  user_transformed_payload: z.unknown().optional(),
  dest_transformed_payload: z.union([z.array(z.record(z.string(), z.unknown())), ErrorText]).optional(),
  destination_response: z.union([z.array(z.unknown()), ErrorText]).optional(),
  destination_response_status: z.array(z.number().int()).optional(),
});
export type TestDataEntry = z.infer<typeof TestDataEntry>;

export const DestinationTestResult = z.union([
  z.object({
    destinationId: z.string(),
    destination: z.string(),
    destinationName: z.string(),
    data: z.array(TestDataEntry),
    tracking_plan: z
      .object({
        planId: z.string(),
        version: z.number().int(),
        mode: z.string(),
        violationErrors: z.array(z.object({ type: z.string(), message: z.string(), meta: z.record(z.string(), z.unknown()) })),
        dropped: z.boolean().describe('drop-event mode (or an unplanned event dropped): no destination gets it, no stage runs'),
      })
      .optional()
      .describe("testSource: the source's tracking plan's verdict on the message"),
  }),
  z.object({
    destinationId: z.string(),
    destinationName: z.string(),
    destination: z.string().optional(),
    error: z.string().describe('the destination is disabled, or its type cannot be tested'),
  }),
]);
export type DestinationTestResult = z.infer<typeof DestinationTestResult>;

export const SourceTestResult = z.union([z.array(DestinationTestResult), z.object({ message: z.string().describe('the source is disabled') })]);
