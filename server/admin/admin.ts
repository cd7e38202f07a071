// The admin's view over every user's agents and threads (spec §2 Admin Dashboard, Admin agent and
// thread pages, Ops Dashboard; §7 "Admin"). Read-only queries plus thread deletion; the approval
// actions on communication messages live in comm-messages.ts.
import type { Db, Queryable } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { THREAD_COLUMNS } from '../agents/agents.ts';
import { deleteThread, listSteps } from '../threads/threads.ts';

/** The newest steps the thread page's History shows (spec §9: the agent screen's first load). */
export const HISTORY_LIMIT = 500;

// An agent's last activity is its own latest change or its newest thread's, whichever is later: mail,
// a user's message or a draft touch only the thread, yet count as the agent being active.
const LAST_ACTIVITY = `GREATEST(a.updated_at, (SELECT max(t.updated_at) FROM threads t WHERE t.agent_id = a.id))`;

const OVERVIEW = `a.id, a.name, a.owner_id, u.email AS owner_email, a.target_run_state, a.agent_running,
  (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND t.schedule_sequence IS NOT NULL) AS number_scheduled_threads,
  (SELECT count(*)::int FROM threads t WHERE t.agent_id = a.id AND t.approval_required) AS number_threads_requiring_approval,
  ${LAST_ACTIVITY} AS updated_at`;

/** Every agent of every user, the most recently active first. */
export async function listAdminAgents(db: Queryable) {
  return db.query(`SELECT ${OVERVIEW} FROM agents a JOIN users u ON u.id = a.owner_id ORDER BY updated_at DESC, a.id DESC`);
}

/** One agent's overview row and its threads, the most recently updated first; null when there is no such agent. */
export async function getAdminAgentThreads(db: Queryable, agentId: number) {
  // Which instance runs its desktop (several servers on one PostgreSQL); null when none does or on one server.
  const [agent] = await db.query(
    `SELECT ${OVERVIEW}, (SELECT l.instance_id FROM desktop_leases l WHERE l.agent_id = a.id) AS desktop_instance
     FROM agents a JOIN users u ON u.id = a.owner_id WHERE a.id = $1`, [agentId]);
  if (!agent) return null;
  const threads = await db.query(`SELECT ${THREAD_COLUMNS} FROM threads WHERE agent_id = $1 ORDER BY updated_at DESC, id DESC`, [agentId]);
  return { agent, threads };
}

/** The thread with its agent's name and its newest steps (the History list); null when there is no such thread. */
export async function getAdminThread(db: Queryable, threadId: number) {
  // The thread's usual columns, qualified (t.id, t.name …) since agents and users have such columns too.
  const [thread] = await db.query(
    `SELECT ${THREAD_COLUMNS.replace(/(\w+)/g, 't.$1')}, a.name AS agent_name, u.email AS owner_email
     FROM threads t JOIN agents a ON a.id = t.agent_id JOIN users u ON u.id = a.owner_id WHERE t.id = $1`, [threadId]);
  if (!thread) return null;
  // listSteps answers JSON text built by the database (the hot chat path); here it joins other fields.
  const { steps, total_count } = JSON.parse((await listSteps(db, threadId, HISTORY_LIMIT, 0)).text);
  return { ...thread, steps, total_steps: total_count };
}

/**
 * Spec §3 "Thread needing approval": every such thread, and every thread waiting for a person (issue 19: the agent
 * asked for help, or the runaway guard paused it; needs_help says which), the one waiting longest first.
 */
export async function listThreadsRequiringApproval(db: Queryable) {
  return db.query(
    `SELECT t.id, t.name AS thread_name, t.agent_id, a.name AS agent_name, t.updated_at, t.approval_required, t.needs_help
     FROM threads t JOIN agents a ON a.id = t.agent_id WHERE t.approval_required OR t.needs_help IS NOT NULL ORDER BY t.updated_at, t.id`);
}

/** Deletes any user's thread (steps and communication messages go with it); false when there is none. */
export async function deleteAdminThread(db: Db, bus: Bus, threadId: number): Promise<boolean> {
  const [row] = await db.query<{ agent_id: number }>('SELECT agent_id FROM threads WHERE id = $1', [threadId]);
  if (!row) return false;
  await deleteThread(db, bus, threadId, row.agent_id);
  return true;
}
