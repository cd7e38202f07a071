// Threads, their steps and the agent's run queue. The queue is each agent's scheduled threads
// numbered 1..n without gaps (1 runs next); every change renumbers inside one transaction
// that first locks the agent row, so concurrent changes cannot interleave.
import { prepared, type Db, type Queryable } from '../db/db.ts';
import { cachedRead } from '../db/read-cache.ts';
import { JsonText } from '../http/json-text.ts';
import type { Bus } from '../realtime/bus.ts';
import { PENDING_APPROVAL, THREAD_COLUMNS } from '../agents/agents.ts';
import { announceMessage, insertUserMessages } from './messages.ts';
import { STEP_COLUMNS, type StepImage } from './steps.ts';
import { record } from '../audit/audit.ts';
import { announceAnswered, answerHelp } from './needs-help.ts';
import { TOPICS } from '../realtime/topics.ts';

export const FILES_ONLY_TEXT = 'Files uploaded';

export async function getThread(db: Queryable, id: number) {
  return (await db.query(`SELECT ${THREAD_COLUMNS}, ${PENDING_APPROVAL} FROM threads WHERE id = $1`, [id]))[0] ?? null;
}

export async function threadExists(db: Queryable, id: number): Promise<boolean> {
  return (await db.query('SELECT 1 FROM threads WHERE id = $1', [id])).length > 0;
}

/** The thread's name ('' when unnamed); null for no such thread. */
export async function getThreadName(db: Queryable, id: number): Promise<string | null> {
  return (await db.query<{ name: string }>('SELECT name FROM threads WHERE id = $1', [id]))[0]?.name ?? null;
}

// One round trip, and the database writes the JSON: each step's is stored when the step is written
// (page_json, migration 008), so a page of 500 steps joins stored text. The page's newest sequence is
// found in the (thread_id, sequence) index alone (an index-only scan skips `offset` entries without
// reading rows), then only the page's rows are read. Sequences are unique per thread, so these are
// the same rows in the same order as ORDER BY sequence DESC LIMIT/OFFSET. A thread's sequences run
// 1..n without gaps (each step takes max + 1 under the thread's lock; steps go only with their thread),
// so the count is the newest sequence, one index entry: a page costs the same at 10 steps and 10,000.
export const LIST_STEPS = prepared('threads.list-steps', `SELECT
  coalesce((SELECT sequence FROM thread_steps WHERE thread_id = $1 ORDER BY sequence DESC LIMIT 1), 0) AS total_count,
  coalesce((SELECT '[' || string_agg(s.page_json, ',' ORDER BY s.sequence) || ']' FROM (
    SELECT sequence, page_json FROM thread_steps WHERE thread_id = $1
      AND sequence <= (SELECT sequence FROM thread_steps WHERE thread_id = $1 ORDER BY sequence DESC LIMIT 1 OFFSET $3)
    ORDER BY sequence DESC LIMIT $2) s), '[]') AS steps`);

/** The newest `limit` steps (after skipping `offset` newer ones), oldest first, as `{steps, total_count}` JSON. */
export async function listSteps(db: Queryable, threadId: number, limit: number, offset: number): Promise<JsonText> {
  return cachedSteps(db, `${threadId} ${limit} ${offset}`);
}

const cachedSteps = cachedRead(async (db, key) => {
  const [row] = await db.query<{ total_count: number; steps: string }>(LIST_STEPS, key.split(' ').map(Number));
  return new JsonText(`{"steps":${row.steps},"total_count":${row.total_count}}`);
});

/** A new empty thread, told to the agent's views. */
export async function createThread(db: Queryable, bus: Bus, agentId: number, fields: { name?: string; description?: string } = {}) {
  const thread = await insertThread(db, agentId, fields);
  changed(bus, agentId);
  return thread;
}

/** createThread's write, inside the caller's transaction (announceScheduled or announceInput after the commit tells). */
export async function insertThread(q: Queryable, agentId: number, fields: { name?: string; description?: string } = {}) {
  const [thread] = await q.query(
    `INSERT INTO threads (agent_id, name, description) VALUES ($1, $2, $3) RETURNING ${THREAD_COLUMNS}`,
    [agentId, (fields.name ?? '').trim().slice(0, 200), (fields.description ?? '').trim().slice(0, 2000)]);
  return thread;
}

