// A help request's one-time link (issue 47): `/help/<token>` in its e-mail and its notification opens that agent's
// desktop with control taken, for the thread's owner, once, within 30 minutes. The token (32 random bytes,
// base64url) is found by its SHA-256; the token itself is kept sealed with the secrets key for the push sender,
// which may send the notification from another instance than the one whose run paused.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';
import type { SecretBox } from '../system/secret-box.ts';

export const HELP_LINK_MINUTES = 30;
/** What every refused use answers (unknown, used, expired or someone else's: one answer, nothing to tell apart). */
export const HELP_LINK_GONE = 'This link has expired or was already used';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const label = (hash: string) => `help_links.token:${hash}`;

/** Makes the thread's link for its owner (in the pause's transaction); its path in the app, or null without the thread. */
export async function createHelpLink(q: Queryable, box: SecretBox, threadId: number): Promise<string | null> {
  const token = randomBytes(32).toString('base64url');
  const hash = hashOf(token);
  const rows = await q.query(
    `INSERT INTO help_links (token_hash, token, thread_id, user_id, expires_at)
     SELECT $1, $2, t.id, a.owner_id, now() + interval '${HELP_LINK_MINUTES} minutes' FROM threads t JOIN agents a ON a.id = t.agent_id
     WHERE t.id = $3 RETURNING id`, [hash, box.seal(token, label(hash)), threadId]);
  return rows.length ? helpPath(token) : null;
}

export const helpPath = (token: string) => `/help/${token}`;

/** The sealed token of a link (as the push queue's claim reads it), opened. */
export function openHelpToken(box: SecretBox, sealed: string, hash: string): string {
  return box.open(sealed, label(hash));
}

/**
 * Marks the link used by `userId` and says where it leads; null when it is not theirs, used, expired or unknown.
 * One statement: two uses at once cannot both succeed.
 */
export async function useHelpLink(q: Queryable, token: string, userId: number): Promise<{ agent_id: number; thread_id: number } | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [row] = await q.query<{ agent_id: number; thread_id: number }>(
    `UPDATE help_links l SET used_at = now() FROM threads t JOIN agents a ON a.id = t.agent_id
     WHERE l.token_hash = $1 AND l.user_id = $2 AND l.used_at IS NULL AND l.expires_at > now() AND t.id = l.thread_id AND a.owner_id = l.user_id
     RETURNING a.id AS agent_id, l.thread_id`, [hashOf(token), userId]);
  return row ?? null;
}

/** Deletes the links that expired a day ago or more (a notification still queued then sends its fallback link). */
export async function pruneHelpLinks(q: Queryable): Promise<number> {
  return (await q.query(`DELETE FROM help_links WHERE expires_at < now() - interval '1 day' RETURNING id`)).length;
}
