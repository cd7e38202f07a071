// The agent's chat feed: messages written as steps happen, pushed to `agent:<id>:messages`.
import type { Queryable } from '../db/db.ts';
import type { EventEmitter } from 'node:events';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import { TOPICS } from '../realtime/topics.ts';

export type MessageRole = 'user' | 'assistant' | 'reasoning' | 'tool_call' | 'warning' | 'error';
export type NewMessage = {
  agent_id: number;
  thread_id: number | null;
  role: MessageRole;
  user_data?: { text: string; files?: string[] } | null;
  assistant_data?: { text: string; [k: string]: unknown } | null;
  /** The run that wrote it, if a run did. */
  run_id?: number | null;
};

const COLUMNS = 'id, agent_id, thread_id, role, user_data, assistant_data, run_id, created_at';

export async function addMessage(db: Queryable, bus: Bus, m: NewMessage) {
  const [message] = await db.query(
    `INSERT INTO chat_messages (agent_id, thread_id, role, user_data, assistant_data, run_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [m.agent_id, m.thread_id, m.role, m.user_data ? JSON.stringify(m.user_data) : null, m.assistant_data ? JSON.stringify(m.assistant_data) : null,
      m.run_id ?? null]);
  announceMessage(bus, message);
  return message;
}

/** Replaces a message's assistant_data (a tool call's status); the message, null when it is gone. Tell it with the bus yourself. */
export async function updateAssistantData(db: Queryable, id: number, data: Record<string, unknown>) {
  const [message] = await db.query(`UPDATE chat_messages SET assistant_data = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, JSON.stringify(data)]);
  return message ?? null;
}

export type UserWords = { agent_id: number; thread_id: number; text: string; files: string[] };

/** Users' words in many threads in one statement; call announceMessage for each after the commit. */
export async function insertUserMessages(db: Queryable, words: UserWords[]) {
  return db.query(
    `INSERT INTO chat_messages (agent_id, thread_id, role, user_data)
     SELECT agent_id, thread_id, 'user', jsonb_build_object('text', text, 'files', files)
     FROM jsonb_to_recordset($1::jsonb) AS m(agent_id int, thread_id int, text text, files jsonb)
     RETURNING ${COLUMNS}`,
    [JSON.stringify(words)]);
}

/** A desktop's home or /tmp that filled up ('storage-full' of the local desktops): its owner reads why in the agent's chat. */
export function tellWhenStorageFull(desktops: Pick<EventEmitter, 'on'>, db: Queryable, bus: Bus, log: Pick<Log, 'error'>): void {
  desktops.on('storage-full', (agentId: number, part: 'home' | '/tmp', sizeMb: number) => {
    const text = `The desktop's ${part} is full (${sizeMb} MB): programs on it cannot save files until something there is deleted.`;
    addMessage(db, bus, { agent_id: agentId, thread_id: null, role: 'warning', assistant_data: { text } })
      .catch((err) => log.error(`desktop ${agentId}: could not tell that its ${part} is full: ${(err as Error).message}`));
  });
}

/**
 * A home over AGENT_HOME_MB is not checkpointed ('too-large' of the home checkpoints): told in the agent's chat, where
 * its owner reads the desktop's other troubles (a full home, above), once until it fits again.
 */
export function tellWhenHomeTooLarge(checkpoints: Pick<EventEmitter, 'on'>, db: Queryable, bus: Bus, log: Pick<Log, 'error'>): void {
  checkpoints.on('too-large', (agentId: number, homeMb: string, limitMb: number) => {
    const text = `The desktop's home holds ${homeMb} MB, more than the ${limitMb} MB that are kept: it is not saved when the desktop `
      + 'stops, and a restart elsewhere starts from its last saved state. Delete files from it to have it saved again.';
    addMessage(db, bus, { agent_id: agentId, thread_id: null, role: 'warning', assistant_data: { text } })
      .catch((err) => log.error(`desktop ${agentId}: could not tell that its home is too large: ${(err as Error).message}`));
  });
}

export function announceMessage(bus: Bus, message: Record<string, any>): void {
  bus.publish(TOPICS.agentMessages(message.agent_id), { type: 'created', agent_id: message.agent_id, message_id: message.id, message });
}

export async function listMessages(db: Queryable, agentId: number, page: number, pageSize: number) {
  const messages = await db.query(
    `SELECT ${COLUMNS} FROM chat_messages WHERE agent_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
    [agentId, pageSize, (page - 1) * pageSize]);
  const [{ total_count }] = await db.query<{ total_count: number }>('SELECT count(*)::int AS total_count FROM chat_messages WHERE agent_id = $1', [agentId]);
  return { messages, total_count, page, page_size: pageSize };
}

export async function latestMessages(db: Queryable, agentId: number, limit: number) {
  return db.query(`SELECT ${COLUMNS} FROM chat_messages WHERE agent_id = $1 ORDER BY id DESC LIMIT $2`, [agentId, limit]);
}
