import * as z from 'zod';
import { IdParams } from '../../domain/catalog/schemas';
import { Regulation, RegulationCreate, RegulationDetail, RegulationListQuery, RegulationPage } from '../../domain/regulations/schemas';
import { route } from './define';

/** Control plane: data regulations (Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const REGULATIONS_ROUTES = [
  route({
    method: 'POST',
    path: '/v2/regulations',
    fn: 'regulations',
    auth: 'bearer',
    summary: 'Suppress users (and delete them at destinations): one regulation per user; 201 "Created", or JSON with Accept: application/json; Idempotency-Key honoured',
    body: RegulationCreate,
    response: z.array(Regulation),
    status: 201,
  }),
  route({ method: 'GET', path: '/v2/regulations', fn: 'regulations', auth: 'bearer', summary: 'List regulations in creation order, a page at a time', query: RegulationListQuery, response: RegulationPage }),
  route({ method: 'GET', path: '/v2/regulations/{id}', fn: 'regulations', auth: 'bearer', summary: 'A regulation with its status and, for deletions, each destination\'s job', params: IdParams, response: RegulationDetail }),
  route({ method: 'DELETE', path: '/v2/regulations/{id}', fn: 'regulations', auth: 'bearer', summary: 'Cancel a regulation: suppression lifted at once, waiting deletions stopped (idempotent)', params: IdParams, response: Regulation }),
] as const;
