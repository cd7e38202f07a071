// Message socket events applied to the cached first page of chat messages (spec §4 "Message events").
import type { MessageEvent, MessagePage } from '../../../lib/types.ts';

export function applyMessageEvent(page: MessagePage, event: MessageEvent): MessagePage {
  switch (event.type) {
    case 'created':
      // A message already on the page (the page was fetched after it was written) is not counted twice.
      if (page.messages.some((m) => m.id === event.message_id)) return applyMessageEvent(page, { ...event, type: 'updated' });
      return { ...page, messages: [event.message, ...page.messages], total_count: page.total_count + 1 };
    case 'updated':
      return { ...page, messages: page.messages.map((m) => (m.id === event.message_id ? event.message : m)) };
    case 'deleted':
      return {
        ...page,
        messages: page.messages.filter((m) => m.id !== event.message_id),
        total_count: Math.max(0, page.total_count - 1),
      };
    default:
      return page;
  }
}

/** A created assistant message also refreshes the agent (spec §4). */
export const refreshesAgent = (event: MessageEvent): boolean => event.type === 'created' && event.message?.role === 'assistant';
