// The audit trail's writing side: record() appends one event inside the caller's transaction (so a change
// never lands without its event, and a refused or failed one leaves none), and the retention prune.
// Who acted comes from the request context, which a transaction begun on the request's database carries
// (server/db/request-db.ts), unless the event names its actor.
// Call record() as the transaction's last statement: it locks the chain's head until the commit, so appends
// from concurrent transactions queue there instead of taking other rows' locks in another order.
import { hostname } from 'node:os';
import { prepared, type Db, type Queryable } from '../db/db.ts';
import { eventHash, startSeal, type ChainedEvent, type ChainStart } from './hash.ts';
import type { AuditAction } from './actions.ts';

/** Which server wrote the event: the process's instance id (db/instance.ts), once start() names it. */
let instanceId = `${hostname()}:${process.pid}`;

/** The instance this process's events name (start() sets it; there is one server per process). */
export function useAuditInstance(id: string): void {
  instanceId = id;
}

export type ActorType = 'user' | 'agent' | 'system';
export type Actor = { type: ActorType; id?: number | null; label?: string | null };
export type TargetType = 'user' | 'agent' | 'thread' | 'message' | 'schedule' | 'recording' | 'file' | 'audit' | 'run' | 'credential' | 'token' | 'webhook'
  | 'push_device';
export type AuditEvent = {
  /** Dotted: `agent.delete`, `mail.approve`, … (audit-actions.ts lists them all). */
  action: AuditAction;
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

// Two statements around the hash, which is keyed and computed here (audit-hash.ts): the head, locked, gives the
// event its id, time and the jsonb text of its detail; then the event goes in and the head moves to it.
const HEAD = prepared('audit.head', `SELECT last_hash, nextval('audit_events_id_seq') AS id,
    to_char(greatest(clock_timestamp(), last_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, $1::jsonb::text AS detail
  FROM audit_chain WHERE id = 1 FOR UPDATE`);
const APPEND = prepared('audit.append', `WITH ev AS (
    INSERT INTO audit_events (id, at, instance, actor_type, actor_id, actor_label, impersonator_id, impersonator_label, action,
      target_type, target_id, request_id, ip, user_agent, detail, prev_hash, hash)
    VALUES ($1, $2::timestamptz, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16, $17)
  )
  UPDATE audit_chain SET last_id = $1, last_hash = $17, last_at = $2::timestamptz WHERE id = 1`);

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
  // As the database will give it back: UTF-8 (a lone surrogate becomes U+FFFD).
  const text = (v: string | null | undefined) => (v === null || v === undefined ? null : Buffer.from(v, 'utf8').toString('utf8'));
  const [head] = await q.query<{ last_hash: string; id: number | string; at: string; detail: string }>(HEAD, [
    JSON.stringify(clean(event.detail ?? {})),
  ]);
  const e: ChainedEvent = {
    id: head.id, at: head.at, instance: instanceId, actor_type: actor.type, actor_id: actor.id ?? null, actor_label: text(actor.label),
    impersonator_id: impersonator?.id ?? null, impersonator_label: text(impersonator?.email), action: event.action,
    target_type: event.target?.type ?? null, target_id: event.target ? text(String(event.target.id)) : null,
    request_id: text(context?.requestId), ip: text(context?.ip), user_agent: text(context?.userAgent?.slice(0, 500)), detail: head.detail,
  };
  const hash = eventHash(head.last_hash, e);
  await q.query(APPEND, [e.id, e.at, e.instance, e.actor_type, e.actor_id, e.actor_label, e.impersonator_id, e.impersonator_label, e.action,
    e.target_type, e.target_id, e.request_id, e.ip, e.user_agent, e.detail, head.last_hash, hash]);
  if (context) context.recorded++;
  return Number(e.id);
}

/** Records an event on its own (a fact with no other change: a failed sign-in, a sign-out). */
export function recordAlone(db: Db, event: AuditEvent): Promise<number> {
  return db.tx((q) => record(q, event));
}

/**
 * A change made while an admin impersonates a user that wrote no event of its own: its method and route, on the
 * request's database (which names the user and the admin). The route table calls it once the change succeeded.
 */
export async function recordImpersonatedChange(db: Db, change: { userId: number; method: string; route: string | undefined }): Promise<void> {
  const { userId, method, route } = change;
  await recordAlone(db, { action: 'impersonation.request', target: { type: 'user', id: userId }, detail: { method, route } });
}

export const SYSTEM: Actor = { type: 'system' };

/**
 * Deletes the events older than `days` (a prefix of the chain), recorded as an `audit.prune` event, and anchors
 * the chain at the first event that remains: verify then starts there. Nothing to delete: no event.
 * The database lets a transaction delete only the events an `audit.prune` event of its own covers (migration 015),
 * and the new start is sealed with the chain's key: a delete without the key shows in verify.
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
    const [deleted] = await q.query<{ n: number }>('WITH d AS (DELETE FROM audit_events WHERE id <= $1 RETURNING 1) SELECT count(*)::int AS n FROM d', [last]);
    const [chain] = await q.query<ChainStart>('SELECT keyed_from, legacy_hash FROM audit_chain WHERE id = 1');
    const start: ChainStart = { ...chain, anchor_id: Number(anchor.id), anchor_hash: anchor.prev_hash };
    await q.query('UPDATE audit_chain SET anchor_id = $1, anchor_hash = $2, seal = $3 WHERE id = 1', [anchor.id, anchor.prev_hash, startSeal(start)]);
    return { deleted: deleted.n, anchorId: Number(anchor.id) };
  });
}
