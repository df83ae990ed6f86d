import { createHandler } from '../../shared/http/handler';

export const handler = createHandler('dataMeta', {
  'GET /health': async () => ({ status: 'ok' as const }),
});
