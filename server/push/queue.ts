// The push queue's SQL: notifications waiting to be sent, one row per device (queued with the event in
// webhooks/events.ts, or a device's test), claimed by the senders with SKIP LOCKED and a lease.
import type { Queryable } from '../db/db.ts';
import { TEST_PUSH } from './notification.ts';

export type Claimed = {
  id: string; type: string; payload: { timestamp: string; data: Record<string, unknown> }; attempt: number; created_at: Date | string;
  subscription_id: number; endpoint: string; p256dh: string; auth: string;
  /** The help request's link, sealed, while it may still be used; else null. */
  link_token: string | null; link_hash: string | null;
};

/** A device's test notification. */
export async function queueTestPush(q: Queryable, subscriptionId: number): Promise<void> {
  await q.query(`INSERT INTO push_messages (subscription_id, type, payload) VALUES ($1, $2, $3::jsonb)`,
    [subscriptionId, TEST_PUSH, JSON.stringify({ timestamp: new Date().toISOString(), data: {} })]);
}

/**
 * Up to `limit` due notifications, each moved on by the lease and counted as an attempt before it is sent: two
 * senders never take one at once, and one whose sender died is sent when the lease ends (at least once).
 */
export function claimPushes(q: Queryable, limit: number, leaseSeconds: number): Promise<Claimed[]> {
  return q.query<Claimed>(
    `UPDATE push_messages m SET next_attempt_at = now() + $2 * interval '1 second', attempt = m.attempt + 1
     FROM push_subscriptions s
     WHERE s.id = m.subscription_id AND m.id IN (
       SELECT id FROM push_messages WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING m.id, m.type, m.payload, m.attempt, m.created_at, s.id AS subscription_id, s.endpoint, s.p256dh, s.auth,
       (SELECT l.token FROM help_links l WHERE l.id = m.help_link_id AND l.used_at IS NULL AND l.expires_at > now()) AS link_token,
       (SELECT l.token_hash FROM help_links l WHERE l.id = m.help_link_id) AS link_hash`, [limit, leaseSeconds]);
}

/** Sent: the row goes, and the device notes when it last got one. */
export async function pushSent(q: Queryable, c: Claimed): Promise<void> {
  await q.query('DELETE FROM push_messages WHERE id = $1', [c.id]);
  await q.query('UPDATE push_subscriptions SET last_sent_at = now() WHERE id = $1', [c.subscription_id]);
}

export async function retryPushLater(q: Queryable, id: string, waitMs: number): Promise<void> {
  await q.query(`UPDATE push_messages SET next_attempt_at = now() + $2 * interval '1 millisecond' WHERE id = $1`, [id, waitMs]);
}

export async function dropPush(q: Queryable, id: string): Promise<void> {
  await q.query('DELETE FROM push_messages WHERE id = $1', [id]);
}

/** Milliseconds until the next notification falls due (null: none queued). */
export async function nextPushDue(q: Queryable): Promise<number | null> {
  const [row] = await q.query<{ ms: number | null }>('SELECT extract(epoch FROM (min(next_attempt_at) - now())) * 1000 AS ms FROM push_messages');
  return row?.ms === null || row?.ms === undefined ? null : Number(row.ms);
}
