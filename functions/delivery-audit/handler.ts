import { DELIVERY_AUDIT_ROUTES } from '../../shared/contract/function-routes/delivery-audit';
import { createHandler } from '../../shared/http/handler';
import { deliveryAudit } from '../../shared/composition/monitoring';
import { services } from '../../shared/services';

const audit = deliveryAudit(services());

/** Operations (admin Basic auth): a source's stored events reconciled with what each destination did with them. */
export const handler = createHandler('deliveryAudit', DELIVERY_AUDIT_ROUTES, {
  'GET /admin/audit': async ({ query }) => audit.audit(query),
  'POST /admin/audit': async ({ query, body }) => audit.audit(query, body),
});
