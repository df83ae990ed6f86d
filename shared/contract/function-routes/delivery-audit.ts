import { AuditQuery, AuditReport } from '../../domain/delivery/audit';
import { route } from './define';

/** Data plane: the delivery audit (admin Basic). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const DELIVERY_AUDIT_ROUTES = [
  route({ method: 'GET', path: '/admin/audit', fn: 'deliveryAudit', auth: 'admin', summary: "A source's stored events reconciled with each connected destination's outcomes: events by state, those in no state, and whether the counters equal them", query: AuditQuery, response: AuditReport }),
] as const;
