import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The CloudWatch namespace of Weir's own metrics (CDK's alarms and dashboard read them there). */
export const METRICS_NAMESPACE = 'Weir';

let metrics: Metrics | undefined;

/**
 * Counts as CloudWatch embedded-metric (EMF) documents, through Powertools: each count with the service as its
 * only dimension (what alarms read), and again with `by` (e.g. the destination type, for dashboards).
 * Made on first use, so the environment a runtime sets first (POWERTOOLS_METRICS_DISABLED) is the one read.
 */
export function countMetrics(counts: Record<string, number>, by: Record<string, string> = {}): void {
  const entries = Object.entries(counts).filter(([, n]) => n > 0);
  if (entries.length === 0) return;
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'weir' });
  for (const dimensions of Object.keys(by).length > 0 ? [{}, by] : [{}]) {
    for (const [name, value] of Object.entries(dimensions)) metrics.addDimension(name, value);
    for (const [name, n] of entries) metrics.addMetric(name, MetricUnit.Count, n);
    metrics.publishStoredMetrics();
  }
}
