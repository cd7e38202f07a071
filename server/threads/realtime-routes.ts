// POST /api/realtime/negotiate → {url, group}: a hub address with a short-lived token that
// may join exactly that thread's group (docs/protocols.md §1.4). The URL's origin is PUBLIC_URL, else the
// Host header when it names this server, never a Host some client made up. Also the realtime WebSocket
// routes: the agent message and action feeds, and the hub itself (handlers in threads/feeds.ts).
import { idField, idParam, type Api } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import { socketOrigin } from '../http/origin.ts';
import { ownedThread } from '../agents/access.ts';
import { PUBSUB_PROTOCOL, threadGroup, THREAD_HUB } from '../realtime/pubsub-hub.ts';
import { agentFeed, hubAudience, hubConnection, type FeedDeps } from './feeds.ts';
import type { Config } from '../config/index.ts';

type Deps = FeedDeps & { config: Pick<Config, 'publicUrl'>; port: number };

const HUB_TOKEN_SECONDS = 10 * 60;

export function registerRealtimeRoutes(api: Api, deps: Deps) {
  api.ws('/messages/agent/:id/ws', agentFeed(deps, 'messages'));
  api.ws('/actions/agent/:id/ws', agentFeed(deps, 'actions'));
  // Authorised by the negotiated access token, not by a sign-in token.
  api.ws('/realtime/client/hubs/:hub', hubConnection(deps), 'public', { protocol: PUBSUB_PROTOCOL });

  api.post('/realtime/negotiate', async (ctx) => {
    ctx.readOnly = true; // a token to watch a thread with: viewing, not a change (no impersonation event)
    const body = await ctx.body();
    if ((body.hub ?? THREAD_HUB) !== THREAD_HUB) throw invalid('hub', `hub must be ${THREAD_HUB}`);
    const threadId = idField(body.thread_id, 'thread_id', 'Thread not found');
    await ownedThread(ctx.db, ctx.user, threadId);
    const group = threadGroup(threadId);
    // The hub socket ends with the sign-in session, like the agent feeds.
    const claims = { role: [`webpubsub.joinLeaveGroup.${group}`], ...(ctx.sessionId ? { sid: ctx.sessionId } : {}) };
    const token = await deps.auth.tokens.signFor(hubAudience(THREAD_HUB), String(ctx.user.id), claims, HUB_TOKEN_SECONDS);
    const origin = socketOrigin(ctx.req, { publicUrl: deps.config.publicUrl, port: deps.port });
    return { url: `${origin}/api/realtime/client/hubs/${THREAD_HUB}?access_token=${token}`, group };
  });
}
