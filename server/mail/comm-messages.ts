// Communication messages (spec §3, §4 "Outbound message"): mail received on a thread, and the
// agent's drafts that wait in requires_approval until an admin edits, queues or deletes them. A
// thread needs approval while one of its messages does. The sender's claim queries are in outbox.ts.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { idnView } from './idn.ts';
import { record } from '../audit/audit.ts';
import type { AuditAction } from '../audit/actions.ts';
import { TOPICS } from '../realtime/topics.ts';
import { queueThreadEvent, wakeDeliveries } from '../webhooks/index.ts';

export type OutboundState = 'success' | 'requires_approval' | 'queued' | 'dead';

const COLUMNS = `id, thread_id, role, outbound_state, text, files, created_at, from_address, to_address, subject,
  attempts, last_error, sent_at, sender_verified, sender_auth, held_reason`;

/** The admin API's shape: files by name, as the spec lists them. */
function present(row: Record<string, any>) {
  const { thread_id, ...rest } = row;
  return {
    ...rest, files: (row.files as string[]).map((f) => f.split('/').pop()!),
    // An IDN recipient or sender: the Unicode form a person reads, and mixed scripts to warn about.
    to_idn: idnView(row.to_address), from_idn: idnView(row.from_address),
  };
}

export function newMessageId(mailDomain: string): string {
  return `<${randomUUID()}@${mailDomain}>`;
}

export type Inbound = {
  threadId: number; from: string; to: string; subject: string; text: string; files: string[];
  messageId: string | null; inReplyTo: string | null; references: string[];
  /** null: not checked (MAIL_AUTH=off). */
  senderVerified: boolean | null; senderAuth: string;
  /** Why the mail did not start a run by itself, or null when it did. */
  held: HeldReason | null;
};
export type HeldReason = 'unverified' | 'rate';

export async function insertInbound(q: Queryable, m: Inbound): Promise<void> {
  await q.query(
    `INSERT INTO comm_messages (thread_id, role, from_address, to_address, subject, text, files, message_id, in_reply_to, reference_ids,
       sender_verified, sender_auth, held_reason)
     VALUES ($1, 'inbound', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [m.threadId, m.from, m.to, m.subject, m.text, JSON.stringify(m.files), m.messageId, m.inReplyTo, m.references.join(' '),
      m.senderVerified, m.senderAuth, m.held]);
}

/** Mail that started (or queued) a run of the agent in the last hour. */
export async function countMailRuns(q: Queryable, agentId: number): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM comm_messages c JOIN threads t ON t.id = c.thread_id
     WHERE c.role = 'inbound' AND c.held_reason IS NULL AND c.created_at > now() - interval '1 hour' AND t.agent_id = $1`, [agentId]);
  return row.n;
}

/** The agent's thread holding one of these Message-IDs (the newest such message wins), or null. */
export async function findReplyThread(q: Queryable, agentId: number, messageIds: string[]): Promise<number | null> {
  if (!messageIds.length) return null;
  const [row] = await q.query<{ thread_id: number }>(
    `SELECT c.thread_id FROM comm_messages c JOIN threads t ON t.id = c.thread_id
     WHERE c.message_id = ANY($1::text[]) AND t.agent_id = $2 ORDER BY c.id DESC LIMIT 1`, [messageIds, agentId]);
  return row?.thread_id ?? null;
}

export type Draft = { threadId: number; agentId: number; from: string; to: string; subject: string; text: string; mailDomain: string };

