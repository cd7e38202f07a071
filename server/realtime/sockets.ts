// WebSocket endpoints: the agent message feed, the agent action feed and the thread hub.
// Sockets authenticate before the upgrade completes; a refused socket is closed with a
// 44xx code whose reason says why (browsers cannot read an HTTP status on a failed upgrade).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Services } from '../services.ts';
import { HttpError } from '../http/errors.ts';
import { ownedAgentId } from '../domain/access.ts';
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

  async function feedHandler(req: IncomingMessage, kind: string, id: number): Promise<(ws: WebSocket) => void> {
    const { user } = await services.auth.identify(req, { allowQueryToken: true });
    const agentId = await ownedAgentId(services.db, user, id);
    return (ws) => {
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
    return (ws) => serveHubConnection(ws, services.bus, claims.sub, roles);
  }

  return {
    upgrade,
    close() {
      clearInterval(heartbeat);
      for (const ws of wss.clients) ws.close(1001, 'Server shutting down');
      wss.close();
    },
  };
}

export const hubAudience = (hub: string) => `realtime:${hub}`;
