// What the three socket users share: the same-origin URL of an agent feed (/api/{messages|actions}/agent/
// {id}/ws) carrying a fresh token and the impersonation per connect, and JSON frames parsed in one place
// with unreadable ones logged, not thrown (spec §8: socket and parse errors are logged only).
import { getToken as authToken } from './auth.tsx';
import { impersonatedUserId } from './impersonation.ts';
import { ReconnectingSocket, type SocketOptions } from './socket.ts';

export type FeedKind = 'messages' | 'actions';
export type Log = (...args: unknown[]) => void;

/** Same-origin WebSocket URL of an agent feed; the token (and impersonation) travel in the query. */
export function agentSocketUrl(kind: FeedKind, agentId: number, token: string): string {
  const base = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/${kind}/agent/${agentId}/ws`;
  const params = new URLSearchParams({ token });
  const impersonate = impersonatedUserId();
  if (impersonate) params.set('impersonate', impersonate);
  return `${base}?${params}`;
}

export type FeedOptions = SocketOptions & {
  /** @default the signed-in user's token */
  getToken?: () => Promise<string | null>;
};

/** A reconnecting socket on an agent feed that asks for a token before every connect. */
export function openAgentFeed(kind: FeedKind, agentId: number, options: FeedOptions = {}): ReconnectingSocket {
  const { getToken = authToken, ...socketOptions } = options;
  return new ReconnectingSocket(async () => {
    const token = await getToken();
    if (!token) throw new Error(`No access token for the ${kind} socket`);
    return agentSocketUrl(kind, agentId, token);
  }, socketOptions);
}

/** Hands every frame's parsed JSON to `handle`; a frame that is not JSON goes to `log` as '<label>: unreadable …'. */
export function onJson(socket: ReconnectingSocket, label: string, handle: (data: unknown) => void, log: Log): void {
  socket.addEventListener('message', (ev) => {
    let data: unknown;
    try {
      data = JSON.parse(String(ev.data));
    } catch (error) {
      return log(`${label}: unreadable frame`, error);
    }
    handle(data);
  });
}
