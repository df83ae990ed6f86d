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
}

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
