import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The CloudWatch namespace of Weir's own metrics (CDK's alarms and dashboard read them there). */
export const METRICS_NAMESPACE = 'Weir';

let metrics: Metrics | undefined;

/**
 * EMF documents are read from a Lambda function's log by CloudWatch; anywhere else (the local runtime, a
 * script, tests) they would only be noise on stdout, unless asked for with POWERTOOLS_METRICS_DISABLED=false.
 */
const emitting = () => process.env.POWERTOOLS_METRICS_DISABLED === 'false' || process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/**
 * Counts as CloudWatch embedded-metric (EMF) documents, through Powertools: each count with the service as its
 * only dimension (what alarms read), and again with `by` (e.g. the destination type, for dashboards).
 * Made on first use.
 */
export function countMetrics(counts: Record<string, number>, by: Record<string, string> = {}): void {
  const entries = Object.entries(counts).filter(([, n]) => n > 0);
  if (entries.length === 0 || !emitting()) return;
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'weir' });
  for (const dimensions of Object.keys(by).length > 0 ? [{}, by] : [{}]) {
    for (const [name, value] of Object.entries(dimensions)) metrics.addDimension(name, value);
    for (const [name, n] of entries) metrics.addMetric(name, MetricUnit.Count, n);
    metrics.publishStoredMetrics();
  }
}