/**
 * Appends a step with the user's words (and files) and the matching chat message. `images` (paths under
 * $DATA_DIR/files with a caption, see runner/step-images.ts) reach the model with the words.
 */
export async function appendUserInput(db: Db, bus: Bus, threadId: number, text: string, files: string[], images: StepImage[] = []) {
  const input = await db.tx((q) => insertUserInput(q, threadId, text, files, images));
  announceInput(bus, input);
  return input.step;
}

export type UserInput = {
  step: Record<string, any> & { agent_id: number };
  message: Record<string, any>;
  /** The thread waited for a person and this answered it: the agent runs again as it did before (issue 19). */
  answered?: Awaited<ReturnType<typeof answerHelp>>;
};

/** appendUserInput's writes, inside the caller's transaction; call announceInput after it commits. */
export async function insertUserInput(q: Queryable, threadId: number, text: string, files: string[], images: StepImage[] = []): Promise<UserInput> {
  const userText = inputText(text, files);
  const [thread] = await q.query<{ agent_id: number; name: string }>('SELECT agent_id, name FROM threads WHERE id = $1 FOR UPDATE', [threadId]);
  const [{ next }] = await q.query<{ next: number }>('SELECT COALESCE(max(sequence), 0) + 1 AS next FROM thread_steps WHERE thread_id = $1', [threadId]);
  const [row] = await q.query(
    `INSERT INTO thread_steps (thread_id, sequence, user_text, user_files, user_images) VALUES ($1, $2, $3, $4, $5) RETURNING ${STEP_COLUMNS}`,
    [threadId, next, userText, JSON.stringify(files), JSON.stringify(images)]);
  // New input clears a previous failure and names an unnamed thread after its first words.
  await q.query(
    `UPDATE threads SET error_message = '', updated_at = now(), name = CASE WHEN name = '' THEN $2 ELSE name END WHERE id = $1`,
    [threadId, threadName(userText)]);
  const [message] = await insertUserMessages(q, [{ agent_id: thread.agent_id, thread_id: threadId, text: userText, files }]);
  return { step: { ...row, agent_id: thread.agent_id }, message };
}

/**
 * A user's message and the run it asks for, in one transaction: the input appended (see appendUserInput)
 * and the thread put at the end of its agent's queue. Both are kept, or neither; the events go out after the commit.
 */
export async function appendUserInputAndSchedule(db: Db, bus: Bus, threadId: number, agentId: number, text: string, files: string[]) {
  const input = await db.tx((q) => insertScheduledInput(q, threadId, agentId, text, files));
  announceScheduledInput(bus, input);
  return input.step;
}

/**
 * appendUserInputAndSchedule's writes, inside the caller's transaction (the route's, an e-mail's); call
 * announceScheduledInput after it commits. The agent's queue lock comes first, as in every queue change.
 */
export async function insertScheduledInput(q: Queryable, threadId: number, agentId: number, text: string, files: string[]): Promise<UserInput> {
  await lockAgents(q, [agentId]);
  const input = await insertUserInput(q, threadId, text, files);
  await enqueue(q, threadId, agentId);
  return { ...input, answered: await answerHelp(q, threadId) };
}

/** What insertScheduledInput wrote, told to the chat, the thread's and the agent's views, and the runners. */
export function announceScheduledInput(bus: Bus, input: UserInput): void {
  announceInput(bus, input);
  announceScheduled(bus, input.step.agent_id);
  if (input.answered) bus.publish(TOPICS.threadChanged(input.step.thread_id), { id: input.step.thread_id, needs_help: null });
  announceAnswered(bus, input.answered ?? null);
}

/** What insertUserInput wrote, told to the chat, the thread's views and the agent's views. */
export function announceInput(bus: Bus, { step, message }: UserInput): void {
  announceMessage(bus, message);
  publishStep(bus, step);
  changed(bus, step.agent_id);
}

export function publishStep(bus: Bus, step: Record<string, any>): void {
  const { agent_id, ...rest } = step;
  bus.publish(TOPICS.threadSteps(step.thread_id), rest);
}

/** The step's user_text: the words, or a placeholder when only files came. */
function inputText(text: string, files: string[]): string {
  return text.trim() || (files.length ? FILES_ONLY_TEXT : '');
}

