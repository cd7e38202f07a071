// A self-hosted hub speaking Azure Web PubSub's `json.webpubsub.azure.v1` subprotocol, so the
// SPA could equally talk to the managed service (see docs/protocols.md §1). Clients may join
// the groups their token's roles allow; only the server publishes.
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Bus } from './bus.ts';
import { threadOfGroup, TOPICS } from './topics.ts';

export const PUBSUB_PROTOCOL = 'json.webpubsub.azure.v1';
export const THREAD_HUB = 'thread_hub';

/** Group name ↔ bus topic: group `thread:<id>` carries that thread's steps (and its `thread:<id>:thread` changes). */
export const threadGroup = (threadId: number) => `thread:${threadId}`;

type Request = { type?: unknown; group?: unknown; ackId?: unknown; event?: unknown };

export function serveHubConnection(ws: WebSocket, bus: Bus, userId: string, roles: string[]): void {
  const connectionId = randomUUID();
  const joined = new Map<string, () => void>();
  const seenAcks = new Set<number>();
  const send = (frame: object) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame));
  const may = (group: string) => roles.includes('webpubsub.joinLeaveGroup') || roles.includes(`webpubsub.joinLeaveGroup.${group}`);

  send({ type: 'system', event: 'connected', userId, connectionId });

  const decline = (message: string) => {
    send({ type: 'system', event: 'disconnected', message });
    ws.close(1008, message.slice(0, 120));
  };

  ws.on('message', (raw, isBinary) => {
    let req: Request;
    try {
      req = JSON.parse(isBinary ? '' : raw.toString());
      if (!req || typeof req !== 'object') throw new Error();
    } catch {
      return decline('Invalid frame: expected JSON');
    }
    const ackId = typeof req.ackId === 'number' && Number.isInteger(req.ackId) ? req.ackId : undefined;
    const ack = (error?: { name: string; message: string }) => {
      if (ackId === undefined) return;
      send(error ? { type: 'ack', ackId, success: false, error } : { type: 'ack', ackId, success: true });
    };
    if (ackId !== undefined) {
      if (seenAcks.has(ackId)) return ack({ name: 'Duplicate', message: `ackId ${ackId} was already used` });
      seenAcks.add(ackId);
      if (seenAcks.size > 1000) seenAcks.delete(seenAcks.values().next().value!);
    }
    switch (req.type) {
      case 'joinGroup':
      case 'leaveGroup': {
        const group = typeof req.group === 'string' ? req.group : '';
        const threadId = threadOfGroup(group);
        if (threadId === null || !may(group)) return ack({ name: 'Forbidden', message: `Not allowed to join or leave ${group || 'that group'}` });
        if (req.type === 'joinGroup' && !joined.has(group)) {
          const frame = (type: string) => (data: unknown) => send({ type: 'message', from: 'group', group, dataType: 'json', data: { type, data } });
          // The thread's steps, and changes of the thread itself ({id, needs_help}: it waits for a person, or no more).
          const offSteps = bus.subscribe(TOPICS.threadSteps(threadId), frame('step'));
          const offThread = bus.subscribe(TOPICS.threadChanged(threadId), frame('thread'));
          joined.set(group, () => (offSteps(), offThread()));
        } else if (req.type === 'leaveGroup') {
          joined.get(group)?.();
          joined.delete(group);
        }
        return ack();
      }
      case 'sendToGroup':
        return ack({ name: 'Forbidden', message: 'Only the server publishes to groups' });
      case 'event':
        return ack();
      case 'ping':
        return send({ type: 'pong' });
      default:
        return decline(`Unknown request type: ${String(req.type)}`);
    }
  });

  ws.on('close', () => {
    for (const unsubscribe of joined.values()) unsubscribe();
    joined.clear();
  });
}
