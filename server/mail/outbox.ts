// The outbound sender's queries: claim the next due queued message so that one instance alone
// sends it (a lease pushed into next_attempt_at under FOR UPDATE SKIP LOCKED), then record the
// outcome: success, a retry later, or dead.
import type { Db, Queryable } from '../db/db.ts';
import { record, SYSTEM } from '../audit/audit.ts';

export type OutboundMail = {
  id: number; thread_id: number; agent_id: number; from_address: string; to_address: string; subject: string; text: string;
  message_id: string | null; in_reply_to: string | null; reference_ids: string; attempts: number;
};

/**
 * The next queued message whose time has come, with its attempt counted; null when none is due.
 * While this instance sends it, its next_attempt_at is `leaseMs` ahead: another instance skips it,
 * and only if this one dies mid-send does the message become due again.
 */
export async function claimDue(q: Queryable, leaseMs: number): Promise<OutboundMail | null> {
  const [row] = await q.query<OutboundMail>(
    `UPDATE comm_messages c SET attempts = attempts + 1, next_attempt_at = now() + $1 * interval '1 millisecond', updated_at = now()
     FROM threads t
     WHERE c.id = (SELECT id FROM comm_messages WHERE outbound_state = 'queued' AND next_attempt_at <= now()
                   ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       AND c.outbound_state = 'queued' AND t.id = c.thread_id
     RETURNING c.id, c.thread_id, t.agent_id, c.from_address, c.to_address, c.subject, c.text, c.message_id, c.in_reply_to,
       c.reference_ids, c.attempts`, [leaseMs]);
  return row ?? null;
}

export async function markSent(db: Db, mail: OutboundMail): Promise<void> {
  await db.tx(async (q) => {
    await q.query(
      `UPDATE comm_messages SET outbound_state = 'success', sent_at = now(), last_error = NULL, next_attempt_at = NULL, updated_at = now()
       WHERE id = $1`, [mail.id]);
    await record(q, { action: 'mail.send', actor: SYSTEM, background: true, target: { type: 'message', id: mail.id }, detail: outcome(mail) });
  });
}

const outcome = (mail: OutboundMail) => ({ to: mail.to_address, subject: mail.subject, thread_id: mail.thread_id, attempts: mail.attempts });

/** Records a failed attempt: tried again after `retryInMs`, or dead when that is null. */
export async function markFailed(db: Db, mail: OutboundMail, error: string, retryInMs: number | null): Promise<void> {
  await db.tx(async (q) => {
    await markAttempt(q, mail.id, error, retryInMs);
    // Given up on: on the record (a retry is not a change anyone decided).
    if (retryInMs === null) {
      await record(q, { action: 'mail.dead', actor: SYSTEM, background: true, target: { type: 'message', id: mail.id }, detail: outcome(mail) });
    }
  });
}

async function markAttempt(q: Queryable, id: number, error: string, retryInMs: number | null): Promise<void> {
  await q.query(
    `UPDATE comm_messages SET last_error = $2, updated_at = now(),
       outbound_state = CASE WHEN $3::bigint IS NULL THEN 'dead' ELSE outbound_state END,
       next_attempt_at = CASE WHEN $3::bigint IS NULL THEN NULL ELSE now() + $3::bigint * interval '1 millisecond' END
     WHERE id = $1`, [id, error.slice(0, 2000), retryInMs]);
}

/** Milliseconds until the earliest queued message is due (0 when one is due now), or null when none is queued. */
export async function msUntilNextDue(q: Queryable): Promise<number | null> {
  // Not GREATEST(0, …) in SQL: GREATEST skips NULLs, so an empty queue would read as "due now"
  // and the sender would spin.
  const [row] = await q.query<{ ms: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM (min(next_attempt_at) - now())) * 1000)::float8 AS ms
     FROM comm_messages WHERE outbound_state = 'queued'`);
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}
