// What a notification says (issue 47): made from the event as it was queued (webhooks/events.ts) when it is sent.
// It carries the agent's name and, for a help request, the question's first 100 characters, and nothing else of
// the thread: no message text, no e-mail, no secret. `url` is a path in the app the notification opens.
import type { EventType } from '../webhooks/index.ts';

/** The events a device may choose, in this order (the contract's; the browser lists them so). */
export const PUSH_EVENTS = ['run.needs_help', 'mail.awaiting_approval', 'billing.limit_reached', 'run.failed'] as const satisfies readonly EventType[];
export type PushEvent = (typeof PUSH_EVENTS)[number];
/** A device's test notification (POST /api/push/subscriptions/:id/test), whatever events it chose. */
export const TEST_PUSH = 'push.test';
export const QUESTION_CHARACTERS = 100;

export type Notification = { type: string; title: string; body: string; url: string; tag: string };

/**
 * `data`: the event's (agent_id, agent_name, thread_id, question); `helpPath`: the help request's one-time link,
 * while it may still be used; `deviceId`: tags the test notification.
 */
export function notificationOf(type: string, data: Record<string, unknown>, helpPath: string | null, deviceId: number): Notification {
  const agent = String(data.agent_name ?? 'Your agent');
  const thread = `/agent/${data.agent_id}?thread=${data.thread_id}`;
  const tag = `${type}:${data.thread_id}`;
  switch (type) {
    case 'run.needs_help':
      return {
        type, title: `${agent} needs you`, body: firstCharacters(String(data.question ?? ''), QUESTION_CHARACTERS),
        // A link already used or expired: the desktop with control being taken, after sign-in as the owner.
        url: helpPath ?? `/agent/${data.agent_id}?control=1`, tag,
      };
    case 'mail.awaiting_approval':
      return { type, title: `${agent}'s e-mail awaits approval`, body: 'Read it and approve or change it before it is sent.', url: thread, tag };
    case 'billing.limit_reached':
      return { type, title: 'Spend limit reached', body: `${agent}'s run was stopped: the spend limit is reached.`, url: '/settings/billing', tag };
    case 'run.failed':
      return { type, title: `${agent}'s run failed`, body: 'Open the thread to see what went wrong.', url: thread, tag };
    default:
      return { type, title: 'Notifications are on', body: 'This device will be told of the events you chose.', url: '/settings', tag: `${type}:${deviceId}` };
  }
}

/** The first n characters (code points: an emoji is not cut in half). */
function firstCharacters(text: string, n: number): string {
  const chars = [...text];
  return chars.length <= n ? text : chars.slice(0, n).join('');
}