function threadName(text: string): string {
  const line = text.split('\n')[0].trim();
  return line.length > 60 ? line.slice(0, 57) + '...' : line;
}

export type FirstMessage = { agentId: number; text: string; files: string[] };
export type NewThread = { threadId: number; step: Record<string, any> & { agent_id: number }; message: Record<string, any> };

/**
 * Users' first messages (spec §4 "Draft to real thread"): for each, a new thread holding that step,
 * put at the end of its agent's queue, in the same few statements however many there are. The one
 * path for the chat's first message and for schedules, inside the caller's transaction; call
 * announceNewThreads after it commits.
 */
export async function insertNewThreads(q: Queryable, firsts: FirstMessage[]): Promise<NewThread[]> {
  const agentIds = firsts.map((f) => f.agentId);
  await lockAgents(q, agentIds);
  // Read under the locks, so no other queue change comes in between. Queues run 1..n without gaps.
  const ends = await q.query<{ agent_id: number; last: number }>(
    'SELECT agent_id, max(schedule_sequence) AS last FROM threads WHERE agent_id = ANY($1::int[]) AND schedule_sequence IS NOT NULL GROUP BY agent_id',
    [agentIds]);
  const last = new Map(ends.map((e) => [e.agent_id, e.last]));
  const rows = firsts.map((f) => {
    const text = inputText(f.text, f.files);
    const position = (last.get(f.agentId) ?? 0) + 1;
    last.set(f.agentId, position);
    return { agent_id: f.agentId, name: threadName(text), schedule_sequence: position, text, files: f.files };
  });
  const threads = await q.query<{ id: number; agent_id: number; schedule_sequence: number }>(
    `INSERT INTO threads (agent_id, name, schedule_sequence)
     SELECT agent_id, name, schedule_sequence FROM jsonb_to_recordset($1::jsonb) AS t(agent_id int, name text, schedule_sequence int)
     RETURNING id, agent_id, schedule_sequence`,
    [JSON.stringify(rows)]);
  // Each new thread is the only one at its place in its agent's queue: that is how a row finds its message.
  const placed = new Map(threads.map((t) => [`${t.agent_id}:${t.schedule_sequence}`, t.id]));
  const words = rows.map((r) => ({ agent_id: r.agent_id, thread_id: placed.get(`${r.agent_id}:${r.schedule_sequence}`)!, text: r.text, files: r.files }));
  const steps = await q.query(
    `INSERT INTO thread_steps (thread_id, sequence, user_text, user_files)
     SELECT thread_id, 1, text, files FROM jsonb_to_recordset($1::jsonb) AS s(thread_id int, text text, files jsonb)
     RETURNING ${STEP_COLUMNS}`,
    [JSON.stringify(words)]);
  const messages = await insertUserMessages(q, words);
  const stepOf = new Map(steps.map((s) => [s.thread_id, s]));
  const messageOf = new Map(messages.map((m) => [m.thread_id, m]));
  return words.map((w) => ({ threadId: w.thread_id, step: { ...stepOf.get(w.thread_id)!, agent_id: w.agent_id }, message: messageOf.get(w.thread_id)! }));
}

/** What insertNewThreads wrote, told to the chat, the thread views and the agents' runners. */
export function announceNewThreads(bus: Bus, created: NewThread[]): void {
  for (const { step, message } of created) {
    announceMessage(bus, message);
    publishStep(bus, step);
  }
  for (const agentId of new Set(created.map((c) => c.step.agent_id))) announceScheduled(bus, agentId);
}

/**
 * Takes the agents' queue locks, in id order. First in any transaction that inserts a thread: the insert
 * takes a key-share lock on the agent row, so two such transactions that asked for FOR UPDATE only later
 * (in enqueue) would deadlock.
 */
export async function lockAgents(q: Queryable, agentIds: number[]): Promise<void> {
  const ids = [...new Set(agentIds)].sort((a, b) => a - b);
  if (ids.length) await q.query('SELECT id FROM agents WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE', [ids]);
}

// --- the queue

