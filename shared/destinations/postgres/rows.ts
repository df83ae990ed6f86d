import { anonymousIdOf, idText, isRecord, propertiesOf, traitsOf, userIdOf } from '../message';
import type { Message } from '../types';

/**
 * An event as warehouse rows, the layout warehouse loaders give it: one row in its type's table (`tracks`,
 * `identifies`, `pages`, `screens`, `groups`, `aliases`), a track also one in the table named after its event,
 * an identify also its user's row in `users`. Column names are snake_case; properties and traits become
 * columns of their own, context becomes `context_*` columns, nested objects are flattened with `_`.
 */

/** A value as a column holds it (null and undefined are left out: they make no column). */
export type Value = string | number | boolean;
export interface Row {
  table: string;
  values: Record<string, Value>;
}

/** Longest identifier PostgreSQL keeps (NAMEDATALEN - 1 bytes). */
const MAX_IDENTIFIER = 63;
const TYPE_TABLES: Record<string, string> = {
  track: 'tracks',
  identify: 'identifies',
  page: 'pages',
  screen: 'screens',
  group: 'groups',
  alias: 'aliases',
};
export const USERS_TABLE = 'users';
const RESERVED_TABLES = new Set([...Object.values(TYPE_TABLES), USERS_TABLE]);

/** Cuts a name to PostgreSQL's identifier limit in bytes, never inside a character. */
export function fitIdentifier(name: string, limit = MAX_IDENTIFIER): string {
  // Four bytes at most a character: a short name needs no counting.
  if (name.length * 4 <= limit) return name;
  let out = name;
  while (Buffer.byteLength(out) > limit) out = out.slice(0, -1);
  return out;
}

/**
 * snake_case as warehouse loaders write names: words split at spaces, punctuation and lower→upper case
 * changes (`productId` → `product_id`, `Order Completed` → `order_completed`, `HTMLTitle` → `html_title`),
 * digits kept with their word, a leading digit given a `_`, cut to 63 bytes. "" when no letter or digit is left.
 */
export function snakeCase(name: string): string {
  let known = SNAKE_CASED.get(name);
  if (known === undefined) {
    // Events repeat their keys: each name is worked out once (up to a bound), not once per event.
    if (SNAKE_CASED.size >= MAX_SNAKE_CASED) SNAKE_CASED.clear();
    known = snakeCaseOnce(name);
    SNAKE_CASED.set(name, known);
  }
  return known;
}

const SNAKE_CASED = new Map<string, string>();
const MAX_SNAKE_CASED = 10_000;

function snakeCaseOnce(name: string): string {
  const words = name
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\d)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const joined = words.join('_').toLowerCase();
  return fitIdentifier(/^\p{N}/u.test(joined) ? `_${joined}` : joined);
}

/** The table of a track's own event: its name snake_cased, `_` before a name a type's table already has. */
export function eventTable(event: unknown): string | undefined {
  if (typeof event !== 'string') return undefined;
  const name = snakeCase(event);
  if (!name) return undefined;
  return RESERVED_TABLES.has(name) ? fitIdentifier(`_${name}`) : name;
}

/** `<prefix>_<key snake_cased>` (the key's own leading _ dropped after a prefix), worked out once a pair. */
function columnName(prefix: string, key: string): string {
  let names = COLUMN_NAMES.get(prefix);
  if (!names) {
    if (COLUMN_NAMES.size >= MAX_SNAKE_CASED) COLUMN_NAMES.clear();
    COLUMN_NAMES.set(prefix, (names = new Map()));
  }
  let known = names.get(key);
  if (known === undefined) {
    if (names.size >= MAX_SNAKE_CASED) names.clear();
    const part = snakeCase(key);
    known = part && fitIdentifier(prefix ? `${prefix}_${part.replace(/^_/, '')}` : part);
    names.set(key, known);
  }
  return known;
}
const COLUMN_NAMES = new Map<string, Map<string, string>>();

/** An object's leaves as snake_case columns (`{a: {bC: 1}}` → `a_b_c`), arrays kept whole as JSON text. */
export function flattenColumns(value: Record<string, unknown>, prefix = '', out: Record<string, Value> = {}): Record<string, Value> {
  for (const key in value) {
    const item = value[key];
    const name = columnName(prefix, key);
    if (!name) continue;
    if (isRecord(item)) flattenColumns(item, name, out);
    else if (Array.isArray(item)) out[name] = JSON.stringify(item);
    else if (typeof item === 'string' || typeof item === 'boolean' || (typeof item === 'number' && Number.isFinite(item))) out[name] = item;
  }
  return out;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The columns every table's rows have; they win over a property or trait of the same name. */
function commonColumns(message: Message, loadedAt: string): Record<string, Value | undefined> {
  return {
    id: idText(message.messageId),
    anonymous_id: anonymousIdOf(message),
    user_id: userIdOf(message),
    received_at: text(message.receivedAt),
    sent_at: text(message.sentAt),
    timestamp: text(message.timestamp),
    original_timestamp: text(message.originalTimestamp),
    channel: text(message.channel),
    loaded_at: loadedAt,
  };
}

/** Free-form keys first (`values`, which the row takes over), then the event's own columns over them. */
function rowOf(table: string, values: Record<string, Value>, common: Record<string, Value | undefined>): Row {
  for (const key in common) if (common[key] !== undefined) values[key] = common[key];
  return { table, values };
}

/** Why an event cannot be loaded, or undefined. */
export function unloadable(message: Message): string | undefined {
  if (idText(message.messageId) === undefined) return 'a warehouse row needs the event to have a messageId';
  if (typeof message.type !== 'string' || !TYPE_TABLES[message.type]) return `event type ${String(message.type)} has no warehouse table`;
  return undefined;
}

/** The rows of one loadable event (see unloadable). */
export function rowsOf(message: Message, loadedAt: string): Row[] {
  const type = message.type as string;
  const context = isRecord(message.context) ? flattenColumns(message.context, 'context') : {};
  const common = commonColumns(message, loadedAt);
  const table = TYPE_TABLES[type]!;
  switch (type) {
    case 'track': {
      const own = eventTable(message.event);
      const named = Object.assign(common, { event: own, event_text: text(message.event) });
      const eventRow = own ? [rowOf(own, Object.assign(flattenColumns(propertiesOf(message)), context), named)] : [];
      return [rowOf(table, context, named), ...eventRow];
    }
    case 'identify': {
      const traits = flattenColumns(traitsOf(message));
      const userId = userIdOf(message);
      const identifies = rowOf(table, Object.assign({}, traits, context), common);
      return userId ? [identifies, rowOf(USERS_TABLE, traits, { id: userId, received_at: common.received_at, loaded_at: loadedAt })] : [identifies];
    }
    case 'page':
    case 'screen':
      return [rowOf(table, Object.assign(flattenColumns(propertiesOf(message)), context), Object.assign(common, { name: text(message.name) }))];
    case 'group':
      return [
        rowOf(
          table,
          Object.assign(flattenColumns(isRecord(message.traits) ? message.traits : {}), context),
          Object.assign(common, { group_id: idText(message.groupId) }),
        ),
      ];
    default:
      return [rowOf(table, context, Object.assign(common, { previous_id: idText(message.previousId) }))];
  }
}
