import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, PutCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ClaimOptions, MessageClaim, MessageIdIndex, SeenMessage } from '../domain/ingestion/duplicates';
import { keys } from './keys';
import type { TableClient } from './table-client';

/** Conditional writes in flight at once per call (each its own round trip, in parallel). */
const IN_FLIGHT = 32;

interface ClaimItem {
  claimant: string;
  firstSeenAt: string;
  /** The end of its window, in seconds (the table's TTL attribute). */
  expiresAt: number;
}

/**
 * The seenMessage family (families.ts): one item per (source, messageId), put only if absent, already this
 * claimant's, or past its window as seen from the claiming event's own acceptance time, so the same part handed
 * over again always gets the same answer. A write unit per event (the item is under 1 KB); a refused write
 * returns the holder's item at no extra read.
 */
export class MessageIdIndexRepository implements MessageIdIndex {
  constructor(private readonly store: TableClient) {}

  async claim(claims: MessageClaim[], options: ClaimOptions = {}): Promise<(SeenMessage | undefined)[]> {
    const results: (SeenMessage | undefined)[] = claims.map(() => undefined);
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

  private async put(claim: MessageClaim): Promise<SeenMessage | undefined> {
    const item: ClaimItem = {
      claimant: claim.claimant,
      firstSeenAt: new Date(claim.at).toISOString(),
      expiresAt: Math.ceil((claim.at + claim.windowMs) / 1000),
    };
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: { ...keys.seenMessage(claim.workspaceId, claim.sourceId, claim.messageId), entity: 'seenMessage', ...item },
          ConditionExpression: 'attribute_not_exists(pk) OR claimant = :claimant OR expiresAt <= :at',
          ExpressionAttributeValues: { ':claimant': claim.claimant, ':at': Math.floor(claim.at / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const held = error.Item ? (unmarshall(error.Item) as ClaimItem) : undefined;
      return { claimant: held?.claimant ?? 'unknown', firstSeenAt: held?.firstSeenAt ?? new Date(claim.at).toISOString() };
    }
  }

  /** The claims' items as they are (eventually consistent: a claim not seen yet is written, conditionally). */
  private async read(claims: MessageClaim[]): Promise<(ClaimItem | undefined)[]> {
    const wanted = claims.map((c) => keys.seenMessage(c.workspaceId, c.sourceId, c.messageId));
    const byKey = new Map<string, ClaimItem>();
    for (let from = 0; from < wanted.length; from += 100) {
      let request: Record<string, unknown>[] | undefined = dedupe(wanted.slice(from, from + 100));
      while (request && request.length > 0) {
        const answer: BatchGetCommandOutput = await this.store.doc.send(new BatchGetCommand({ RequestItems: { [this.store.table]: { Keys: request } } }));
        for (const item of answer.Responses?.[this.store.table] ?? []) byKey.set(String(item.pk), item as unknown as ClaimItem);
        request = answer.UnprocessedKeys?.[this.store.table]?.Keys;
      }
    }
    return wanted.map((key) => byKey.get(key.pk));
  }
}

/** What a claim's item says before writing: the holder (this claimant: undefined), or that a write decides. */
function verdictOf(item: ClaimItem, claim: MessageClaim): SeenMessage | undefined | 'write' {
  if (item.claimant === claim.claimant) return undefined;
  if (item.expiresAt <= Math.floor(claim.at / 1000)) return 'write';
  return { claimant: item.claimant, firstSeenAt: item.firstSeenAt };
}

const dedupe = (list: { pk: string; sk: string }[]) => [...new Map(list.map((k) => [k.pk, k])).values()];
