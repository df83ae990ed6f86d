import { NotFoundError } from '../../shared/domain/errors';
import { createHandler } from '../../shared/http/handler';
import { services } from '../../shared/services';

const { parkedRecords: parked } = services();

/** Operations (admin Basic auth): the stream records that consumers parked, and replaying one on demand. */
export const handler = createHandler('parkedRecords', {
  'GET /admin/parked-records': async ({ query }) => parked.list(query.limit),
  'POST /admin/parked-records/{id}/replay': async ({ params }) => {
    const replayed = await parked.replay(params.id);
    if (!replayed) throw new NotFoundError(`No parked record found for id: ${params.id}`);
    return replayed;
  },
});
