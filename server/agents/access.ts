// Ownership checks: a user reaches only their own agents (and so their threads); an admin
// reaches any. Foreign and missing records answer the same 404.
import type { User } from '../auth/index.ts';
import { prepared, type Queryable } from '../db/db.ts';
import { cachedRead } from '../db/read-cache.ts';
import { HttpError } from '../http/errors.ts';

const AGENT_OWNER = prepared('access.agent-owner', 'SELECT owner_id FROM agents WHERE id = $1');
const THREAD_OWNER = prepared('access.thread-owner', 'SELECT t.agent_id, a.owner_id FROM threads t JOIN agents a ON a.id = t.agent_id WHERE t.id = $1');

// Every request on an agent or thread asks these first: answered from memory until the next write.
const agentOwner = cachedRead(async (db, id) => (await db.query<{ owner_id: number }>(AGENT_OWNER, [Number(id)]))[0]);
const threadOwner = cachedRead(async (db, id) => (await db.query<{ agent_id: number; owner_id: number }>(THREAD_OWNER, [Number(id)]))[0]);

export async function ownedAgentId(db: Queryable, user: User, agentId: number): Promise<number> {
  const row = await agentOwner(db, String(agentId));
  if (!row || (row.owner_id !== user.id && user.role !== 'admin')) throw new HttpError(404, 'Agent not found');
  return agentId;
}

/** The thread's agent id once the caller may reach it. */
export async function ownedThread(db: Queryable, user: User, threadId: number): Promise<{ agent_id: number; owner_id: number }> {
  const row = await threadOwner(db, String(threadId));
  if (!row || (row.owner_id !== user.id && user.role !== 'admin')) throw new HttpError(404, 'Thread not found');
  return row;
}
