import { DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type * as ports from '../domain/alerts/ports';
import { AlertNotification, AlertRule } from '../domain/alerts/schemas';
import { keys } from './keys';
import { getItem, putIf, putIfAbsent, queryAll, queryPage, refusedItems, transactIf, updateIf, updateItem, type TableClient } from './table-client';

/** Notifications are kept this long. */
const NOTIFICATION_TTL_SECONDS = 30 * 24 * 3600;
const HOUR_MS = 3600_000;

const ruleItem = (rule: AlertRule) => ({
  ...keys.alertRule(rule.workspaceId, rule.id),
  entity: 'alertRule',
  ...rule,
  gsi1pk: keys.allAlertRules,
  gsi1sk: `${rule.workspaceId}#${rule.id}`,
});

/** Alert rules and their notifications (see the port); a rule's writes are conditional on its version. */
export class AlertRepository implements ports.AlertRepository {
  constructor(private readonly store: TableClient) {}

  async create(rule: AlertRule): Promise<void> {
    await this.store.doc.send(new PutCommand(putIfAbsent(this.store.table, ruleItem(rule))));
  }

  async get(workspaceId: string, id: string): Promise<AlertRule | undefined> {
    const item = await getItem(this.store, keys.alertRule(workspaceId, id), { ConsistentRead: true });
    return item ? AlertRule.parse(item) : undefined;
  }

  async list(workspaceId: string): Promise<AlertRule[]> {
    const items = await queryAll(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rule)',
      ExpressionAttributeValues: { ':pk': keys.alertPartition(workspaceId), ':rule': 'RULE#' },
    });
    return items.map((item) => AlertRule.parse(item));
  }

  async all(): Promise<AlertRule[]> {
    const items = await queryAll(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :all',
      ExpressionAttributeValues: { ':all': keys.allAlertRules },
    });
    return items.map((item) => AlertRule.parse(item));
  }

  async replace(rule: AlertRule, changes: Partial<AlertRule>): Promise<AlertRule | undefined> {
    const next: AlertRule = AlertRule.parse({ ...rule, ...changes, version: rule.version + 1 });
    for (const key of Object.keys(changes) as (keyof AlertRule)[]) if (changes[key] === undefined) delete (next as Record<string, unknown>)[key];
    const written = await putIf(this.store, {
      Item: ruleItem(next),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': rule.version },
    });
    return written ? next : undefined;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { Attributes } = await this.store.doc.send(
      new DeleteCommand({ TableName: this.store.table, Key: keys.alertRule(workspaceId, id), ReturnValues: 'ALL_OLD' }),
    );
    return Attributes !== undefined;
  }

  async recordEvaluation(rule: AlertRule, evaluation: ports.Evaluation, notification?: AlertNotification): Promise<boolean> {
    const update = {
      TableName: this.store.table,
      Key: keys.alertRule(rule.workspaceId, rule.id),
      UpdateExpression: `SET #state = :state, reading = :reading, evaluatedAt = :at, snapshots = :snapshots, version = :next${evaluation.since ? ', since = :since' : ''}`,
      ConditionExpression: 'version = :version',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': evaluation.state,
        ':reading': evaluation.reading,
        ':at': evaluation.evaluatedAt,
        ':snapshots': evaluation.snapshots,
        ':next': rule.version + 1,
        ':version': rule.version,
        ...(evaluation.since && { ':since': evaluation.since }),
      },
    };
    if (!notification) return updateIf(this.store, update);
    const note = { ...keys.alertNotification(rule.workspaceId, notification.id), entity: 'alertNotification', ...notification };
    const expiresAt = Math.floor(Date.now() / 1000) + NOTIFICATION_TTL_SECONDS;
    return transactIf(this.store, [{ Update: update }, { Put: { TableName: this.store.table, Item: { ...note, expiresAt } } }]);
  }

  async recordDelivery(workspaceId: string, notificationId: string, delivery: NonNullable<AlertNotification['delivery']>): Promise<void> {
    await updateItem(this.store, {
      Key: keys.alertNotification(workspaceId, notificationId),
      UpdateExpression: 'SET delivery = :delivery',
      ExpressionAttributeValues: { ':delivery': delivery },
    });
  }

  async notifications(workspaceId: string, limit: number): Promise<AlertNotification[]> {
    const items = await queryPage(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :note)',
      ExpressionAttributeValues: { ':pk': keys.alertPartition(workspaceId), ':note': 'NOTE#' },
      ScanIndexForward: false,
      Limit: limit,
    });
    return items.map((item) => AlertNotification.parse(item));
  }

  async claimMailAddress(workspaceId: string, address: string, limits: ports.MailLimits, nowMs: number): Promise<ports.MailClaim> {
    const taken = await this.mailAddress(workspaceId, address, nowMs);
    if (taken) return taken;
    const nowSeconds = Math.floor(nowMs / 1000);
    const hourStart = nowMs - (nowMs % HOUR_MS);
    const hourCount = {
      TableName: this.store.table,
      Key: keys.alertMailHour(workspaceId, hourStart),
      UpdateExpression: 'ADD claimed :one SET expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(claimed) OR claimed < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': limits.perHour, ':expires': Math.floor((hourStart + 2 * HOUR_MS) / 1000) },
    };
    const addressItem = {
      TableName: this.store.table,
      Item: {
        ...keys.alertMailAddress(workspaceId, address),
        entity: 'alertMailAddress',
        claimedAt: new Date(nowMs).toISOString(),
        expiresAt: nowSeconds + limits.addressSeconds,
      },
      // An item the TTL has not removed yet counts as gone once it expired.
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
      ExpressionAttributeValues: { ':now': nowSeconds },
    };
    try {
      await this.store.doc.send(new TransactWriteCommand({ TransactItems: [{ Update: hourCount }, { Put: addressItem }] }));
      return { kind: 'claimed' };
    } catch (error) {
      const codes = refusedItems(error);
      if (!codes) throw error;
      if (codes[1] === 'ConditionalCheckFailed')
        return (await this.mailAddress(workspaceId, address, nowMs)) ?? { kind: 'subscribed', subscription: 'pending confirmation' };
      return { kind: 'limited', retryAfterSeconds: Math.max(1, Math.ceil((hourStart + HOUR_MS - nowMs) / 1000)) };
    }
  }

  async recordMailSubscription(workspaceId: string, address: string, subscription: string): Promise<void> {
    await updateIf(this.store, {
      Key: keys.alertMailAddress(workspaceId, address),
      UpdateExpression: 'SET subscription = :subscription',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':subscription': subscription },
    });
  }

  async releaseMailAddress(workspaceId: string, address: string): Promise<void> {
    await this.store.doc.send(new DeleteCommand({ TableName: this.store.table, Key: keys.alertMailAddress(workspaceId, address) }));
  }

  /** The address as subscribed within its day, or undefined. */
  private async mailAddress(workspaceId: string, address: string, nowMs: number): Promise<ports.MailClaim | undefined> {
    const item = await getItem(this.store, keys.alertMailAddress(workspaceId, address), { ConsistentRead: true });
    if (!item || Number(item.expiresAt) <= Math.floor(nowMs / 1000)) return undefined;
    return { kind: 'subscribed', subscription: typeof item.subscription === 'string' ? item.subscription : 'pending confirmation' };
  }
}
