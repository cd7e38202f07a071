// Many audit events at once, appended as record() would (the keyed hash computed here, the chain's head moved once),
// for the volume tests and the audit bench: one transaction, rows inserted from arrays 10,000 at a time.
import type { Db } from '../../server/db/db.ts';
import { eventHash, type ChainedEvent } from '../../server/audit/hash.ts';

/** An event without its id; `at` as UTC text with microseconds (or milliseconds), `detail` as any JSON text. */
export type BulkEvent = Omit<ChainedEvent, 'id'>;

const COLUMNS = ['id', 'at', 'instance', 'actor_type', 'actor_id', 'actor_label', 'impersonator_id', 'impersonator_label', 'action',
  'target_type', 'target_id', 'request_id', 'ip', 'user_agent', 'detail', 'prev_hash', 'hash'] as const;
const TYPES = ['bigint', 'timestamptz', 'text', 'text', 'bigint', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text',
  'jsonb', 'text', 'text'];
const INSERT = `INSERT INTO audit_events (${COLUMNS.join(', ')})
  SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;

/** Appends the events in order with the process's audit key (a test server or useAuditKey set it). */
export async function appendBulk(db: Db, events: BulkEvent[], slice = 10_000): Promise<void> {
  await db.tx(async (q) => {
    let [{ last_hash: prev }] = await q.query<{ last_hash: string }>('SELECT last_hash FROM audit_chain WHERE id = 1 FOR UPDATE');
    let last: ChainedEvent | null = null;
    for (let from = 0; from < events.length; from += slice) {
      const part = events.slice(from, from + slice);
      // The ids from the sequence, and each detail as jsonb's own text and `at` as verify reads it back (what the hash covers).
      const canon = await q.query<{ id: number | string; detail: string; at: string }>(
        `SELECT nextval('audit_events_id_seq') AS id, d::jsonb::text AS detail,
           to_char(a::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(d, a, n) ORDER BY n`, [part.map((e) => e.detail), part.map((e) => e.at)]);
      const rows = part.map((e, i) => {
        const row: ChainedEvent & { prev_hash: string; hash: string } = { ...e, ...canon[i], prev_hash: prev, hash: '' };
        row.hash = prev = eventHash(prev, row);
        return row;
      });
      await q.query(INSERT, COLUMNS.map((c) => rows.map((r) => r[c])));
      last = rows[rows.length - 1];
    }
    if (last) await q.query('UPDATE audit_chain SET last_id = $1, last_hash = $2, last_at = $3 WHERE id = 1', [last.id, prev, last.at]);
  });
}
