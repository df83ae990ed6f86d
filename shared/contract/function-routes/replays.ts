import { IdParams } from '../../domain/catalog/schemas';
import { ReplayCreate, ReplayList, ReplayView } from '../../domain/replays/schemas';
import { route } from './define';

/** Control plane: replays of a source's stored events to a destination (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const REPLAYS_ROUTES = [
  route({ method: 'POST', path: '/v2/replays', fn: 'replays', auth: 'bearer', summary: 'Replay the events a source stored in a window to a destination, through its current transformation, skipping users suppressed now: a job that shows its progress', body: ReplayCreate, response: ReplayView, status: 201 }),
  route({ method: 'GET', path: '/v2/replays', fn: 'replays', auth: 'bearer', summary: "The workspace's replays, newest first (the last 100)", response: ReplayList }),
  route({ method: 'GET', path: '/v2/replays/{id}', fn: 'replays', auth: 'bearer', summary: 'A replay with its progress: parts and events read, and what became of them', params: IdParams, response: ReplayView }),
  route({ method: 'POST', path: '/v2/replays/{id}/cancel', fn: 'replays', auth: 'bearer', summary: 'Stop a running replay (a part being sent finishes); 409 for one that completed or failed', params: IdParams, response: ReplayView }),
] as const;
