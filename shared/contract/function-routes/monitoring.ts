import { IdParams } from '../../domain/catalog/schemas';
import { LiveEventsPage, LiveEventsQuery, Outcomes, SourceLiveEventsPage } from '../../domain/delivery/monitoring';
import { route } from './define';

/** Control plane: what the pipeline did (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const MONITORING_ROUTES = [
  route({ method: 'GET', path: '/v2/destinations/{id}/outcomes', fn: 'monitoring', auth: 'bearer', summary: 'Delivered, retrying, aborted, filtered and suppressed event counts of a destination, with its last errors', params: IdParams, response: Outcomes }),
  route({ method: 'GET', path: '/v2/sources/{id}/live-events', fn: 'monitoring', auth: 'bearer', summary: 'The events a source received in the last day, newest first (suppressed events never appear), with those it refused', params: IdParams, query: LiveEventsQuery, response: SourceLiveEventsPage }),
  route({ method: 'GET', path: '/v2/destinations/{id}/live-events', fn: 'monitoring', auth: 'bearer', summary: 'What was recently sent to a destination and what it answered, newest first', params: IdParams, query: LiveEventsQuery, response: LiveEventsPage }),
] as const;
