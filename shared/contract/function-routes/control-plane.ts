import { ALERTS_ROUTES } from './alerts';
import { CATALOG_ROUTES } from './catalog';
import { CONTROL_META_ROUTES, DESTINATION_DEFINITION_ROUTES } from './control-meta';
import { CREDENTIALS_ROUTES } from './credentials';
import { EVENT_SCHEMAS_ROUTES } from './event-schemas';
import { TRACKING_PLANS_ROUTES } from './tracking-plans';
import { TRACKING_PLAN_VIEWS_ROUTES } from './tracking-plan-views';
import { MONITORING_ROUTES } from './monitoring';
import { REGULATIONS_ROUTES } from './regulations';
import { REPLAYS_ROUTES } from './replays';
import { TEST_INTERFACE_ROUTES } from './test-interface';
import { TRANSFORMATIONS_ROUTES } from './transformations';
import type { RouteDefinition } from './define';

/** The control plane's routes, in manifest order: what its OpenAPI document (control-meta) describes. */
export const CONTROL_ROUTES = [
  ...CONTROL_META_ROUTES,
  ...DESTINATION_DEFINITION_ROUTES,
  ...CATALOG_ROUTES,
  ...MONITORING_ROUTES,
  ...EVENT_SCHEMAS_ROUTES,
  ...TRACKING_PLANS_ROUTES,
  ...TRACKING_PLAN_VIEWS_ROUTES,
  ...REGULATIONS_ROUTES,
  ...REPLAYS_ROUTES,
  ...ALERTS_ROUTES,
  ...TRANSFORMATIONS_ROUTES,
  ...CREDENTIALS_ROUTES,
  ...TEST_INTERFACE_ROUTES,
] as const satisfies readonly RouteDefinition[];
