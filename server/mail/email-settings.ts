// An agent's e-mail settings (spec §3 "Email settings"): its address prefix, unique across agents
// regardless of case, and the accept-from patterns; and the lookup the SMTP intake does per recipient.
import type { Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';

export type EmailSettings = { email_prefix: string | null; email_accept_from_addresses: string[] | null };
export type Mailbox = { id: number; owner_id: number; email_prefix: string; email_accept_from_addresses: string[] | null };

export async function getEmailSettings(db: Queryable, agentId: number): Promise<EmailSettings> {
  const [row] = await db.query<EmailSettings>('SELECT email_prefix, email_accept_from_addresses FROM agents WHERE id = $1', [agentId]);
  return row;
}

/** Stores the settings; 409 when another agent has the prefix (in any case). */
export async function setEmailSettings(db: Queryable, bus: Bus, agentId: number, settings: EmailSettings): Promise<EmailSettings> {
  const prefix = settings.email_prefix;
  if (prefix !== null) {
    const [taken] = await db.query('SELECT 1 FROM agents WHERE lower(email_prefix) = lower($1) AND id <> $2', [prefix, agentId]);
    if (taken) throw prefixTaken(prefix);
  }
  try {
    const [row] = await db.query<EmailSettings>(
      `UPDATE agents SET email_prefix = $2, email_accept_from_addresses = $3, updated_at = now() WHERE id = $1
       RETURNING email_prefix, email_accept_from_addresses`,
      [agentId, prefix, settings.email_accept_from_addresses && JSON.stringify(settings.email_accept_from_addresses)]);
    bus.publish(TOPICS.agentChanged(agentId), { agent_id: agentId });
    return row;
  } catch (err) {
    // Two saves of one prefix at once: the unique index decides, with the same answer.
    if ((err as { code?: string }).code === '23505' && prefix !== null) throw prefixTaken(prefix);
    throw err;
  }
}

function prefixTaken(prefix: string): HttpError {
  return new HttpError(409, `The email prefix "${prefix}" is already used by another agent`);
}

/** The agent whose prefix this is (any case), or null. */
export async function findMailbox(db: Queryable, prefix: string): Promise<Mailbox | null> {
  const [row] = await db.query<Mailbox>(
    'SELECT id, owner_id, email_prefix, email_accept_from_addresses FROM agents WHERE lower(email_prefix) = lower($1)', [prefix]);
  return row ?? null;
}
