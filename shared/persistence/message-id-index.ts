import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ClaimOptions, ClaimOutcome, MessageClaim, MessageIdIndex } from '../domain/ingestion/duplicates';
import { keys } from './keys';
import { getEach, updateItem, type TableClient } from './table-client';

/** Conditional writes in flight at once per call (each its own round trip, in parallel). */
const IN_FLIGHT = 32;

interface ClaimItem {
  claimant: string;
  firstSeenAt: string;
  /** The end of its window, in seconds (the table's TTL attribute). */
  expiresAt: number;
  /** The stored count that counts its claimant's part (set by the claim's first write that names one, then kept). */
  countedIn?: string;
}

/**
 * The seenMessage family (families.ts): one item per (source, messageId), written only if absent, already this
 * claimant's, or past its window as seen from the claiming event's own acceptance time, so the same part handed
 * over again always gets the same answer. A write unit per event (the item is under 1 KB); a refused write
 * returns the holder's item at no extra read. The count a claim names is set by its first write that names one
 * and never changed after (`if_not_exists`), so every attempt at a part reads the same counts off its claims.
 */
export class MessageIdIndexRepository implements MessageIdIndex {
  constructor(private readonly store: TableClient) {}

  async claim(claims: MessageClaim[], options: ClaimOptions = {}): Promise<ClaimOutcome[]> {
    const results: ClaimOutcome[] = claims.map(() => ({}));
    let pending = claims.map((_, i) => i);
    if (options.readFirst || options.readOnly) {
      const found = await this.read(claims);
      pending = pending.filter((i) => {
        const item = found[i];
        if (!item) return true;
        const verdict = verdictOf(item, claims[i]!);
        if (verdict === 'write') return true;
        results[i] = verdict;
        return false;
      });
    }
    if (options.readOnly) return results;
    for (let from = 0; from < pending.length; from += IN_FLIGHT) {
      await Promise.all(pending.slice(from, from + IN_FLIGHT).map(async (i) => (results[i] = await this.put(claims[i]!))));
    }
    return results;
  }

  private async put(claim: MessageClaim): Promise<ClaimOutcome> {
    const values: Record<string, unknown> = {
      ':entity': 'seenMessage',
      ':claimant': claim.claimant,
      ':first': new Date(claim.at).toISOString(),
      ':expires': Math.ceil((claim.at + claim.windowMs) / 1000),
      ':at': Math.floor(claim.at / 1000),
    };
    let set = 'SET entity = :entity, claimant = :claimant, firstSeenAt = :first, expiresAt = :expires';
    if (claim.countId !== undefined) {
      set += ', countedIn = if_not_exists(countedIn, :count)';
      values[':count'] = claim.countId;
    }
    try {
      const { Attributes } = await updateItem(this.store, {
        Key: keys.seenMessage(claim.workspaceId, claim.sourceId, claim.messageId),
        UpdateExpression: set,
        ConditionExpression: 'attribute_not_exists(pk) OR claimant = :claimant OR expiresAt <= :at',
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      // The item before: the count it named stays (if_not_exists); where it named none, this write named it.
      const before = Attributes as ClaimItem | undefined;
      const countedIn = before?.countedIn ?? claim.countId;
      return { ...(countedIn !== undefined && { countedIn }), ...(before?.countedIn === undefined && claim.countId !== undefined && { named: true }) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const held = error.Item ? (unmarshall(error.Item) as ClaimItem) : undefined;
      return { seen: { claimant: held?.claimant ?? 'unknown', firstSeenAt: held?.firstSeenAt ?? new Date(claim.at).toISOString() } };
    }
  }

  /** The claims' items as they are (eventually consistent: a claim not seen yet is written, conditionally). */
  private async read(claims: MessageClaim[]): Promise<(ClaimItem | undefined)[]> {
    const wanted = claims.map((c) => keys.seenMessage(c.workspaceId, c.sourceId, c.messageId));
    const byKey = new Map<string, ClaimItem>();
    for (let from = 0; from < wanted.length; from += 100)
      for (const item of await getEach(this.store, dedupe(wanted.slice(from, from + 100)))) byKey.set(String(item.pk), item as unknown as ClaimItem);
    return wanted.map((key) => byKey.get(key.pk));
  }
}

/** The count a claim of the claimant's own names. */
const countOf = (item: ClaimItem | undefined): ClaimOutcome => (item?.countedIn !== undefined ? { countedIn: item.countedIn } : {});

/**
 * What a claim's item says before writing: the holder's, or this claimant's own (with the count it names; a
 * claim that names none yet is written when a count is to be named), or that a write decides.
 */
function verdictOf(item: ClaimItem, claim: MessageClaim): ClaimOutcome | 'write' {
  if (item.claimant === claim.claimant) return item.countedIn === undefined && claim.countId !== undefined ? 'write' : countOf(item);
  if (item.expiresAt <= Math.floor(claim.at / 1000)) return 'write';
  return { seen: { claimant: item.claimant, firstSeenAt: item.firstSeenAt } };
}

const dedupe = (list: { pk: string; sk: string }[]) => [...new Map(list.map((k) => [k.pk, k])).values()];