async function queueOf(q: Queryable, agentId: number): Promise<number[]> {
  await q.query('SELECT id FROM agents WHERE id = $1 FOR UPDATE', [agentId]);
  const rows = await q.query<{ id: number }>(
    'SELECT id FROM threads WHERE agent_id = $1 AND schedule_sequence IS NOT NULL ORDER BY schedule_sequence, updated_at, id', [agentId]);
  return rows.map((r) => r.id);
}

async function writeQueue(q: Queryable, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await q.query(
    `UPDATE threads t SET schedule_sequence = v.seq, updated_at = now()
     FROM unnest($1::int[], $2::int[]) AS v(id, seq) WHERE t.id = v.id AND t.schedule_sequence IS DISTINCT FROM v.seq`,
    [ids, ids.map((_, i) => i + 1)]);
}

/**
 * Puts the thread at the end of its agent's queue (no change when already queued), inside the caller's
 * transaction; call announceScheduled after it commits.
 */
export async function enqueue(q: Queryable, threadId: number, agentId: number): Promise<void> {
  const ids = await queueOf(q, agentId);
  if (!ids.includes(threadId)) await writeQueue(q, [...ids, threadId]);
  await q.query("UPDATE threads SET target_run_state = NULL WHERE id = $1 AND target_run_state = 'stop'", [threadId]);
}

export function announceScheduled(bus: Bus, agentId: number): void {
  changed(bus, agentId);
  // A running agent picks the new work up at once instead of on its next poll.
  bus.publish(TOPICS.runnerWake, { agent_id: agentId });
}

export function removeFromSchedule(db: Db, bus: Bus, threadId: number, agentId: number): Promise<void> {
  return leaveQueue(db, bus, threadId, agentId, 'UPDATE threads SET schedule_sequence = NULL, updated_at = now() WHERE id = $1');
}

/** Runs `statement` on the thread (taking it off the queue or deleting it) and renumbers the rest 1..n. */
async function leaveQueue(db: Db, bus: Bus, threadId: number, agentId: number, statement: string, audit?: (q: Queryable) => Promise<unknown>) {
  await db.tx(async (q) => {
    const ids = await queueOf(q, agentId);
    await q.query(statement, [threadId]);
    await writeQueue(q, ids.filter((id) => id !== threadId));
    await audit?.(q);
  });
  changed(bus, agentId);
}

/**
 * Gives the thread sequence `target`: the others that had `target` or more move up one, then
 * the queue is renumbered 1..n. (Dropping onto a thread from below asks for its sequence + 1,
 * from above for its sequence, so the dragged thread lands right next to it.)
 */
export async function setScheduleSequence(db: Db, bus: Bus, threadId: number, agentId: number, target: number): Promise<void> {
  await db.tx(async (q) => {
    const queue = await queueOf(q, agentId);
    const others = queue.filter((id) => id !== threadId);
    const below = others.filter((id) => queue.indexOf(id) + 1 < target).length;
    others.splice(below, 0, threadId);
    await writeQueue(q, others);
  });
  changed(bus, agentId);
}

export async function setThreadRunState(db: Queryable, bus: Bus, threadId: number, agentId: number, state: string | null) {
  await db.query('UPDATE threads SET target_run_state = $2, updated_at = now() WHERE id = $1', [threadId, state]);
  changed(bus, agentId);
}

export async function deleteThread(db: Db, bus: Bus, threadId: number, agentId: number): Promise<void> {
  await leaveQueue(db, bus, threadId, agentId, 'DELETE FROM threads WHERE id = $1',
    (q) => record(q, { action: 'thread.delete', target: { type: 'thread', id: threadId }, detail: { agent_id: agentId } }));
  bus.publish(TOPICS.threadDeleted, { thread_id: threadId, agent_id: agentId });
}

function changed(bus: Bus, agentId: number): void {
  bus.publish(TOPICS.agentChanged(agentId), { agent_id: agentId });
}

const RUN_COUNTS = prepared('threads.run-counts', `SELECT count(*) FILTER (WHERE thread_running)::int AS running,
  count(*) FILTER (WHERE schedule_sequence IS NOT NULL AND NOT thread_running)::int AS queued FROM threads`);

/** Threads running now and threads waiting in a queue, over all agents (and all server instances). */
export async function runCounts(db: Queryable): Promise<{ running: number; queued: number }> {
  return (await db.query<{ running: number; queued: number }>(RUN_COUNTS))[0];
}
