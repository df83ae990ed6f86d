import { DATA_META_ROUTES } from './data-meta';
import { DELIVERY_AUDIT_ROUTES } from './delivery-audit';
import { GOVERNANCE_ROUTES } from './governance';
import { INGEST_ROUTES } from './ingest';
import { PARKED_RECORDS_ROUTES } from './parked-records';
import { SDK_CONFIG_ROUTES } from './sdk-config';
import type { RouteDefinition } from './define';

/** The data plane's routes, in manifest order: what its OpenAPI document (data-meta) describes. */
export const DATA_ROUTES = [
  ...DATA_META_ROUTES,
  ...INGEST_ROUTES,
  ...SDK_CONFIG_ROUTES,
  ...GOVERNANCE_ROUTES,
  ...PARKED_RECORDS_ROUTES,
  ...DELIVERY_AUDIT_ROUTES,
] as const satisfies readonly RouteDefinition[];
