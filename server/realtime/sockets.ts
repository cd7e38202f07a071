// The WebSocket server: accepts upgrades the route table resolves (api.upgrade: the agent feeds, the
// thread hub and the desktop tunnel are api.ws routes) and keeps the accepted sockets alive with pings.
// A route refused before the upgrade (no such route, a missing subprotocol) is answered in HTTP; a socket
// refused by auth or its handler is accepted and closed at once with a 44xx code whose reason says why.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Log } from '../ops/log.ts';
import { HttpError } from '../http/errors.ts';
import { statusOf } from '../system/status-error.ts';
import { PUBSUB_PROTOCOL } from './pubsub-hub.ts';

const HEARTBEAT_MS = 30_000;

/** api.upgrade: what to do with the socket once accepted, or an HttpError to answer in HTTP. */
export type ResolveUpgrade = (req: IncomingMessage, url: URL) => Promise<(ws: WebSocket) => void>;

export function createSocketServer(log: Log, resolve: ResolveUpgrade) {
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
    return new Promise((done) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        alive.add(ws);
        ws.on('pong', () => alive.add(ws));
        ws.on('error', () => ws.terminate());
        done(ws);
      }));
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Authenticate first and attach handlers in the same tick as the upgrade, so that no
    // early client frame can arrive before its listener.
    let attach: (ws: WebSocket) => void;
    try {
      if (!url.pathname.startsWith('/api/')) throw new HttpError(404, 'Not found');
      attach = await resolve(req, url);
    } catch (err) {
      const status = statusOf(err)?.status ?? 500;
      if (!statusOf(err)) log.error(`socket: ${(err as Error).stack ?? err}`);
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    attach(await accept(req, socket, head));
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