/** The email tool's draft: waits for approval and marks the thread; answers the thread's last inbound mail. */
export async function draftOutbound(db: Db, bus: Bus, d: Draft): Promise<{ id: number }> {
  const row = await db.tx(async (q) => {
    const [last] = await q.query<{ message_id: string; reference_ids: string; subject: string }>(
      `SELECT message_id, reference_ids, subject FROM comm_messages WHERE thread_id = $1 AND role = 'inbound' AND message_id IS NOT NULL
       ORDER BY id DESC LIMIT 1`, [d.threadId]);
    const subject = d.subject.trim() || (last ? reSubject(last.subject) : '');
    const references = last ? `${last.reference_ids} ${last.message_id}`.trim() : '';
    const [m] = await q.query<{ id: number }>(
      `INSERT INTO comm_messages (thread_id, role, outbound_state, from_address, to_address, subject, text, message_id, in_reply_to, reference_ids)
       VALUES ($1, 'outbound', 'requires_approval', $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [d.threadId, d.from, d.to, subject, d.text, newMessageId(d.mailDomain), last?.message_id ?? null, references]);
    await q.query('UPDATE threads SET approval_required = true, updated_at = now() WHERE id = $1', [d.threadId]);
    await record(q, {
      action: 'mail.draft', actor: { type: 'agent', id: d.agentId }, background: true, target: { type: 'message', id: m.id },
      detail: { to: d.to, subject, thread_id: d.threadId, agent_id: d.agentId, chars: d.text.length },
    });
    await queueThreadEvent(q, 'mail.awaiting_approval', d.threadId, null, { message_id: m.id, to: d.to, subject });
    return m;
  });
  bus.publish(TOPICS.agentChanged(d.agentId), { agent_id: d.agentId });
  wakeDeliveries(bus);
  return row;
}

export type Notice = { threadId: number; agentId: number; to: string; subject: string; text: string; mailDomain: string };

/**
 * Mail from the server itself to an agent's owner (the agent waits for them): queued at once, no approval, sent
 * by the same outbound sender as approved mail (relay or outbox) and listed with the thread's communication.
 */
export async function queueNotice(db: Db, bus: Bus, n: Notice): Promise<{ id: number }> {
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO comm_messages (thread_id, role, outbound_state, from_address, to_address, subject, text, message_id, next_attempt_at)
     VALUES ($1, 'outbound', 'queued', $2, $3, $4, $5, $6, now()) RETURNING id`,
    [n.threadId, `no-reply@${n.mailDomain}`, n.to, n.subject, n.text, newMessageId(n.mailDomain)]);
  bus.publish(TOPICS.mailQueued, { id: row.id });
  bus.publish(TOPICS.agentChanged(n.agentId), { agent_id: n.agentId });
  return row;
}

const reSubject = (subject: string) => (!subject || /^re:/i.test(subject) ? subject : `Re: ${subject}`);

export async function listCommMessages(db: Queryable, threadId: number) {
  const rows = await db.query(`SELECT ${COLUMNS} FROM comm_messages WHERE thread_id = $1 ORDER BY id`, [threadId]);
  return rows.map(present);
}

export async function updateDraftText(db: Db, id: number, text: string) {
  const row = await db.tx(async (q) => {
    const [updated] = await q.query(
      `WITH old AS (SELECT id, length(text) AS n FROM comm_messages WHERE id = $1 AND outbound_state = 'requires_approval' FOR UPDATE)
       UPDATE comm_messages c SET text = $2, updated_at = now() FROM old WHERE c.id = old.id RETURNING old.n AS old_chars, ${prefixed('c.')}`,
      [id, text]);
    if (updated) {
      const { target, detail } = mailEvent(updated);
      await record(q, { action: 'mail.edit', target, detail: { ...detail, from_chars: updated.old_chars, to_chars: text.length } });
    }
    return updated;
  });
  if (!row) await explainRefusal(db, id, 'edited');
  const { old_chars, ...rest } = row;
  return present(rest);
}

const prefixed = (alias: string) => COLUMNS.split(',').map((c) => alias + c.trim()).join(', ');

/** Target and detail of an event about an outbound message (to and subject; never the text). */
function mailEvent(row: Record<string, any>) {
  return { target: { type: 'message' as const, id: row.id }, detail: { to: row.to_address, subject: row.subject, thread_id: row.thread_id } };
}

/** Approves the draft: the sender picks it up at once (woken on the bus). */
export async function queueDraft(db: Db, bus: Bus, id: number) {
  const row = await settleDraft(db, bus, id, 'queued', 'mail.approve', (q) => q.query(
    `UPDATE comm_messages SET outbound_state = 'queued', attempts = 0, next_attempt_at = now(), last_error = NULL, updated_at = now()
     WHERE id = $1 AND outbound_state = 'requires_approval' RETURNING ${COLUMNS}`, [id]));
  bus.publish(TOPICS.mailQueued, { id });
  return present(row);
}

export async function deleteDraft(db: Db, bus: Bus, id: number): Promise<void> {
  await settleDraft(db, bus, id, 'deleted', 'mail.delete', (q) => q.query(
    `DELETE FROM comm_messages WHERE id = $1 AND outbound_state = 'requires_approval' RETURNING ${COLUMNS}`, [id]));
}

/** Runs the change; then the thread needs approval only while another draft of it still waits. */
async function settleDraft(db: Db, bus: Bus, id: number, verb: string, action: AuditAction, change: (q: Queryable) => Promise<Record<string, any>[]>) {
  const result = await db.tx(async (q) => {
    const [row] = await change(q);
    if (!row) return null;
    const [thread] = await q.query<{ agent_id: number }>(
      `UPDATE threads SET approval_required = EXISTS (SELECT 1 FROM comm_messages WHERE thread_id = $1 AND outbound_state = 'requires_approval'),
       updated_at = now() WHERE id = $1 RETURNING agent_id`, [row.thread_id]);
    await record(q, { action, ...mailEvent(row) });
    return { row, agentId: thread.agent_id };
  });
  if (!result) return explainRefusal(db, id, verb);
  bus.publish(TOPICS.agentChanged(result.agentId), { agent_id: result.agentId });
  return result.row;
}

async function explainRefusal(db: Queryable, id: number, verb: string): Promise<never> {
  const [row] = await db.query<{ role: string; outbound_state: string | null }>('SELECT role, outbound_state FROM comm_messages WHERE id = $1', [id]);
  if (!row) throw new HttpError(404, 'Message not found');
  const now = row.role === 'inbound' ? 'it is an inbound message' : `it is ${row.outbound_state?.replace('_', ' ')}`;
  throw new HttpError(409, `Only a message that requires approval can be ${verb}; ${now}`);
}
