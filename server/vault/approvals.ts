// "Ask me before each use" (issue 45): a fill waits on an approval card in its thread, with the screen the agent
// saw, until the owner approves or denies it; no answer within ten minutes counts as denied. The waiting run
// wakes on the bus (any instance may take the answer) and looks at the row every second besides, so a lost
// event costs a second, not the fill.
import type { Db, Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';

export const APPROVAL_MS = 10 * 60_000;
const LOOK_MS = 1000;

export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired';
export type ApprovalRequest = { credential_id: number; agent_id: number; thread_id: number; field: string; target: string; screenshot: Buffer | null };

/** How long an approval covers the same credential's next fills in the thread, on the same target (one sign-in's fields). */
export const APPROVAL_COVERS_MS = 2 * 60_000;

/** Whether the owner approved this credential for this thread and target within APPROVAL_COVERS_MS. */
export async function approvedLately(db: Db, credentialId: number, threadId: number, target: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM credential_approvals WHERE credential_id = $1 AND thread_id = $2 AND target = $3 AND state = 'approved'
       AND decided_at > now() - make_interval(secs => $4) LIMIT 1`, [credentialId, threadId, target, APPROVAL_COVERS_MS / 1000]);
  return rows.length > 0;
}

export async function askApproval(db: Db, bus: Bus, r: ApprovalRequest, waitMs = APPROVAL_MS): Promise<number> {
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO credential_approvals (credential_id, agent_id, thread_id, field, target, screenshot, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING id`,
    [r.credential_id, r.agent_id, r.thread_id, r.field, r.target, r.screenshot, waitMs / 1000]);
  bus.publish(TOPICS.threadChanged(r.thread_id), { id: r.thread_id });
  bus.publish(TOPICS.agentChanged(r.agent_id), { agent_id: r.agent_id });
  return row.id;
}

/** Waits for the answer: 'approved', 'denied', or 'expired' (also when the run is stopped meanwhile). */
export async function awaitDecision(db: Db, bus: Bus, id: number, threadId: number, signal: AbortSignal): Promise<ApprovalState> {
  let wake = () => {};
  const unsubscribe = bus.subscribe(TOPICS.threadChanged(threadId), () => wake());
  const aborted = () => wake();
  signal.addEventListener('abort', aborted);
  try {
    for (;;) {
      const [row] = await db.query<{ state: ApprovalState; over: boolean }>(
        'SELECT state, expires_at <= now() AS over FROM credential_approvals WHERE id = $1', [id]);
      if (!row) return 'expired'; // its thread or credential went
      if (row.state !== 'pending') return row.state;
      if (row.over || signal.aborted) return expire(db, bus, id, threadId);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, LOOK_MS);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', aborted);
  }
}

async function expire(db: Db, bus: Bus, id: number, threadId: number): Promise<ApprovalState> {
  const [row] = await db.query<{ state: ApprovalState }>(
    `UPDATE credential_approvals SET state = CASE WHEN state = 'pending' THEN 'expired' ELSE state END,
       decided_at = COALESCE(decided_at, now()) WHERE id = $1 RETURNING state`, [id]);
  bus.publish(TOPICS.threadChanged(threadId), { id: threadId });
  return row?.state ?? 'expired';
}

export type Approval = { id: number; credential_id: number; owner_id: number; agent_id: number; thread_id: number; name: string; state: ApprovalState };

/** The approval if `ownerId` owns its credential (another user's reads as missing). */
export async function ownedApproval(q: Queryable, id: number, ownerId: number): Promise<Approval | null> {
  const [row] = await q.query<Approval>(
    `SELECT ap.id, ap.credential_id, c.owner_id, ap.agent_id, ap.thread_id, c.name, ap.state
       FROM credential_approvals ap JOIN credentials c ON c.id = ap.credential_id WHERE ap.id = $1 AND c.owner_id = $2`, [id, ownerId]);
  return row ?? null;
}

/** The owner's answer; 409 when it was answered or ran out already. */
export async function decide(q: Queryable, id: number, approve: boolean, userId: number): Promise<ApprovalState> {
  const [row] = await q.query<{ state: ApprovalState }>(
    `UPDATE credential_approvals SET state = $2, decided_at = now(), decided_by = $3
      WHERE id = $1 AND state = 'pending' AND expires_at > now() RETURNING state`, [id, approve ? 'approved' : 'denied', userId]);
  if (row) return row.state;
  const [now] = await q.query<{ state: ApprovalState }>('SELECT state FROM credential_approvals WHERE id = $1', [id]);
  throw new HttpError(409, now?.state === 'pending' || now?.state === 'expired'
    ? 'This request ran out: no answer within 10 minutes counts as denied' : `This request was already ${now?.state ?? 'answered'}`);
}

export async function approvalScreenshot(q: Queryable, id: number): Promise<Buffer | null> {
  const [row] = await q.query<{ screenshot: Buffer | null }>('SELECT screenshot FROM credential_approvals WHERE id = $1', [id]);
  return row?.screenshot ?? null;
}
