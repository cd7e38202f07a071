// A small client for the thread hub, which speaks Azure Web PubSub's `json.webpubsub.azure.v1`
// subprotocol (docs/protocols.md §1): negotiate a URL and group for the thread, join the group once the
// hub says `connected`, hand every step published to it to `onStep`. Each reconnect negotiates again,
// because hub tokens expire after 10 minutes. Leaves out publishing, events and the reliable subprotocol.
import { negotiateThread } from './api.ts';
import { onJson } from './feed-socket.ts';
import { ReconnectingSocket, type Timers } from './socket.ts';
import type { Step } from './types.ts';

export const PUBSUB_PROTOCOL = 'json.webpubsub.azure.v1';

export type ThreadHubOptions = {
  onStep: (step: Step) => void;
  /** A change of the thread itself (`{id, needs_help}`: it waits for a person, or no more). */
  onThread?: (change: { id: number; needs_help: unknown }) => void;
  /** After each successful joinGroup ack; `rejoined` is true after a reconnect (steps may have been missed). */
  onJoin?: (info: { group: string; rejoined: boolean }) => void;
  /** @default negotiateThread from api.ts */
  negotiate?: (threadId: number) => Promise<{ url: string; group: string }>;
  /** Where failures go; the spec logs socket and parse errors only. @default console.warn */
  log?: (...args: unknown[]) => void;
  /** @default globalThis.WebSocket */
  WebSocket?: typeof WebSocket;
  timers?: Timers;
};

type Frame = {
  type?: string;
  event?: string;
  from?: string;
  group?: string;
  dataType?: string;
  data?: unknown;
  ackId?: number;
  success?: boolean;
  error?: { name?: string; message?: string };
  message?: string;
};

export type ThreadHub = { close: () => void; readonly socket: ReconnectingSocket };

export function connectThreadHub(threadId: number, options: ThreadHubOptions): ThreadHub {
  const negotiate = options.negotiate ?? negotiateThread;
  const log = options.log ?? ((...args: unknown[]) => console.warn(...args));
  let group = '';
  let lastAckId = 0;
  let joinAckId = 0;
  let joins = 0;
  let closed = false;

  const socket = new ReconnectingSocket(
    async () => {
      const answer = await negotiate(threadId);
      group = answer.group;
      return answer.url;
    },
    { protocols: PUBSUB_PROTOCOL, WebSocket: options.WebSocket, timers: options.timers },
  );

  onJson(socket, 'thread hub', (data) => {
    const frame = data as Frame;
    if (!frame || typeof frame !== 'object') return;
    if (frame.type === 'system' && frame.event === 'connected') {
      // ackIds must be unique per connection; one counter for the client's lifetime keeps them unique.
      joinAckId = ++lastAckId;
      socket.send(JSON.stringify({ type: 'joinGroup', group, ackId: joinAckId }));
    } else if (frame.type === 'system' && frame.event === 'disconnected') {
      log('thread hub: disconnected by the hub', frame.message ?? '');
    } else if (frame.type === 'ack' && frame.ackId === joinAckId) {
      if (frame.success) options.onJoin?.({ group, rejoined: joins++ > 0 });
      else log('thread hub: joinGroup failed', frame.error?.name, frame.error?.message);
    } else if (frame.type === 'message' && frame.from === 'group' && frame.group === group) {
      const inner = frame.data as { type?: unknown; data?: unknown } | null;
      if (inner && typeof inner === 'object' && inner.type === 'thread' && inner.data && typeof inner.data === 'object') {
        if (!closed) options.onThread?.(inner.data as { id: number; needs_help: unknown });
        return;
      }
      const step = readStep(frame, log);
      if (step && !closed) options.onStep(step);
    }
  }, log);
  socket.addEventListener('error', (ev) => log('thread hub: socket error', ev.error ?? ''));
  socket.addEventListener('giveup', () => log(`thread hub: gave up reconnecting to thread ${threadId}`));

  return {
    socket,
    close() {
      closed = true;
      socket.close(1000);
    },
  };
}

/** The step inside a group message: `{type:'step', data: step}` (this server) or a bare step. */
function readStep(frame: Frame, log: (...args: unknown[]) => void): Step | null {
  let data = frame.data;
  if (frame.dataType === 'text' && typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch (error) {
      log('thread hub: unreadable text message', error);
      return null;
    }
  }
  if (!data || typeof data !== 'object') return null;
  const record = data as { type?: unknown; data?: unknown; sequence?: unknown };
  if (typeof record.sequence === 'number') return data as Step;
  if (record.data && typeof record.data === 'object' && typeof (record.data as { sequence?: unknown }).sequence === 'number') {
    return record.type === undefined || record.type === 'step' ? (record.data as Step) : null;
  }
  return null;
}
