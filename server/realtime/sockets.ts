// WebSocket endpoints: the agent message feed, the agent action feed and the thread hub.
// Sockets authenticate before the upgrade completes; a refused socket is closed with a
// 44xx code whose reason says why (browsers cannot read an HTTP status on a failed upgrade).
// A feed or hub socket lives only as long as its token and its sign-in session: it closes with 4401 when
// the token expires or the session signs out (the client reconnects with a fresh token, if it has one).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Services } from '../services.ts';
import { HttpError } from '../http/errors.ts';
import { ownedAgentId } from '../domain/access.ts';
import { sessionAlive, sessionEndedTopic } from '../auth/sessions.ts';
import { PUBSUB_PROTOCOL, serveHubConnection, THREAD_HUB } from './pubsub-hub.ts';
import { desktopTunnel, TUNNEL_PATH } from '../desktop/guac-gateway.ts';

const AGENT_FEED = /^\/api\/(messages|actions)\/agent\/(\d+)\/ws\/?$/;
const HUB = /^\/api\/realtime\/client\/hubs\/([\w-]+)\/?$/;
const HEARTBEAT_MS = 30_000;

export function createSocketServer(services: Services) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => (protocols.has(PUBSUB_PROTOCOL) ? PUBSUB_PROTOCOL : protocols.has('guacamole') ? 'guacamole' : false),
  });
  const alive = new WeakSet<WebSocket>();

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  function accept(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket> {
    return new Promise((resolve) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        alive.add(ws);
        ws.on('pong', () => alive.add(ws));
        ws.on('error', () => ws.terminate());
        resolve(ws);
      }));
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const feed = AGENT_FEED.exec(url.pathname);
    const hub = HUB.exec(url.pathname);
    const tunnel = TUNNEL_PATH.exec(url.pathname);
    if (!feed && !hub && !tunnel) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (hub && !String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).includes(PUBSUB_PROTOCOL)) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // Authenticate first and attach handlers in the same tick as the upgrade, so that no
    // early client frame can arrive before its listener.
    let attach: (ws: WebSocket) => void;
    try {
      attach = tunnel ? await desktopTunnel(services, tunnel[1]) : feed ? await feedHandler(req, feed[1], Number(feed[2])) : await hubHandler(hub![1], url);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      const reason = err instanceof HttpError ? String(err.detail) : 'Internal server error';
      if (!(err instanceof HttpError)) services.log.error(`socket: ${(err as Error).stack ?? err}`);
      attach = (ws) => ws.close(status >= 400 && status < 500 ? 4000 + status : 1011, reason.slice(0, 120));
    }
    attach(await accept(req, socket, head));
  }

  /** Refuses a token of a signed-out session; closes the socket when the token expires or the session ends. */
  async function whileSignedIn(sessionId: number | null, expiresAt: number): Promise<(ws: WebSocket) => void> {
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

  async function feedHandler(req: IncomingMessage, kind: string, id: number): Promise<(ws: WebSocket) => void> {
    const { user, sessionId, expiresAt } = await services.auth.identify(req, { allowQueryToken: true });
    const agentId = await ownedAgentId(services.db, user, id);
    const watch = await whileSignedIn(sessionId, expiresAt);
    return (ws) => {
      watch(ws);
      const unsubscribe = services.bus.subscribe(`agent:${agentId}:${kind}`, (event) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(event)));
      ws.on('close', unsubscribe);
      ws.on('message', () => {}); // the feeds are one-way; client frames are ignored
    };
  }

  async function hubHandler(hubName: string, url: URL): Promise<(ws: WebSocket) => void> {
    if (hubName !== THREAD_HUB) throw new HttpError(404, 'Unknown hub');
    const token = url.searchParams.get('access_token') ?? '';
    const claims = await services.auth.tokens.verify(token, hubAudience(THREAD_HUB)).catch(() => {
      throw new HttpError(401, 'Invalid or expired access token');
    });
    const roles = Array.isArray(claims.role) ? (claims.role as string[]) : [];
    const watch = await whileSignedIn(Number.isInteger(claims.sid) ? (claims.sid as number) : null, claims.exp * 1000);
    return (ws) => {
      watch(ws);
      serveHubConnection(ws, services.bus, claims.sub, roles);
    };
  }

  return {
    upgrade,
    count: () => wss.clients.size,
    close() {
      clearInterval(heartbeat);
      for (const ws of wss.clients) ws.close(1001, 'Server shutting down');
      wss.close();
    },
  };
}

export const hubAudience = (hub: string) => `realtime:${hub}`;
