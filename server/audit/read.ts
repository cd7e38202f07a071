// The audit trail's reading side: filtered pages (newest first, keyset cursor), batches for the export, and
// verify, which recomputes every event's keyed hash here (audit-hash.ts) and follows the chain from its sealed anchor.
import type { Queryable } from '../db/db.ts';
import { auditKey, eventHash, isGenesis, legacyHash, startSeal, type ChainStart } from './hash.ts';

export type AuditFilter = {
  /** A user id (as actor or impersonator), an e-mail (same), `system`, or `agent:<id>`. */
  actor?: string | null;
  /** An action, or a prefix ending in '.' (`mail.`). */
  action?: string | null;
  target_type?: string | null;
  target_id?: string | null;
  since?: Date | null;
  until?: Date | null;
  /** Events older than this id (the previous page's next_cursor). */
  cursor?: number | null;
};

export type AuditRow = {
  id: number; at: string; instance: string; actor_type: string; actor_id: number | null; actor_label: string | null;
  impersonator_id: number | null; impersonator_label: string | null; action: string; target_type: string | null;
  target_id: string | null; request_id: string | null; ip: string | null; user_agent: string | null;
  detail: Record<string, unknown>; prev_hash: string; hash: string;
};

export const PAGE_SIZE = 50;
const COLUMNS = `id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, instance, actor_type, actor_id, actor_label,
  impersonator_id, impersonator_label, action, target_type, target_id, request_id, ip, user_agent, detail, prev_hash, hash`;

function where(f: AuditFilter): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  const actor = f.actor?.trim();
  if (actor) {
    if (actor === 'system') clauses.push("actor_type = 'system'");
    else if (/^agent:\d+$/.test(actor)) clauses.push(`actor_type = 'agent' AND actor_id = ${p(Number(actor.slice(6)))}`);
    else if (/^\d+$/.test(actor)) {
      const id = p(Number(actor));
      clauses.push(`((actor_type = 'user' AND actor_id = ${id}) OR impersonator_id = ${id})`);
    } else {
      const email = p(actor.toLowerCase());
      clauses.push(`(lower(actor_label) = ${email} OR lower(impersonator_label) = ${email})`);
    }
  }
  const action = f.action?.trim();
  if (action) {
    // A prefix as LIKE 'mail.%', which the (action text_pattern_ops, id) index serves.
    if (action.endsWith('.')) clauses.push(`action LIKE ${p(action.replace(/[\\%_]/g, (c) => '\\' + c) + '%')}`);
    else clauses.push(`action = ${p(action)}`);
  }
  if (f.target_type) clauses.push(`target_type = ${p(f.target_type)}`);
  if (f.target_id) clauses.push(`target_id = ${p(f.target_id)}`);
  // Times never go back along the ids (audit_chain.last_at), so a time range is also an id range: its ends are
  // found on the (at, id) index, and the page is read from the primary key between them.
  if (f.since) {
    const since = p(f.since);
    clauses.push(`at >= ${since} AND id >= (SELECT id FROM audit_events WHERE at >= ${since} ORDER BY at, id LIMIT 1)`);
  }
  if (f.until) {
    const until = p(f.until);
    clauses.push(`at < ${until} AND id <= (SELECT id FROM audit_events WHERE at < ${until} ORDER BY at DESC, id DESC LIMIT 1)`);
  }
  if (f.cursor) clauses.push(`id < ${p(f.cursor)}`);
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/**
 * An e-mail that names an account is read as that user's id (indexed as actor and as impersonator); one that names
 * none (a deleted account, a failed sign-in's address) is matched against the labels the events kept.
 */
async function resolveActor(db: Queryable, filter: AuditFilter): Promise<AuditFilter> {
  const actor = filter.actor?.trim();
  if (!actor || actor === 'system' || /^(agent:)?\d+$/.test(actor)) return filter;
  const [user] = await db.query<{ id: number }>('SELECT id FROM users WHERE lower(email) = lower($1)', [actor]);
  return user ? { ...filter, actor: String(user.id) } : filter;
}

/** One page, newest first; next_cursor is null on the last page. */
export async function listAudit(db: Queryable, filter: AuditFilter, limit = PAGE_SIZE): Promise<{ events: AuditRow[]; next_cursor: string | null }> {
  const { sql, params } = where(await resolveActor(db, filter));
  const rows = await db.query<AuditRow>(`SELECT ${COLUMNS} FROM audit_events ${sql} ORDER BY id DESC LIMIT ${limit + 1}`, params);
  const events = rows.slice(0, limit).map((r) => ({ ...r, id: Number(r.id) }));
  return { events, next_cursor: rows.length > limit ? String(events[events.length - 1].id) : null };
}

