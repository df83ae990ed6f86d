import { AcknowledgedBody, AuditQuery, AuditReport } from '../../domain/delivery/audit';
import { route } from './define';

/** Data plane: the delivery audit (admin Basic). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const DELIVERY_AUDIT_ROUTES = [
  route({ method: 'GET', path: '/admin/audit', fn: 'deliveryAudit', auth: 'admin', summary: "A source's stored events reconciled with each connected destination's outcomes: events by state, those in no state, and whether the counters equal them", query: AuditQuery, response: AuditReport }),
  route({ method: 'POST', path: '/admin/audit', fn: 'deliveryAudit', auth: 'admin', summary: 'The same audit, and what became of the events whose messageIds the body names (those a client holds a 200 for): stored with their state at each destination, dropped by the tracking plan, or never stored', query: AuditQuery, body: AcknowledgedBody, response: AuditReport }),
] as const;
