import type { AlertNotification, AlertRule, CounterSnapshot } from './schemas';

/** What an evaluation leaves on its rule. */
export interface Evaluation {
  state: AlertRule['state'];
  since?: string;
  reading: string;
  evaluatedAt: string;
  snapshots: CounterSnapshot[];
}

/**
 * Alert rules and the notifications they sent, in a partition per workspace; every rule also in an index the
 * evaluator reads across workspaces. Writes to a rule are conditional on its version.
 */
export interface AlertRepository {
  create(rule: AlertRule): Promise<void>;
  get(workspaceId: string, id: string): Promise<AlertRule | undefined>;
  list(workspaceId: string): Promise<AlertRule[]>;
  /** Every rule of every workspace (the evaluator's round), read a page at a time. */
  all(): Promise<AlertRule[]>;
  /** Writes the rule as changed, if its version is still the one read; the rule as written, or undefined. */
  replace(rule: AlertRule, changes: Partial<AlertRule>): Promise<AlertRule | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** Records an evaluation; a change of state records its notification in the same write. False: another evaluation came first. */
  recordEvaluation(rule: AlertRule, evaluation: Evaluation, notification?: AlertNotification): Promise<boolean>;
  /** How the channel answered a notification. */
  recordDelivery(workspaceId: string, notificationId: string, delivery: NonNullable<AlertNotification['delivery']>): Promise<void>;
  /** The workspace's notifications, newest first. */
  notifications(workspaceId: string, limit: number): Promise<AlertNotification[]>;
  /**
   * Takes the right to subscribe `address` (one confirmation mail) for the workspace, counted in the store so
   * every process sees it: `subscribed` when the address was taken within `limits.addressSeconds` (with what SNS
   * answered then, once recorded), `limited` when the workspace took `limits.perHour` addresses in this clock
   * hour already, otherwise `claimed`, the address and the hour's count taken in one write.
   */
  claimMailAddress(workspaceId: string, address: string, limits: MailLimits, nowMs: number): Promise<MailClaim>;
  /** What SNS answered to the claimed address's subscription. */
  recordMailSubscription(workspaceId: string, address: string, subscription: string): Promise<void>;
  /** Gives a claimed address back (SNS did not subscribe it), so it may be tried again; the hour's count stays taken. */
  releaseMailAddress(workspaceId: string, address: string): Promise<void>;
}

/** How many confirmation mails a workspace may cause. */
export interface MailLimits {
  /** New addresses a workspace may subscribe in a clock hour. */
  perHour: number;
  /** How long an address, once subscribed, is not subscribed again (no second confirmation mail). */
  addressSeconds: number;
}

export type MailClaim = { kind: 'claimed' } | { kind: 'subscribed'; subscription: string } | { kind: 'limited'; retryAfterSeconds: number };

/** The counters conditions read. */
export interface AlertReads {
  /** A destination's outcome counters since it was created: delivered, aborted, and parked now. */
  destinationCounters(workspaceId: string, destinationId: string): Promise<{ delivered: number; aborted: number; retrying: number }>;
  /** Whether the source stored any event received at or after `sinceMs`. */
  sourceStoredSince(workspaceId: string, sourceId: string, sinceMs: number): Promise<boolean>;
}

/** An e-mail as a notification sends it: a subject line and a plain-text body, to one address. */
export interface AlertMailMessage {
  address: string;
  subject: string;
  message: string;
}

/**
 * E-mail through the deployment's Amazon SNS: a topic per workspace, each address subscribed with a filter on
 * its own address, so a message published for an address reaches that address only, and only in its workspace.
 * Never throws: SNS's answer, or why it failed.
 */
export interface AlertMail {
  /** Whether the deployment has SNS for alerts (its setting); without it a rule cannot have an e-mail channel. */
  enabled(): boolean;
  /** Subscribes the address to the workspace's topic: SNS's SubscriptionArn answer (`pending confirmation` until confirmed). */
  subscribe(workspaceId: string, address: string): Promise<{ subscription: string } | { error: string }>;
  /** Publishes to the workspace's topic for the address: SNS's MessageId, or the status and error. */
  publish(workspaceId: string, mail: AlertMailMessage): Promise<{ status: number; messageId?: string; error?: string }>;
}
