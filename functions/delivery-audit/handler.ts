import { createHandler } from '../../shared/http/handler';
import { services } from '../../shared/services';

const { deliveryAudit } = services();

/** Operations (admin Basic auth): a source's stored events reconciled with what each destination did with them. */
export const handler = createHandler('deliveryAudit', {
  'GET /admin/audit': async ({ query }) => deliveryAudit.audit(query),
});
