// /api/admin/comm-messages (admin only): a thread's communication list, and the approval actions on
// an outbound draft — edit its text, queue it for sending, or delete it (spec §4 "Outbound message").
import { idParam, type Api } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { deleteDraft, listCommMessages, queueDraft, updateDraftText } from './comm-messages.ts';
import { getThread } from '../threads/threads.ts';
import type { Bus } from '../realtime/bus.ts';

type Deps = { bus: Bus };

const MAX_TEXT = 100_000;

export function registerAdminMailRoutes(api: Api, deps: Deps) {
  api.get('/admin/comm-messages', async (ctx) => {
    if (!ctx.query.get('thread_id')) throw invalid('thread_id', 'thread_id is required', 'query');
    const threadId = idParam(ctx.query.get('thread_id'), 'Thread not found');
    if (!(await getThread(ctx.db, threadId))) throw new HttpError(404, 'Thread not found');
    return listCommMessages(ctx.db, threadId);
  }, 'admin');

  api.post('/admin/comm-messages/:id/update-text', async (ctx) => {
    const id = idParam(ctx.params.id, 'Message not found');
    const { text } = await ctx.body();
    if (typeof text !== 'string' || !text.trim()) throw invalid('text', 'text must be non-empty text');
    if (text.length > MAX_TEXT) throw invalid('text', `text must be at most ${MAX_TEXT} characters`);
    return updateDraftText(ctx.db, id, text);
  }, 'admin');

  api.post('/admin/comm-messages/:id/queue', (ctx) =>
    queueDraft(ctx.db, deps.bus, idParam(ctx.params.id, 'Message not found')), 'admin');

  api.delete('/admin/comm-messages/:id', async (ctx) => {
    await deleteDraft(ctx.db, deps.bus, idParam(ctx.params.id, 'Message not found'));
    return null;
  }, 'admin');
}