/** Every matching event, newest first, `batch` rows at a time (the export streams these). */
export async function* auditBatches(db: Queryable, asked: AuditFilter, batch = 1000): AsyncGenerator<AuditRow[]> {
  const filter = await resolveActor(db, asked);
  let cursor = filter.cursor ?? null;
  for (;;) {
    const { events, next_cursor } = await listAudit(db, { ...filter, cursor }, batch);
    if (events.length) yield events;
    if (!next_cursor) return;
    cursor = Number(next_cursor);
  }
}

export type Verdict = { ok: boolean; checked: number; first_bad_id: number | null };

type ChainRow = AuditRow & { detail_text: string; legacy_text: string | null };

/**
 * Recomputes each event's keyed hash (audit-hash.ts) and checks that it names the one before it: the first event
 * must start at the chain's anchor (the genesis, or the first event a prune left), whose seal only the key makes,
 * and the head's event must be there with its hash. Events newer than the head (appended while verify reads) are
 * checked too: one that was not made with the key fails like any other.
 */
export async function verifyAudit(db: Queryable, batch = 5000): Promise<Verdict> {
  const key = auditKey();
  const [head] = await db.query<ChainStart & { last_id: number; last_hash: string; seal: string }>(
    'SELECT last_id, last_hash, anchor_id, anchor_hash, keyed_from, legacy_hash, seal FROM audit_chain WHERE id = 1');
  const lastId = Number(head.last_id);
  const anchorId = Number(head.anchor_id);
  const keyedFrom = Number(head.keyed_from);
  const sealed = isGenesis(head) || head.seal === startSeal(head, key);
  let checked = 0;
  let expectPrev: string | null = null;
  let after = 0;
  let seen = 0;
  let headSeen = lastId === 0;
  const bad = (id: number): Verdict => ({ ok: false, checked, first_bad_id: id });
  for (;;) {
    const rows = await db.query<ChainRow>(
      `SELECT ${COLUMNS}, detail::text AS detail_text, CASE WHEN id < $2 THEN jsonb_build_array(id, (extract(epoch FROM at) * 1000000)::bigint,
         instance, actor_type, actor_id, actor_label, impersonator_id, impersonator_label, action, target_type, target_id, request_id, ip,
         user_agent, detail)::text END AS legacy_text
       FROM audit_events WHERE id > $1 ORDER BY id LIMIT ${batch}`, [after, keyedFrom]);
    for (const row of rows) {
      const id = Number(row.id);
      if (expectPrev === null) {
        // The first event: the chain's start (genesis '' before any prune, else the anchor a prune left and sealed).
        const startsRight = anchorId ? id === anchorId && row.prev_hash === head.anchor_hash : row.prev_hash === '';
        if (!sealed || !startsRight) return bad(id);
      } else if (row.prev_hash !== expectPrev) return bad(id);
      // Written before the chain was keyed: unkeyed, but the last of them is sealed (legacy_hash), so none can change.
      const legacy = id < keyedFrom;
      if (!legacy && seen && seen < keyedFrom && row.prev_hash !== head.legacy_hash) return bad(id);
      const hash = legacy ? legacyHash(row.prev_hash, row.legacy_text ?? '') : eventHash(row.prev_hash, { ...row, detail: row.detail_text }, key);
      if (hash !== row.hash) return bad(id);
      if (id === lastId) headSeen = row.hash === head.last_hash;
      expectPrev = row.hash;
      checked++;
      seen = id;
    }
    if (rows.length < batch) break;
    after = seen;
  }
  if (!sealed || (anchorId && !seen)) return bad(anchorId || seen);
  if (seen && seen < keyedFrom && expectPrev !== head.legacy_hash) return bad(seen);
  // The event the head names must be there (a deleted or replaced tail shows here).
  if (!headSeen) return bad(lastId);
  return { ok: true, checked, first_bad_id: null };
}

/** Events kept by action, for /api/metrics: the counts the appends and prunes keep (migration 019), not a count. */
export async function countByAction(db: Queryable): Promise<{ action: string; n: number }[]> {
  return db.query<{ action: string; n: number }>('SELECT action, n::int AS n FROM audit_counts WHERE n > 0 ORDER BY action');
}
