import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../shared/ops/metrics';
import { pascalCase } from './weir-function';
import type { StageConfig } from './stage';

export interface OperationsProps {
  stage: StageConfig;
  /** Where every alarm goes (the stage's topic, see StateStack). */
  topic: ITopic;
  /** Every function of the stack: an alarm on its errors. */
  functions: Record<string, IFunction>;
  /** Stream consumers: an alarm on their iterator age (records waiting on the stream). */
  streamConsumers?: Record<string, IFunction>;
  /** The stage's dashboard and the alarms on Weir's own metrics live with the control plane. */
  withDashboard?: boolean;
}

/** One of Weir's own metrics (shared/ops/metrics.ts), over all destination types and consumers. */
export const weirMetric = (metricName: string, statistic = 'Sum') =>
  new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: 'weir' }, statistic, period: Duration.minutes(5) });

/** Records waiting on the stream this long mean a consumer is behind or stuck. */
const ITERATOR_AGE_ALARM_MS = 5 * 60_000;

/**
 * What an operator watches, per stage: alarms (to the stage's SNS topic) on function errors, stream consumers
 * falling behind, aborted deliveries, parked stream records and the schedulers' backlog; and one dashboard.
 */
export class Operations extends Construct {
  readonly alarms: Record<string, Alarm> = {};

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const action = new SnsAction(props.topic);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string, evaluationPeriods = 1) => {
      const created = new Alarm(this, name, {
        alarmDescription: `Weir ${props.stage.name}: ${description}`,
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      this.alarms[name] = created;
    };

    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(`${pascalCase(name)}Errors`, fn.metricErrors({ period: Duration.minutes(5) }), 1, `${name} failed (errors in 5 minutes)`);
    }
    for (const [name, fn] of Object.entries(props.streamConsumers ?? {})) {
      const age = fn.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) });
      alarm(`${pascalCase(name)}IteratorAge`, age, ITERATOR_AGE_ALARM_MS, `${name} is more than 5 minutes behind the stream`, 5);
    }
    if (!props.withDashboard) return;

    alarm('DeliveriesAborted', weirMetric('DeliveryAborted'), 10, 'deliveries aborted (10 or more in 5 minutes)');
    alarm('RecordsParked', weirMetric('RecordsParked'), 1, 'stream records parked after failing (GET /admin/parked-records)');
    alarm('SchedulerBacklog', weirMetric('SchedulerBacklog', 'Minimum'), 100, 'the schedulers find a full page of due work on every run', 3);

    new Dashboard(this, 'Dashboard', {
      dashboardName: `Weir-${props.stage.name}`,
      widgets: [
        [
          new GraphWidget({
            title: 'Deliveries',
            left: ['DeliveryDelivered', 'DeliveryRetried', 'DeliveryAborted', 'DeliveryFiltered'].map((m) => weirMetric(m)),
          }),
          new GraphWidget({ title: 'Events', left: ['EventsIngested', 'EventsSuppressed'].map((m) => weirMetric(m)) }),
        ],
        [
          new GraphWidget({
            title: 'Stream records parked or handed back',
            left: ['RecordsParked', 'RecordsHandedBack'].map((m) => weirMetric(m)),
          }),
          new GraphWidget({ title: 'Scheduler backlog (due items found per run)', left: [weirMetric('SchedulerBacklog', 'Maximum')] }),
        ],
        [
          new GraphWidget({
            title: 'Stream consumers behind (iterator age, ms)',
            left: Object.values(props.streamConsumers ?? {}).map((fn) => fn.metric('IteratorAge', { statistic: 'Maximum' })),
          }),
          new GraphWidget({ title: 'Function errors', left: Object.values(props.functions).map((fn) => fn.metricErrors()) }),
        ],
      ],
    });
  }
}
