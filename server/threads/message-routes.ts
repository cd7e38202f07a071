// /api/messages: the agent's chat feed, newest first.
import type { Api } from '../http/api.ts';
import { intQuery } from '../http/query.ts';
import { latestMessages, listMessages } from './messages.ts';
import { agentIdParam } from '../agents/params.ts';

export function registerMessageRoutes(api: Api) {
  api.get('/messages/agent/:id', async (ctx) => {
    const id = await agentIdParam(ctx);
    const page = intQuery(ctx.query, 'page', 1, 1, 1_000_000);
    const pageSize = intQuery(ctx.query, 'page_size', 50, 1, 500);
    return listMessages(ctx.db, id, page, pageSize);
  });

  api.get('/messages/agent/:id/latest', async (ctx) => {
    const id = await agentIdParam(ctx);
    return latestMessages(ctx.db, id, intQuery(ctx.query, 'limit', 20, 1, 500));
  });
}
