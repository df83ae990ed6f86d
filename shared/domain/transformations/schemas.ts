import * as z from 'zod';

/**
 * Transformations and libraries (SPEC §2.1–2.4, §4.A). Request bodies accept exactly the fields that the
 * clients of this field send (the GitHub Action, rudder-cli, the documented curl examples) and refuse
 * anything else, so a typo such as `cdoe` is an error rather than a silent no-op.
 */
const Name = z.string().trim().min(1, 'must not be empty').max(200);
/** An id or version id the request names: Weir's are 26 characters (and each becomes part of a key). */
const RefId = z.string().min(1).max(64);
const Language = z
  .string()
  .default('javascript')
  .refine((l) => l === 'javascript', 'only javascript is supported');
const CodeVersion = z
  .union([z.literal('1'), z.literal(1)])
  .transform(() => '1' as const)
  .describe('always 1');
/** Caps keep one request's sandbox work and its transaction (DynamoDB: 100 items) bounded. */
export const MAX_SAMPLE_EVENTS = 1000;
const MAX_REVISIONS_PER_REQUEST = 40;
const MAX_DESTINATIONS = 40;
const Event = z.record(z.string(), z.unknown());
/** Events a test runs the code on. */
const Events = z.array(Event).max(MAX_SAMPLE_EVENTS);
const SampleEvents = Events.describe('sample events used to test the code');
/** `publish` as a body field; the query parameter of the same name is read as well. */
const Publish = z.boolean().optional();
const ExternalId = z.string().max(200).optional();
const Description = z.string().max(10_000);
const Code = z.string().max(1_000_000);

export const TransformationCreate = z.strictObject({
  name: Name,
  description: Description.default(''),
  code: Code.default(''),
  codeVersion: CodeVersion.optional(),
  language: Language,
  publish: Publish,
  destinationIds: z.array(RefId).max(MAX_DESTINATIONS).optional().describe('allowed only with publish'),
  events: SampleEvents.optional(),
  externalId: ExternalId,
});

export const TransformationUpdate = z.strictObject({
  name: Name.optional(),
  description: Description.optional(),
  code: Code.optional(),
  codeVersion: CodeVersion.optional(),
  language: Language.optional(),
  publish: Publish,
  destinationIds: z.array(RefId).max(MAX_DESTINATIONS).optional().describe('with publish: the destinations to connect, replacing the current ones'),
  events: SampleEvents.optional(),
  externalId: ExternalId,
});

export const LibraryCreate = z.strictObject({
  name: Name,
  description: Description.default(''),
  code: Code.default(''),
  language: Language,
  importName: z.string().optional().describe('must equal the camelCase of the name when given'),
  publish: Publish,
  externalId: ExternalId,
});

export const LibraryUpdate = z.strictObject({
  name: Name.optional(),
  description: Description.optional(),
  code: Code.optional(),
  language: Language.optional(),
  importName: z.string().optional(),
  publish: Publish,
  externalId: ExternalId,
});

export const PublishQuery = z.object({
  publish: z.enum(['true', 'false'], { error: 'publish must be true or false' }).optional(),
});

export const VersionsQuery = z.object({
  count: z.coerce.number({ error: 'count must be a number' }).int('count must be an integer').min(1).max(1000).default(5),
  orderBy: z
    .string()
    .transform((o) => o.toUpperCase())
    .pipe(z.enum(['ASC', 'DESC'], { error: 'orderBy must be ASC or DESC' }))
    .default('ASC'),
});

export const VersionParams = z.object({ id: RefId, versionId: RefId });

// --- what the table holds: the repository parses every head and revision it reads with these ------------

export const UserCodeKind = z.enum(['transformation', 'library']);
export type UserCodeKind = z.infer<typeof UserCodeKind>;

/** What every revision holds first: which revision of what, and its texts. */
const RevisionTexts = { id: z.string(), versionId: z.string(), name: z.string(), description: z.string(), code: z.string() };
const Timestamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() };
/** What a head adds to its revision: its workspace and the revision published (null: none yet). */
const HeadPointers = { workspaceId: z.string(), publishedVersionId: z.string().nullable() };

/** An immutable revision of a transformation or library. */
export const UserCodeRevision = z.object({
  ...RevisionTexts,
  language: z.string(),
  ...Timestamps,
  /** A transformation's: always '1'. */
  codeVersion: z.literal('1').optional(),
  /** A transformation's: the import names its code uses. */
  imports: z.array(z.string()).optional(),
  /** A library's: the name transformations import it by. */
  importName: z.string().optional(),
});
export type UserCodeRevision = z.infer<typeof UserCodeRevision>;

/** A head: the working copy of a transformation or library, the revision it is at and the one published. */
export const UserCodeHead = UserCodeRevision.extend({
  ...HeadPointers,
  /** A transformation's: the import names of its published revision, for dependency checks. */
  publishedImports: z.array(z.string()).optional(),
  externalId: z.string().optional(),
});
export type UserCodeHead = z.infer<typeof UserCodeHead>;

