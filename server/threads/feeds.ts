// The WebSocket routes' handlers for the agent feeds and the thread hub (registered in
// threads/realtime-routes.ts with api.ws). A feed or hub socket lives only as long as its token and its sign-in
// session: it closes with 4401 when the token expires or the session signs out (the client reconnects
// with a fresh token, if it has one).
import type { WebSocket } from 'ws';
import { idParam, type PublicWsHandler, type WsCtx, type WsHandler } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';
import { ownedAgentId } from '../agents/access.ts';
import { sessionAlive } from '../auth/index.ts';
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Auth } from '../auth/index.ts';
import { serveHubConnection, THREAD_HUB } from '../realtime/pubsub-hub.ts';
import { TOPICS, type Topic } from '../realtime/topics.ts';

/** What the feeds use: the bus they forward, and the token issuer that signed the hub's tokens. */
export type FeedDeps = { bus: Bus; auth: Pick<Auth, 'tokens'> };

export const hubAudience = (hub: string) => `realtime:${hub}`;

/** /api/{messages|actions}/agent/{id}/ws: the agent's events of that kind, to its owner; one-way. */
export const agentFeed = (deps: FeedDeps, kind: 'messages' | 'actions'): WsHandler => async (ctx: WsCtx) => {
  const agentId = await ownedAgentId(ctx.db, ctx.user, idParam(ctx.params.id, 'Agent not found'));
  const watch = await whileSignedIn(ctx.db, deps.bus, ctx.sessionId, ctx.expiresAt);
  return (ws) => {
    watch(ws);
    const topic: Topic<object> = kind === 'messages' ? TOPICS.agentMessages(agentId) : TOPICS.agentActions(agentId);
    const unsubscribe = deps.bus.subscribe(topic, (event) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(event)));
    ws.on('close', unsubscribe);
    ws.on('message', () => {}); // the feeds are one-way; client frames are ignored
  };
};

/** /api/realtime/client/hubs/{hub}?access_token=…: the pub/sub hub, authorised by the negotiated token. */
export const hubConnection = (deps: FeedDeps): PublicWsHandler => async (ctx) => {
  if (ctx.params.hub !== THREAD_HUB) throw new HttpError(404, 'Unknown hub');
  const token = ctx.query.get('access_token') ?? '';
  const claims = await deps.auth.tokens.verify(token, hubAudience(THREAD_HUB)).catch(() => {
    throw new HttpError(401, 'Invalid or expired access token');
  });
  const roles = Array.isArray(claims.role) ? (claims.role as string[]) : [];
  const sid = Number.isInteger(claims.sid) ? (claims.sid as number) : null;
  const watch = await whileSignedIn(ctx.db, deps.bus, sid, claims.exp * 1000);
  return (ws) => {
    watch(ws);
    serveHubConnection(ws, deps.bus, claims.sub, roles);
  };
};

/** Refuses a token of a signed-out session; closes the socket when the token expires or the session ends. */
async function whileSignedIn(db: Db, bus: Bus, sessionId: number | null, expiresAt: number): Promise<(ws: WebSocket) => void> {
  if (sessionId !== null && !(await sessionAlive(db, sessionId))) throw new HttpError(401, 'Signed out');
  return (ws) => {
    const timer = setTimeout(() => ws.close(4401, 'Token expired'), Math.min(2 ** 31 - 1, Math.max(0, expiresAt - Date.now())));
    const off = sessionId === null ? () => {} : bus.subscribe(TOPICS.sessionEnded(sessionId), () => ws.close(4401, 'Signed out'));
    ws.once('close', () => {
      clearTimeout(timer);
      off();
    });
  };
}
