// /api/messages: the agent's chat feed, newest first.
import { idParam, type Api } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import { ownedAgentId } from '../domain/access.ts';
import { latestMessages, listMessages } from '../domain/messages.ts';

export function registerMessageRoutes(api: Api) {
  api.get('/messages/agent/:id', async (ctx) => {
    const id = await ownedAgentId(ctx.services.db, ctx.user, idParam(ctx.params.id, 'Agent not found'));
    const page = positive(ctx.query.get('page'), 1, 'page', 1_000_000);
    const pageSize = positive(ctx.query.get('page_size'), 50, 'page_size', 500);
    return listMessages(ctx.services.db, id, page, pageSize);
  });

  api.get('/messages/agent/:id/latest', async (ctx) => {
    const id = await ownedAgentId(ctx.services.db, ctx.user, idParam(ctx.params.id, 'Agent not found'));
    return latestMessages(ctx.services.db, id, positive(ctx.query.get('limit'), 20, 'limit', 500));
  });
}

function positive(raw: string | null, fallback: number, name: string, max: number): number {
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw invalid(name, `${name} must be a whole number from 1 to ${max}`, 'query');
  return n;
}
