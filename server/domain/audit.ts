// The audit trail's writing side: record() appends one event inside the caller's transaction (so a change
// never lands without its event, and a refused or failed one leaves none), and the retention prune.
// Who acted comes from the request context, which a transaction begun on the request's database carries
// (server/db/request-db.ts), unless the event names its actor.
// Call record() as the transaction's last statement: it locks the chain's head until the commit, so appends
// from concurrent transactions queue there instead of taking other rows' locks in another order.
import { hostname } from 'node:os';
import { prepared, type Db, type Queryable } from '../db/db.ts';

/** Which server wrote the event. */
export const INSTANCE = `${hostname()}:${process.pid}`;

export type ActorType = 'user' | 'agent' | 'system';
export type Actor = { type: ActorType; id?: number | null; label?: string | null };
export type TargetType = 'user' | 'agent' | 'thread' | 'message' | 'schedule' | 'recording' | 'file' | 'audit';
export type AuditEvent = {
  /** Dotted: `agent.delete`, `mail.approve`, … (README, "Audit trail", lists them all). */
  action: string;
  target?: { type: TargetType; id: number | string } | null;
  /** What changed, from and to; never secrets or message bodies (keys that look like secrets are dropped). */
  detail?: Record<string, unknown>;
  /** Default: the request's user (and the admin behind an impersonation), else the system. */
  actor?: Actor;
  /**
   * Caused by background work (runner, sender, timers), which may run inside the request that woke it: the
   * request's id, address and user agent are not this event's.
   */
  background?: boolean;
};

const APPEND = prepared('audit.append', `WITH head AS (
    SELECT last_hash, nextval('audit_events_id_seq') AS id, greatest(clock_timestamp(), last_at) AS at FROM audit_chain WHERE id = 1 FOR UPDATE
  ), ev AS (
    INSERT INTO audit_events (id, at, instance, actor_type, actor_id, actor_label, impersonator_id, impersonator_label, action,
      target_type, target_id, request_id, ip, user_agent, detail, prev_hash, hash)
    SELECT head.id, head.at, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, head.last_hash,
      audit_event_hash(head.last_hash, head.id, head.at, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb)
    FROM head RETURNING id, hash, at
  )
  UPDATE audit_chain c SET last_id = ev.id, last_hash = ev.hash, last_at = ev.at FROM ev WHERE c.id = 1 RETURNING ev.id`);

const SECRET_KEY = /password|secret|token|cookie|authorization/i;

/** Drops secret-looking keys at any depth. */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !SECRET_KEY.test(k)).map(([k, v]) => [k, clean(v)]));
}

/** Appends the event in the caller's transaction; its id. */
export async function record(q: Queryable, event: AuditEvent): Promise<number> {
  const context = event.background ? undefined : q.context;
  const acting = context?.user;
  const real = context?.realUser;
  const actor: Actor = event.actor ?? (acting ? { type: 'user', id: acting.id, label: acting.email } : { type: 'system' });
  // The admin behind an impersonation is named on every event the impersonated user's request causes.
  const impersonator = real && acting && real.id !== acting.id && actor.type === 'user' && actor.id === acting.id ? real : null;
  const [row] = await q.query<{ id: number }>(APPEND, [
    INSTANCE, actor.type, actor.id ?? null, actor.label ?? null, impersonator?.id ?? null, impersonator?.email ?? null, event.action,
    event.target?.type ?? null, event.target ? String(event.target.id) : null,
    context?.requestId ?? null, context?.ip ?? null, context?.userAgent?.slice(0, 500) ?? null, JSON.stringify(clean(event.detail ?? {})),
  ]);
  if (context) context.recorded++;
  return Number(row.id);
}

/** Records an event on its own (a fact with no other change: a failed sign-in, a sign-out). */
export function recordAlone(db: Db, event: AuditEvent): Promise<number> {
  return db.tx((q) => record(q, event));
}

export const SYSTEM: Actor = { type: 'system' };

/**
 * Deletes the events older than `days` (a prefix of the chain), recorded as an `audit.prune` event, and anchors
 * the chain at the first event that remains: verify then starts there. Nothing to delete: no event.
 */
export async function pruneAudit(db: Db, days: number, now = new Date()): Promise<{ deleted: number; anchorId: number } | null> {
  const before = new Date(now.getTime() - days * 86_400_000);
  return db.tx(async (q) => {
    const [old] = await q.query<{ n: number; last: number | null }>('SELECT count(*)::int AS n, max(id) AS last FROM audit_events WHERE at < $1', [before]);
    if (!old.n) return null;
    const last = Number(old.last);
    await record(q, {
      actor: SYSTEM, background: true, action: 'audit.prune', target: { type: 'audit', id: last },
      detail: { retention_days: days, before: before.toISOString(), deleted: old.n, through_id: last },
    });
    const [anchor] = await q.query<{ id: number; prev_hash: string }>(
      'SELECT id, prev_hash FROM audit_events WHERE id > $1 ORDER BY id LIMIT 1', [last]);
    await q.query("SELECT set_config('audit.prune', 'on', true)");
    const [deleted] = await q.query<{ n: number }>('WITH d AS (DELETE FROM audit_events WHERE id <= $1 RETURNING 1) SELECT count(*)::int AS n FROM d', [last]);
    await q.query("SELECT set_config('audit.prune', 'off', true)");
    await q.query('UPDATE audit_chain SET anchor_id = $1, anchor_hash = $2 WHERE id = 1', [anchor.id, anchor.prev_hash]);
    return { deleted: deleted.n, anchorId: Number(anchor.id) };
  });
}