/** One immutable revision of a transformation (SPEC §2.2). */
export const TransformationVersion = z.object({
  ...RevisionTexts,
  codeVersion: z.literal('1'),
  language: z.string(),
  imports: z.array(z.string()),
  ...Timestamps,
});
export type TransformationVersion = z.infer<typeof TransformationVersion>;

export const ConnectedDestination = z.object({ id: z.string(), name: z.string(), enabled: z.boolean() });

export const Transformation = TransformationVersion.extend({
  ...HeadPointers,
  externalId: z.string().optional(),
  destinations: z.array(ConnectedDestination).optional(),
});
export type Transformation = z.infer<typeof Transformation>;

export const LibraryVersion = z.object({ ...RevisionTexts, language: z.string(), importName: z.string(), ...Timestamps });
export type LibraryVersion = z.infer<typeof LibraryVersion>;

export const Library = LibraryVersion.extend({ ...HeadPointers, externalId: z.string().optional() });
export type Library = z.infer<typeof Library>;

export const LibraryVersionListed = LibraryVersion.extend({ isPublished: z.boolean() });

// --- publish and test -------------------------------------------------------------------------------------

/** `testInput`: a JSON array of events, or a string holding one (the docs say string, the Action sends an array). */
const TestInput = z.union([Events, z.string()]);

/** The revisions of one kind a test or publish request names. */
const revisions = <T extends z.ZodType>(revision: T) => z.array(revision).max(MAX_REVISIONS_PER_REQUEST).optional();
/** A test or publish request's check and its message: it names at least one revision. */
const NAMES_A_REVISION = [
  (b: { transformations?: unknown[]; libraries?: unknown[] }) => (b.transformations?.length ?? 0) + (b.libraries?.length ?? 0) > 0,
  'give at least one of transformations or libraries',
] as const;

export const PublishRequest = z
  .strictObject({
    transformations: revisions(z.strictObject({ versionId: RefId, testInput: TestInput.optional() })),
    libraries: revisions(z.strictObject({ versionId: RefId })),
    commitId: z.string().optional(),
  })
  .refine(...NAMES_A_REVISION);

const TestDefinition = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().optional(),
  input: Events,
  expectedOutput: z.array(z.unknown()).optional(),
});

export const SuiteRequest = z
  .strictObject({
    transformations: revisions(z.strictObject({ versionId: RefId, testSuite: z.array(TestDefinition).max(20).optional() })),
    libraries: revisions(z.strictObject({ versionId: RefId })),
  })
  .refine(...NAMES_A_REVISION);
export type SuiteRequest = z.infer<typeof SuiteRequest>;
export type PublishRequest = z.infer<typeof PublishRequest>;

// --- what the test and publish calls answer (the route manifest describes them; OpenAPI shows them) ---------

/** One error of a test run: of one input event (its messageId and position), or of the whole run. */
export const TestEventError = z.object({
  message: z.string(),
  messageId: z.union([z.string(), z.number()]).optional(),
  eventIndex: z.number().int().optional(),
  event: z.unknown().optional(),
});

/** `POST /transformations/libraries/test`: the shape the reference's GitHub Action reads. */
export const LibrariesTestAnswer = z.object({
  result: z.object({
    successTestResults: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        transformerVersionID: z.string(),
        result: z.object({ output: z.object({ transformedEvents: z.array(Event) }), logs: z.array(z.string()) }),
      }),
    ),
    failedTestResults: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        transformerVersionID: z.string().optional(),
        libraryVersionID: z.string().optional(),
        /** The error text the Action shows, one message per line. */
        result: z.string(),
        transformedEvents: z.array(Event).optional(),
        errors: z.array(TestEventError).optional(),
      }),
    ),
  }),
});

/** What rudder-cli reads of test suites: per revision, each test's status and outputs. */
export const ValidationOutput = z.object({
  transformations: z.array(
    z.object({
      id: z.string(),
      externalId: z.string().optional(),
      name: z.string(),
      versionId: z.string(),
      imports: z.array(z.string()),
      pass: z.boolean(),
      testResult: z.object({
        status: z.enum(['pass', 'fail', 'error']),
        results: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            description: z.string().optional(),
            status: z.enum(['pass', 'fail', 'error']),
            actualOutput: z.array(Event),
            transformedEvents: z.array(Event),
            errors: z.array(TestEventError).optional(),
          }),
        ),
      }),
      message: z.string().optional(),
    }),
  ),
  libraries: z.array(
    z.object({
      id: z.string(),
      externalId: z.string().optional(),
      name: z.string(),
      handleName: z.string(),
      versionId: z.string(),
      pass: z.boolean(),
      message: z.string().optional(),
    }),
  ),
});
