import * as z from 'zod';
import { ParkedRecordIdParams, ParkedRecordView, ParkedRecordsQuery } from '../../domain/streams/schemas';
import { route } from './define';

/** Data plane: operations on parked stream records (admin Basic). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const PARKED_RECORDS_ROUTES = [
  route({ method: 'GET', path: '/admin/parked-records', fn: 'parkedRecords', auth: 'admin', summary: 'Stream records a consumer could not handle after its attempts, parked with their error, by due time', query: ParkedRecordsQuery, response: z.array(ParkedRecordView) }),
  route({ method: 'POST', path: '/admin/parked-records/{id}/replay', fn: 'parkedRecords', auth: 'admin', summary: 'Hand a parked record to its consumer again now', params: ParkedRecordIdParams, response: ParkedRecordView, status: 202 }),
] as const;
