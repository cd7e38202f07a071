// POST /api/realtime/negotiate → {url, group}: a hub address with a short-lived token that
// may join exactly that thread's group (docs/protocols.md §1.4).
import type { IncomingMessage } from 'node:http';
import { idParam, type Api } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import { ownedThread } from '../domain/access.ts';
import { threadGroup, THREAD_HUB } from '../realtime/pubsub-hub.ts';
import { hubAudience } from '../realtime/sockets.ts';

const HUB_TOKEN_SECONDS = 10 * 60;

export function registerRealtimeRoutes(api: Api) {
  api.post('/realtime/negotiate', async (ctx) => {
    const body = await ctx.body();
    if ((body.hub ?? THREAD_HUB) !== THREAD_HUB) throw invalid('hub', `hub must be ${THREAD_HUB}`);
    const threadId = idParam(String(body.thread_id ?? ''), 'Thread not found');
    await ownedThread(ctx.services.db, ctx.user, threadId);
    const group = threadGroup(threadId);
    const token = await ctx.services.auth.tokens.signFor(hubAudience(THREAD_HUB), String(ctx.user.id),
      { role: [`webpubsub.joinLeaveGroup.${group}`] }, HUB_TOKEN_SECONDS);
    return { url: `${socketOrigin(ctx.req)}/api/realtime/client/hubs/${THREAD_HUB}?access_token=${token}`, group };
  });
}

function socketOrigin(req: IncomingMessage): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted || req.headers['x-forwarded-proto'] === 'https';
  return `${secure ? 'wss' : 'ws'}://${req.headers.host ?? 'localhost'}`;
}
