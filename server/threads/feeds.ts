// The WebSocket routes' handlers for the agent feeds and the thread hub (registered in
// threads/realtime-routes.ts with api.ws). A feed or hub socket lives only as long as its token and its sign-in
// session: it closes with 4401 when the token expires or the session signs out (the client reconnects
// with a fresh token, if it has one).
import type { WebSocket } from 'ws';
import { idParam, type PublicWsHandler, type WsCtx, type WsHandler } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';
import { ownedAgentId } from '../agents/access.ts';
import { sessionAlive, sessionEndedTopic } from '../auth/sessions.ts';
import type { Services } from '../services.ts';
import { serveHubConnection, THREAD_HUB } from '../realtime/pubsub-hub.ts';

export const hubAudience = (hub: string) => `realtime:${hub}`;

/** /api/{messages|actions}/agent/{id}/ws: the agent's events of that kind, to its owner; one-way. */
export const agentFeed = (kind: 'messages' | 'actions'): WsHandler => async (ctx: WsCtx) => {
  const { services } = ctx;
  const agentId = await ownedAgentId(services.db, ctx.user, idParam(ctx.params.id, 'Agent not found'));
  const watch = await whileSignedIn(services, ctx.sessionId, ctx.expiresAt);
  return (ws) => {
    watch(ws);
    const unsubscribe = services.bus.subscribe(`agent:${agentId}:${kind}`, (event) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(event)));
    ws.on('close', unsubscribe);
    ws.on('message', () => {}); // the feeds are one-way; client frames are ignored
  };
};

/** /api/realtime/client/hubs/{hub}?access_token=…: the pub/sub hub, authorised by the negotiated token. */
export const hubConnection: PublicWsHandler = async (ctx) => {
  const { services } = ctx;
  if (ctx.params.hub !== THREAD_HUB) throw new HttpError(404, 'Unknown hub');
  const token = ctx.query.get('access_token') ?? '';
  const claims = await services.auth.tokens.verify(token, hubAudience(THREAD_HUB)).catch(() => {
    throw new HttpError(401, 'Invalid or expired access token');
  });
  const roles = Array.isArray(claims.role) ? (claims.role as string[]) : [];
  const watch = await whileSignedIn(services, Number.isInteger(claims.sid) ? (claims.sid as number) : null, claims.exp * 1000);
  return (ws) => {
    watch(ws);
    serveHubConnection(ws, services.bus, claims.sub, roles);
  };
};

/** Refuses a token of a signed-out session; closes the socket when the token expires or the session ends. */
async function whileSignedIn(services: Services, sessionId: number | null, expiresAt: number): Promise<(ws: WebSocket) => void> {
  if (sessionId !== null && !(await sessionAlive(services.db, sessionId))) throw new HttpError(401, 'Signed out');
  return (ws) => {
    const timer = setTimeout(() => ws.close(4401, 'Token expired'), Math.min(2 ** 31 - 1, Math.max(0, expiresAt - Date.now())));
    const off = sessionId === null ? () => {} : services.bus.subscribe(sessionEndedTopic(sessionId), () => ws.close(4401, 'Signed out'));
    ws.once('close', () => {
      clearTimeout(timer);
      off();
    });
  };
}
