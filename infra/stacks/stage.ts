import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Plane } from '../../shared/contract/functions';

/** Requests per second (steady) and burst allowed on a plane's API stage. */
export interface Throttling {
  rateLimit: number;
  burstLimit: number;
}

/** Everything that differs between deployments of Weir. */
export interface StageConfig {
  name: string;
  isProduction: boolean;
  /** What happens to stateful resources (table, secret, logs) when their stack is deleted. */
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
  throttling: Record<Plane, Throttling>;
  /** User name of the data plane's admin (area D); the password is generated into a secret. */
  adminUser: string;
  /** Where the stage's alarms are sent (an email subscription of its SNS topic); none without it. */
  alarmEmail?: string;
}

/** Stage names end up in stack names, API stage names and resource names: keep them short and plain. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,19}$/;

export function stageConfig(name: string, options: { adminUser?: string; alarmEmail?: string } = {}): StageConfig {
  if (!STAGE_NAME.test(name)) throw new Error(`stage "${name}" must match ${STAGE_NAME}`);
  const isProduction = name === 'prod';
  return {
    name,
    isProduction,
    removalPolicy: isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRetention: isProduction ? RetentionDays.THREE_MONTHS : RetentionDays.ONE_WEEK,
    // Non-production stages are shared test beds: low limits cap the cost of a runaway client. In production
    // the data plane takes ingestion traffic, the control plane only configuration calls.
    throttling: isProduction
      ? { control: { rateLimit: 50, burstLimit: 100 }, data: { rateLimit: 1000, burstLimit: 2000 } }
      : { control: { rateLimit: 20, burstLimit: 40 }, data: { rateLimit: 100, burstLimit: 200 } },
    adminUser: options.adminUser ?? 'admin',
    ...(options.alarmEmail && { alarmEmail: options.alarmEmail }),
  };
}
