import * as z from 'zod';

/**
 * Event models and versions as stored (area D): the domain owns their shapes, and the repository parses the
 * items it reads with them (once per item, never per event). Per model and per version there is a summary
 * (what listings show, written when it is created and when its schema grows), a sketch head (revision,
 * counts and the sketch's journal, written by every capture) and, once the journal has been folded, a
 * sketch base (a snapshot, written now and then). sketch-layout.ts says how head and base make a sketch.
 */
export const ModelRef = z.object({
  workspaceId: z.string(),
  sourceId: z.string(),
  eventType: z.string(),
  eventIdentifier: z.string(),
});
export type ModelRef = z.infer<typeof ModelRef>;

const isSchema = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((type) => typeof type === 'string');

/**
 * A schema, stored as JSON text: its keys come from events, and a key such as `__proto__` or "" cannot be a
 * key of a DynamoDB map written through the document client. Checked as parsed (z.record would rebuild the
 * object and drop a `__proto__` key).
 */
export const StoredSchema = z
  .string()
  .transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'schema is not JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.custom<Record<string, string>>(isSchema, 'schema must map keys to type names'));

/** Counts as a summary shows them: written with the summary at its creation, then kept by the sketch head. */
const Counts = { lastSeen: z.string(), total: z.number().int().nonnegative() };

export const ModelSummary = ModelRef.extend({
  id: z.number().int(),
  eventId: z.string(),
  writeKey: z.string(),
  createdAt: z.string(),
  schema: StoredSchema,
  ...Counts,
  /** The sketch revision the schema was written from (a late write never takes it back). */
  rev: z.number().int().nonnegative(),
});
export type ModelSummary = z.output<typeof ModelSummary>;

export const VersionRef = z.object({ workspaceId: z.string(), sourceId: z.string(), eventId: z.string(), hash: z.string() });
export type VersionRef = z.infer<typeof VersionRef>;

export const VersionSummary = VersionRef.extend({
  id: z.number().int(),
  versionId: z.string(),
  schema: StoredSchema,
  firstSeen: z.string(),
  ...Counts,
  rev: z.number().int().nonnegative(),
});
export type VersionSummary = z.output<typeof VersionSummary>;

const Bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be binary');

/**
 * A sketch head. `body` is sketch-layout.ts's encoding (checked when decoded), naming a base in the sketch's
 * own partition (keys.schemaBaseApart). Its counts are what listings show.
 */
export const SketchHead = z.object({
  rev: z.number().int().nonnegative(),
  /** Names this model or version's life (from its first write): a base left by an earlier one is not its own. */
  token: z.number().int().optional(),
  total: z.number().int().nonnegative().optional(),
  firstSeen: z.string().optional(),
  lastSeen: z.string().optional(),
  body: Bytes.optional(),
});
export type SketchHead = z.infer<typeof SketchHead>;

/**
 * A sketch base (one of two slots): the snapshot of the sketch at revision `rev` of the life `token`, `tag`
 * naming this write of it.
 */
export const SketchBase = z.object({ rev: z.number().int().nonnegative(), token: z.number().int(), tag: z.number().int(), data: Bytes });
export type SketchBase = z.infer<typeof SketchBase>;

/** Where a sketch's head is kept, as a listing of a source's sketches finds it: handed back as it is to write or read it again. */
export interface SketchKey {
  pk: string;
  sk: string;
}

/** A sketch as read: its head and its two base slots (any may be missing). */
export interface StoredSketch {
  head?: SketchHead;
  bases: (SketchBase | undefined)[];
}

/**
 * A capture's write: the head at its next revision and, when the journal is folded, first a base, into
 * `slot` unless that slot holds a base of the same life at a revision as new. `retry`: the head only moves
 * past a revision another writer folded at and never named; the observations are to be applied again.
 */
export interface SketchWrite {
  head: SketchHead;
  base?: SketchBase & { slot: number };
  retry?: true;
}
