// The events a webhook can carry (issue 46) and how one is queued: one delivery per endpoint of the user that wants
// the type (and the agent, when the endpoint names one), and one notification per device of the user that wants it
// (Web Push, issue 47: server/push sends them), written with the caller's queryable so that an event made in a
// transaction is queued by its commit. The caller then wakes the deliverers and push senders (wakeDeliveries).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';

export const EVENTS = [
  'run.started', 'run.finished', 'run.failed', 'run.needs_help', 'run.guard_paused', 'mail.awaiting_approval', 'billing.limit_reached',
] as const;
export type EventType = (typeof EVENTS)[number];
export const TEST_EVENT = 'webhook.test';

/** `links`: paths in the app, made whole with the server's origin when sent (deliverer.ts). */
export type EventData = Record<string, unknown> & { links?: Record<string, string> };
/** `threadId`: the thread the event is about; a help request's notification carries the link its pause made. */
export type WebhookEvent = { type: EventType; userId: number; agentId: number | null; threadId?: number | null; data: EventData };

export const newEventId = () => `msg_${randomUUID().replaceAll('-', '')}`;

/**
 * Queues the event for every endpoint and every push device (push_subscriptions) that wants it; how many deliveries
 * and notifications that made. One statement: an event costs no more round trips for a user with devices than for
 * one without. A push device gets the same payload; what its notification shows is chosen when it is sent
 * (server/push/notification.ts). A help request's notification references the one-time link its pause made in this
 * transaction (the thread's newest; server/push/help-links.ts).
 */
export async function queueEvent(q: Queryable, event: WebhookEvent): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `WITH hooks AS (
       INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload, next_attempt_at)
       SELECT e.id, $1, $2, $3::jsonb, now() FROM webhook_endpoints e
       WHERE e.user_id = $4 AND e.enabled AND $2 = ANY (e.events) AND (e.agent_id IS NULL OR e.agent_id = $5)
       RETURNING id
     ), pushes AS (
       INSERT INTO push_messages (subscription_id, type, payload, help_link_id)
       SELECT s.id, $2, $3::jsonb, CASE WHEN $2 = 'run.needs_help' THEN
         (SELECT l.id FROM help_links l WHERE l.thread_id = $6::integer AND l.user_id = $4 ORDER BY l.id DESC LIMIT 1) END
       FROM push_subscriptions s WHERE s.user_id = $4 AND $2 = ANY (s.events)
       RETURNING id
     )
     SELECT ((SELECT count(*) FROM hooks) + (SELECT count(*) FROM pushes))::int AS n`,
    [newEventId(), event.type, JSON.stringify({ timestamp: new Date().toISOString(), data: event.data }), event.userId, event.agentId,
      event.threadId ?? null]);
  return row.n;
}

/** After the commit that queued deliveries or notifications: every instance's deliverer and push sender look now. */
export function wakeDeliveries(bus: Bus): void {
  bus.publish(TOPICS.webhooksQueued, {});
}

/** The thread's event (its agent, its owner, the links a person follows), queued; `extra` joins data. */
export async function queueThreadEvent(
  q: Queryable, type: EventType, threadId: number, runId: number | null, extra: Record<string, unknown> = {},
): Promise<number> {
  const [t] = await q.query<{ agent_id: number; agent_name: string; owner_id: number; thread_name: string; last_run: number | null }>(
    `SELECT a.id AS agent_id, a.name AS agent_name, a.owner_id, t.name AS thread_name,
       (SELECT r.id FROM runs r WHERE r.thread_id = t.id ORDER BY r.id DESC LIMIT 1) AS last_run
     FROM threads t JOIN agents a ON a.id = t.agent_id WHERE t.id = $1`, [threadId]);
  if (!t) return 0;
  const run = runId ?? t.last_run; // mail drafted during a run: that run
  const links: Record<string, string> = { agent: `/agent/${t.agent_id}`, thread: `/agent/${t.agent_id}?thread=${threadId}` };
  if (run) links.run = `/replay/${run}`;
  // The desktop with control being taken for the owner (the help e-mail's link, issue 46 item 4).
  links.desktop = `/agent/${t.agent_id}?control=1`;
  const { links: more, ...rest } = extra as EventData;
  return queueEvent(q, {
    type, userId: t.owner_id, agentId: t.agent_id, threadId,
    data: {
      agent_id: t.agent_id, agent_name: t.agent_name, thread_id: threadId, thread_name: t.thread_name, run_id: run, ...rest, links: { ...links, ...more },
    },
  });
}

/** Queues a thread's event and wakes the deliverers (outside a transaction). */
export async function emitThreadEvent(
  db: Queryable, bus: Bus, type: EventType, threadId: number, runId: number | null, extra?: Record<string, unknown>,
): Promise<void> {
  if (await queueThreadEvent(db, type, threadId, runId, extra)) wakeDeliveries(bus);
}
