// The agent's chat message feed: the first page of messages (100, as the chat panel shows) through
// useResource, kept current by the message socket /api/messages/agent/{id}/ws. ReconnectingSocket holds
// the spec §4 rules (connect after 100 ms, 1 s doubling backoff capped at 30 s, 5 attempts, none after a
// 1000 close, counter reset on open). How an event changes the page is the caller's `apply`, so this
// file stays free of screen logic. Parse and socket errors are logged only.
import { useEffect, useRef } from 'react';
import { agentMessagesPath, MESSAGE_PAGE_SIZE_CHAT } from './api.ts';
import { onJson, openAgentFeed } from './feed-socket.ts';
import type { Timers } from './socket.ts';
import type { MessageEvent as ChatMessageEvent, MessagePage } from './types.ts';
import { useResource, type Resource } from './use-resource.ts';

export const MESSAGE_SOCKET_DELAY = 100;
/** Spec §9: messages stay fresh for 30 s and are not refetched on window focus. */
export const MESSAGES_FRESH_MS = 30_000;

export const messagesKey = (agentId: number) => agentMessagesPath(agentId, MESSAGE_PAGE_SIZE_CHAT);

export type MessageSocketOptions = {
  /** The page after one event (see applyMessageEvent in the conversation panel). */
  apply: (page: MessagePage, event: ChatMessageEvent) => MessagePage;
  /** Every event, after it was applied (the panel refreshes the agent on assistant messages). */
  onEvent?: (event: ChatMessageEvent) => void;
  /** @default the signed-in user's token */
  getToken?: () => Promise<string | null>;
  WebSocket?: typeof WebSocket;
  timers?: Timers;
  /** @default console.warn */
  log?: (...args: unknown[]) => void;
};

const EVENT_TYPES = new Set(['created', 'updated', 'deleted']);

export function useMessageSocket(agentId: number, options: MessageSocketOptions): Resource<MessagePage> {
  // Spec §5: messages are fetched only when the agent id is above 0.
  const key = agentId > 0 ? messagesKey(agentId) : null;
  const resource = useResource<MessagePage>(key, { freshFor: MESSAGES_FRESH_MS, revalidateOnFocus: false });
  const latest = useRef({ options, resource });
  latest.current = { options, resource };

  useEffect(() => {
    if (!(agentId > 0)) return;
    const { getToken, WebSocket, timers, log = (...args: unknown[]) => console.warn(...args) } = latest.current.options;
    const socket = openAgentFeed('messages', agentId, { connectDelay: MESSAGE_SOCKET_DELAY, getToken, WebSocket, timers });
    onJson(socket, 'message socket', (data) => {
      const event = data as ChatMessageEvent;
      if (!event || typeof event !== 'object' || !EVENT_TYPES.has(event.type)) return log('message socket: unknown event', event);
      const { options: current, resource: page } = latest.current;
      // Before the first page has loaded there is nothing to patch: the fetch brings the message anyway.
      if (page.data) void page.mutate((data) => (data ? current.apply(data, event) : data!));
      current.onEvent?.(event);
    }, log);
    socket.addEventListener('error', (ev) => log('message socket: error', ev.error ?? ''));
    return () => socket.close(1000);
  }, [agentId]);

  return resource;
}
