// A user's devices: one browser's push subscription each, with the events it wants, as rows and as the API shows
// them. The endpoint URL never leaves the server again (it is the address anyone could push to), only its origin.
import type { Queryable } from '../db/db.ts';
import { PUSH_EVENTS } from './notification.ts';

export const MAX_DEVICES = 20;

export type PushDevice = { id: number; label: string; events: string[]; created_at: string; last_sent_at: string | null; endpoint_origin: string };
export type DeviceFields = { endpoint: string; p256dh: string; auth: string; events: string[]; label: string };
type Row = Omit<PushDevice, 'endpoint_origin'> & { endpoint: string };

const DEVICE = 'id, label, events, created_at, last_sent_at, endpoint';

/** The events in the contract's order, each once. */
export const orderedEvents = (events: string[]) => PUSH_EVENTS.filter((e) => events.includes(e));

const shown = ({ endpoint, ...row }: Row): PushDevice => ({ ...row, events: orderedEvents(row.events), endpoint_origin: new URL(endpoint).origin });

export async function listDevices(q: Queryable, userId: number): Promise<PushDevice[]> {
  return (await q.query<Row>(`SELECT ${DEVICE} FROM push_subscriptions WHERE user_id = $1 ORDER BY id DESC`, [userId])).map(shown);
}

export async function getDevice(q: Queryable, id: number, userId: number): Promise<PushDevice | null> {
  const [row] = await q.query<Row>(`SELECT ${DEVICE} FROM push_subscriptions WHERE id = $1 AND user_id = $2`, [id, userId]);
  return row ? shown(row) : null;
}

export async function countDevices(q: Queryable, userId: number): Promise<number> {
  const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM push_subscriptions WHERE user_id = $1', [userId]);
  return row.n;
}

/**
 * The device of this endpoint for the user: made (created), or updated when the user has it already (a browser
 * subscribing again: new keys, events, label). Another user's device of the same endpoint is theirs no more: the
 * browser now belongs to whoever subscribed last, and the earlier user's notifications must not reach it.
 */
export async function saveDevice(q: Queryable, userId: number, f: DeviceFields): Promise<{ device: PushDevice; created: boolean }> {
  await q.query('DELETE FROM push_subscriptions WHERE endpoint = $1 AND user_id <> $2', [f.endpoint, userId]);
  const [row] = await q.query<Row & { created: boolean }>(
    `INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, events, label) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, events = excluded.events, label = excluded.label
     RETURNING ${DEVICE}, (xmax = 0) AS created`, [userId, f.endpoint, f.p256dh, f.auth, orderedEvents(f.events), f.label]);
  const { created, ...device } = row;
  return { device: shown(device), created };
}

export async function updateDevice(q: Queryable, id: number, f: { events?: string[]; label?: string }): Promise<void> {
  await q.query('UPDATE push_subscriptions SET events = coalesce($2, events), label = coalesce($3, label) WHERE id = $1',
    [id, f.events ? orderedEvents(f.events) : null, f.label ?? null]);
}

/** Deletes the device (its queued notifications with it); whether there was one. */
export async function deleteDevice(q: Queryable, id: number): Promise<boolean> {
  return (await q.query('DELETE FROM push_subscriptions WHERE id = $1 RETURNING id', [id])).length > 0;
}
