import { IdParams } from '../../domain/catalog/schemas';
import { LiveEventsPage, LiveEventsQuery, Outcomes, SourceLiveEventsPage } from '../../domain/delivery/monitoring';
import { FailuresPage, FailuresQuery, RetryRequest } from '../../domain/delivery/failures';
import { DeliveryWindowQuery, DestinationDelivery } from '../../domain/delivery/funnel';
import { JobAnswer, JobParams } from '../../domain/delivery/jobs';
import { SourceDelivery } from '../../domain/delivery/overview';
import { DestinationSeries, SeriesQuery, SourceSeries } from '../../domain/delivery/series';
import { route } from './define';

/** Control plane: what the pipeline did (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const MONITORING_ROUTES = [
  route({ method: 'GET', path: '/v2/destinations/{id}/outcomes', fn: 'monitoring', auth: 'bearer', summary: 'Delivered, retrying, aborted, filtered and suppressed event counts of a destination, with its last errors', params: IdParams, response: Outcomes }),
  route({ method: 'GET', path: '/v2/sources/{id}/live-events', fn: 'monitoring', auth: 'bearer', summary: 'The events a source received in the last day, newest first (suppressed events never appear), with those it refused', params: IdParams, query: LiveEventsQuery, response: SourceLiveEventsPage }),
  route({ method: 'GET', path: '/v2/destinations/{id}/live-events', fn: 'monitoring', auth: 'bearer', summary: 'What was recently sent to a destination and what it answered, newest first', params: IdParams, query: LiveEventsQuery, response: LiveEventsPage }),
  route({ method: 'GET', path: '/v2/destinations/{id}/delivery', fn: 'monitoring', auth: 'bearer', summary: "A destination's funnel over a window of ingestion (whole hours): routed, suppressed, filtered, failed in the transformation, delivered, aborted by class, retrying; latency and error classes", params: IdParams, query: DeliveryWindowQuery, response: DestinationDelivery }),
  route({ method: 'GET', path: '/v2/sources/{id}/delivery', fn: 'monitoring', auth: 'bearer', summary: "A source's funnel over a window of ingestion (whole hours): received, refused by reason, stored", params: IdParams, query: DeliveryWindowQuery, response: SourceDelivery }),
  route({ method: 'GET', path: '/v2/destinations/{id}/series', fn: 'monitoring', auth: 'bearer', summary: "A destination's delivered, failed, filtered and retrying events per time bucket of ingestion over a window of 5 minutes to 30 days (5-minute buckets up to 6 hours, hours up to 7 days, days beyond)", params: IdParams, query: SeriesQuery, response: DestinationSeries }),
  route({ method: 'GET', path: '/v2/sources/{id}/series', fn: 'monitoring', auth: 'bearer', summary: "A source's received, refused and duplicate events per time bucket of ingestion over a window of 5 minutes to 30 days", params: IdParams, query: SeriesQuery, response: SourceSeries }),
  route({ method: 'GET', path: '/v2/destinations/{id}/failures', fn: 'monitoring', auth: 'bearer', summary: "A destination's failed (aborted) events of a window, with what was sent and answered, paged", params: IdParams, query: FailuresQuery, response: FailuresPage }),
  route({ method: 'POST', path: '/v2/destinations/{id}/failures/retry', fn: 'monitoring', auth: 'bearer', summary: 'Starts a job that sends failed events once more, by ids or by window and reason', params: IdParams, body: RetryRequest, response: JobAnswer, status: 202 }),
  route({ method: 'GET', path: '/v2/destinations/{id}/jobs/{jobId}', fn: 'monitoring', auth: 'bearer', summary: "A delivery job's progress", params: JobParams, response: JobAnswer }),
] as const;
