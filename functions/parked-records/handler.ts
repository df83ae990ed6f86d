import { NotFoundError } from '../../shared/domain/errors';
import { PARKED_RECORDS_ROUTES } from '../../shared/contract/function-routes/parked-records';
import { createHandler } from '../../shared/http/handler';
import { parkedRecords } from '../../shared/composition/streams';
import { services } from '../../shared/services';

const parked = parkedRecords(services());

/** Operations (admin Basic auth): the stream records that consumers parked, and replaying one on demand. */
export const handler = createHandler('parkedRecords', PARKED_RECORDS_ROUTES, {
  'GET /admin/parked-records': async ({ query }) => parked.list(query.limit),
  'POST /admin/parked-records/{id}/replay': async ({ params }) => {
    const replayed = await parked.replay(params.id);
    if (!replayed) throw new NotFoundError(`No parked record found for id: ${params.id}`);
    return replayed;
  },
});
