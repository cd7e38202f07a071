// Agents: the list and detail shapes of spec section 3, creation, deletion, texts, run state, what a run
// reads of its agent, and notes.md as the notes tool changes it.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { batched } from '../db/batch.ts';
import { prepared, type Db, type Queryable } from '../db/db.ts';
import { cachedRead } from '../db/read-cache.ts';
import { JsonText } from '../http/json-text.ts';
import type { Bus } from '../realtime/bus.ts';
import { record } from '../audit/audit.ts';
import { TOPICS } from '../realtime/topics.ts';
import type { BlobStore } from '../storage/index.ts';
import { agentPrefix } from './stored-files.ts';

export const RUN_STATES = ['run', 'run_all', 'stop'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const AGENT_TEXTS = { 'system-prompt': 'system_prompt', notes: 'notes', instructions: 'instructions' } as const;

/** A thread waiting for a person: a help request, or a credential fill waiting for approval (server/vault). */
const WAITING = `(t.needs_help IS NOT NULL
  OR EXISTS (SELECT 1 FROM credential_approvals ap WHERE ap.thread_id = t.id AND ap.state = 'pending'))`;

/** The agent's desktop is frozen on a live instance (server/desktop/place/sleep-records.ts writes the rows). */
export const SLEEPING = `EXISTS (SELECT 1 FROM desktop_sleep s JOIN instances i ON i.id = s.instance_id
  WHERE s.agent_id = a.id AND i.heartbeat_at > now() - interval '60 seconds')`;

const SUMMARY = `a.id, a.owner_id, a.name, a.file_path, a.agent_running, a.target_run_state, a.cua_client_connected,
  a.running_state, a.updated_at, a.created_at, a.email_prefix, a.email_accept_from_addresses, a.screenshot_at,
  (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND t.schedule_sequence IS NOT NULL) AS number_scheduled_threads,
  (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND t.approval_required) AS number_threads_requiring_approval,
  (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND ${WAITING}) AS number_threads_needing_help,
  ${SLEEPING} AS desktop_sleeping`;

export type AgentRow = Record<string, any> & { id: number; owner_id: number; name: string; screenshot_at: Date | null };

/** Adds the screenshot address; the timestamp in it busts caches when a new one is stored. */
function present(row: AgentRow) {
  const { screenshot_at, ...rest } = row;
  return {
    ...rest,
    screenshot_url: screenshot_at ? `/api/agents/${row.id}/screenshot?v=${new Date(screenshot_at).getTime()}` : null,
  };
}

// The list as JSON the database writes (the grid polls it): the same shape present() gives, with
// timestamps as Date#toJSON writes them. Lists asked for while the previous query ran go together
// in one query (see batched): concurrent polls cost the database one query, not one each.
const isoMs = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const listOf = (owner: string, search: string) => `SELECT coalesce(json_agg(json_build_object(
    'id', a.id, 'owner_id', a.owner_id, 'name', a.name, 'file_path', a.file_path, 'agent_running', a.agent_running,
    'target_run_state', a.target_run_state, 'cua_client_connected', a.cua_client_connected, 'running_state', a.running_state,
    'updated_at', ${isoMs('a.updated_at')}, 'created_at', ${isoMs('a.created_at')}, 'email_prefix', a.email_prefix,
    'email_accept_from_addresses', a.email_accept_from_addresses,
    'number_scheduled_threads', (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND t.schedule_sequence IS NOT NULL),
    'number_threads_requiring_approval', (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND t.approval_required),
    'number_threads_needing_help', (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND ${WAITING}),
    'desktop_sleeping', ${SLEEPING},
    'screenshot_url', CASE WHEN a.screenshot_at IS NULL THEN NULL
      ELSE '/api/agents/' || a.id || '/screenshot?v=' || floor(extract(epoch FROM a.screenshot_at) * 1000)::bigint END
  ) ORDER BY a.created_at, a.id), '[]')::text AS agents
  FROM agents a WHERE a.owner_id = ${owner} AND (${search} = '' OR lower(a.name) LIKE '%' || ${search} || '%')`;
const LIST_AGENTS = prepared('agents.list', listOf('$1', '$2'));
// One list per (owner, search) pair, numbered as given. Kept apart from the one-list query: with
// array parameters PostgreSQL plans anew on every call, which only pays off for a batch.
const LIST_AGENTS_OF_MANY = prepared('agents.list-many', `SELECT k.i, (${listOf('k.owner_id', 'k.search')}) AS agents
  FROM unnest($1::int[], $2::text[]) WITH ORDINALITY AS k(owner_id, search, i)`);

type ListKey = { ownerId: number; search: string };
// Under the database's query function: a request's view of the database (requestDb) shares the batch.
const listLoaders = new WeakMap<object, (key: string) => Promise<string | undefined>>();

function listLoader(db: Queryable) {
  let loader = listLoaders.get(db.query);
  if (!loader) {
    loader = batched<string, string>(async (keys) => {
      const asked: ListKey[] = keys.map((key) => JSON.parse(key));
      if (asked.length === 1) {
        const [{ agents }] = await db.query<{ agents: string }>(LIST_AGENTS, [asked[0].ownerId, asked[0].search]);
        return new Map([[keys[0], agents]]);
      }
      const rows = await db.query<{ i: number; agents: string }>(LIST_AGENTS_OF_MANY, [asked.map((k) => k.ownerId), asked.map((k) => k.search)]);
      return new Map(rows.map((row) => [keys[Number(row.i) - 1], row.agents]));
    });
    listLoaders.set(db.query, loader);
  }
  return loader;
}

// Until the next write the same JsonText is answered again: no query, and its ETag and compressed
// bytes are worked out once (see read-cache.ts for when that applies).
const cachedList = cachedRead(async (db, key) => new JsonText((await listLoader(db)(key)) ?? '[]'));

export async function listAgents(db: Queryable, ownerId: number, search: string): Promise<JsonText> {
  const escaped = search && search.trim().toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
  const key: ListKey = { ownerId, search: escaped };
  return cachedList(db, JSON.stringify(key));
}

export async function getAgent(db: Queryable, id: number) {
  const row = (await db.query<AgentRow>(`SELECT ${SUMMARY}, a.system_prompt, a.notes, a.instructions FROM agents a WHERE a.id = $1`, [id]))[0];
  if (!row) return null;
  const threads = await db.query(
    `SELECT ${THREAD_COLUMNS}, ${HELD_REASON}, ${PENDING_APPROVAL} FROM threads WHERE agent_id = $1 ORDER BY updated_at DESC, id DESC`, [id]);
  return { ...present(row), threads };
}

export const THREAD_COLUMNS = `id, agent_id, name, description, thread_running, error_message, schedule_sequence,
  approval_required, target_run_state, target_sequence, needs_help, created_at, updated_at`;

/**
 * Why a thread's mail waits for its owner (comm_messages.held_reason: `unverified` sender or over the hourly
 * `rate`), while it does: its newest inbound mail was held, it is not scheduled or running, and nothing ran since.
 */
export const HELD_REASON = `(SELECT c.held_reason FROM comm_messages c
  WHERE c.thread_id = threads.id AND c.role = 'inbound' AND threads.schedule_sequence IS NULL AND NOT threads.thread_running
    AND NOT EXISTS (SELECT 1 FROM thread_steps s WHERE s.thread_id = threads.id AND s.created_at > c.created_at
      AND (s.assistant_text <> '' OR s.tool_calls <> '[]'::jsonb))
  ORDER BY c.id DESC LIMIT 1) AS held_reason`;

/** A fill waiting for its owner's approval in the thread (server/vault/approvals.ts), as the thread's card shows it. */
export const PENDING_APPROVAL = `(SELECT json_build_object('id', ap.id, 'credential', c.name, 'agent_id', ap.agent_id, 'field', ap.field,
    'target', ap.target, 'asked_at', ap.asked_at, 'expires_at', ap.expires_at)
  FROM credential_approvals ap JOIN credentials c ON c.id = ap.credential_id
  WHERE ap.thread_id = threads.id AND ap.state = 'pending' ORDER BY ap.id DESC LIMIT 1) AS credential_approval`;

export async function createAgent(db: Db, ownerId: number, name: string) {
  const id = await db.tx(async (q) => {
    const [row] = await q.query<{ id: number }>('INSERT INTO agents (owner_id, name) VALUES ($1, $2) RETURNING id', [ownerId, name]);
    await record(q, { action: 'agent.create', target: { type: 'agent', id: row.id }, detail: { name, owner_id: ownerId } });
    return row.id;
  });
  return (await getAgent(db, id))!;
}

/**
 * Deletes the agent with its threads, steps and messages (cascade) and its stored files: those in the blob store,
 * and those still kept in this instance's DATA_DIR/files whatever the store (the live screenshot, a run's recording
 * being written or one the store would not take, audio being received).
 */
export async function deleteAgent(db: Db, id: number, blobs: BlobStore, filesDir: string): Promise<void> {
  await db.tx(async (q) => {
    const [row] = await q.query<{ name: string; owner_id: number }>('DELETE FROM agents WHERE id = $1 RETURNING name, owner_id', [id]);
    if (row) await record(q, { action: 'agent.delete', target: { type: 'agent', id }, detail: { name: row.name, owner_id: row.owner_id } });
  });
  await blobs.deletePrefix(agentPrefix(id));
  await rm(join(filesDir, `agent-${id}`), { recursive: true, force: true });
}

export async function touchAgent(db: Queryable, bus: Bus, id: number): Promise<void> {
  await db.query('UPDATE agents SET updated_at = now() WHERE id = $1', [id]);
  bus.publish(TOPICS.agentChanged(id), { agent_id: id });
}

export type AgentTextColumn = (typeof AGENT_TEXTS)[keyof typeof AGENT_TEXTS];

export async function getAgentText(db: Queryable, id: number, column: AgentTextColumn): Promise<string | null> {
  const [row] = await db.query<Record<AgentTextColumn, string | null>>(`SELECT ${column} FROM agents WHERE id = $1`, [id]);
  return row ? row[column] : null;
}

/** Replaces one of the agent's texts; the audit event says which and how long it was and is (texts are not copied). */
export async function setAgentText(db: Db, bus: Bus, id: number, column: AgentTextColumn, value: string): Promise<void> {
  await db.tx(async (q) => {
    const [before] = await q.query<{ n: number }>(
      `WITH old AS (SELECT length(${column}) AS n FROM agents WHERE id = $1 FOR UPDATE) UPDATE agents SET ${column} = $2, updated_at = now()
       FROM old WHERE agents.id = $1 RETURNING old.n`, [id, value]);
    if (!before) return;
    await record(q, { action: 'agent.update', target: { type: 'agent', id }, detail: { field: column, from_chars: before.n ?? 0, to_chars: value.length } });
  });
  bus.publish(TOPICS.agentChanged(id), { agent_id: id });
}

/** What the agent was told to do and whether it is working now; null for no such agent. */
export async function runStatus(db: Queryable, id: number): Promise<{ target_run_state: RunState; agent_running: boolean } | null> {
  const [row] = await db.query<{ target_run_state: RunState; agent_running: boolean }>(
    'SELECT target_run_state, agent_running FROM agents WHERE id = $1', [id]);
  return row ?? null;
}

/** Sets the run state and wakes the runner; null for no such agent. A change of it is audited (`agent.run_state`). */
export async function setRunState(db: Db, bus: Bus, id: number, state: RunState): Promise<RunState | null> {
  const row = await db.tx(async (q) => {
    const [changed] = await q.query<{ target_run_state: RunState; from: RunState }>(
      `WITH old AS (SELECT target_run_state FROM agents WHERE id = $1 FOR UPDATE)
       UPDATE agents SET target_run_state = $2, updated_at = now() FROM old WHERE agents.id = $1
       RETURNING agents.target_run_state, old.target_run_state AS "from"`,
      [id, state]);
    if (changed && changed.from !== state) {
      await record(q, { action: 'agent.run_state', target: { type: 'agent', id }, detail: { from: changed.from, to: state } });
    }
    return changed;
  });
  bus.publish(TOPICS.agentChanged(id), { agent_id: id, target_run_state: state });
  bus.publish(TOPICS.runnerWake, { agent_id: id });
  return row?.target_run_state ?? null;
}

/** The agent's name; null for no such agent. */
export async function getAgentName(db: Queryable, id: number): Promise<string | null> {
  return (await db.query<{ name: string }>('SELECT name FROM agents WHERE id = $1', [id]))[0]?.name ?? null;
}

export type RunAgent = { id: number; owner_id: number; name: string; email_prefix: string | null; system_prompt: string; instructions: string; notes: string };

/** What a run needs to know of its agent (its texts go into the system prompt); null for no such agent. */
export async function getRunAgent(db: Queryable, id: number): Promise<RunAgent | null> {
  const [row] = await db.query<RunAgent>('SELECT id, owner_id, name, email_prefix, system_prompt, instructions, notes FROM agents WHERE id = $1', [id]);
  return row ?? null;
}

const STOP_AFTER_RUN = `UPDATE agents SET target_run_state = 'stop', updated_at = now() WHERE id = $1 AND target_run_state = 'run' RETURNING id`;
const STOP_UNLESS_STOPPED = `UPDATE agents SET target_run_state = 'stop', updated_at = now() WHERE id = $1 AND target_run_state <> 'stop' RETURNING id`;

/**
 * Sets the agent to stop after a run ended: `from: 'run'` only when it played one head (run), `'any'`
 * unless it is stopped already (after a failure). Whether it changed.
 */
export async function stopAgentAfterRun(db: Queryable, id: number, from: 'run' | 'any'): Promise<boolean> {
  const rows = await db.query(from === 'run' ? STOP_AFTER_RUN : STOP_UNLESS_STOPPED, [id]);
  return rows.length > 0;
}

// --- notes.md (agents.notes), as the notes tool changes it

/** Longest notes.md the notes tool keeps (characters). */
export const MAX_NOTES = 200_000;

export async function readNotes(db: Queryable, id: number): Promise<string | null> {
  return (await db.query<{ notes: string }>('SELECT notes FROM agents WHERE id = $1', [id]))[0]?.notes ?? null;
}

/** Replaces notes.md; the stored text, null for no such agent. */
export async function replaceNotes(db: Queryable, id: number, text: string): Promise<string | null> {
  return (await db.query<{ notes: string }>('UPDATE agents SET notes = $2, updated_at = now() WHERE id = $1 RETURNING notes', [id, text]))[0]?.notes ?? null;
}

/** Adds a line to notes.md (cut at MAX_NOTES); the stored text, null for no such agent. */
export async function appendNote(db: Queryable, id: number, line: string): Promise<string | null> {
  const [row] = await db.query<{ notes: string }>(
    `UPDATE agents SET notes = left(CASE WHEN notes = '' THEN $2 ELSE rtrim(notes, E'\\n') || E'\\n' || $2 END, ${MAX_NOTES}), updated_at = now()
     WHERE id = $1 RETURNING notes`,
    [id, line]);
  return row?.notes ?? null;
}
