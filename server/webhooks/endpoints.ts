// A user's webhook endpoints and their deliveries, as rows and as the API shows them. The secret is sealed in the
// row (the secrets key) and leaves the server only in the answer that made it and in the signatures.
import type { Queryable } from '../db/db.ts';
import type { SecretBox } from '../system/secret-box.ts';
import { newSecret } from './signature.ts';
import { TEST_EVENT } from './events.ts';

export const MAX_ENDPOINTS = 20;

const ENDPOINT = `e.id, e.url, e.events, e.agent_id, a.name AS agent_name, e.enabled, e.disabled_reason, e.failing_since,
  e.secret_prefix, e.created_at`;
const DELIVERY = `d.id, d.endpoint_id, d.event_id, d.type, d.status, d.attempt, d.response_code, d.latency_ms, d.error, d.created_at,
  d.last_attempt_at, CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS next_attempt_at`;

export type Endpoint = {
  id: number; url: string; events: string[]; agent_id: number | null; agent_name: string | null; enabled: boolean;
  disabled_reason: string | null; failing_since: string | null; secret_prefix: string; created_at: string;
};
export type EndpointFields = { url: string; events: string[]; agentId: number | null };

/** The label a sealed secret is bound to: its endpoint. */
export const secretLabel = (id: number) => `webhook_endpoints.secret:${id}`;

export function listEndpoints(q: Queryable, userId: number): Promise<Endpoint[]> {
  return q.query<Endpoint>(`SELECT ${ENDPOINT} FROM webhook_endpoints e LEFT JOIN agents a ON a.id = e.agent_id
    WHERE e.user_id = $1 ORDER BY e.id DESC`, [userId]);
}

export async function getEndpoint(q: Queryable, id: number, userId: number): Promise<Endpoint | null> {
  const [row] = await q.query<Endpoint>(`SELECT ${ENDPOINT} FROM webhook_endpoints e LEFT JOIN agents a ON a.id = e.agent_id
    WHERE e.id = $1 AND e.user_id = $2`, [id, userId]);
  return row ?? null;
}

export async function countEndpoints(q: Queryable, userId: number): Promise<number> {
  const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1', [userId]);
  return row.n;
}

/** Makes the endpoint; the secret is returned this once. */
export async function createEndpoint(q: Queryable, box: SecretBox, userId: number, f: EndpointFields): Promise<Endpoint & { secret: string }> {
  const secret = newSecret();
  const [{ id }] = await q.query<{ id: number }>(
    `INSERT INTO webhook_endpoints (user_id, url, events, agent_id, secret, secret_prefix) VALUES ($1, $2, $3, $4, '', $5) RETURNING id`,
    [userId, f.url, f.events, f.agentId, secret.slice(0, 9)]);
  await q.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [id, box.seal(secret, secretLabel(id))]);
  return { ...(await getEndpoint(q, id, userId))!, secret };
}

export async function updateEndpoint(q: Queryable, id: number, f: Partial<EndpointFields> & { enabled?: boolean }): Promise<void> {
  await q.query(
    `UPDATE webhook_endpoints SET url = coalesce($2, url), events = coalesce($3, events),
       agent_id = CASE WHEN $4 THEN $5 ELSE agent_id END,
       enabled = coalesce($6, enabled),
       disabled_reason = CASE WHEN $6 IS NULL THEN disabled_reason WHEN $6 THEN NULL ELSE 'Turned off by its owner' END,
       failing_since = CASE WHEN $6 THEN NULL ELSE failing_since END
     WHERE id = $1`,
    [id, f.url ?? null, f.events ?? null, f.agentId !== undefined, f.agentId ?? null, f.enabled ?? null]);
}

export async function deleteEndpoint(q: Queryable, id: number): Promise<void> {
  await q.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
}

export type Delivery = {
  id: number; endpoint_id: number; event_id: string; type: string; status: 'pending' | 'delivered' | 'failed'; attempt: number;
  response_code: number | null; latency_ms: number | null; error: string | null; created_at: string; last_attempt_at: string | null;
  next_attempt_at: string | null;
};

export async function listDeliveries(q: Queryable, endpointId: number, limit: number, offset: number) {
  const deliveries = await q.query<Delivery>(
    `SELECT ${DELIVERY} FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.id DESC LIMIT $2 OFFSET $3`, [endpointId, limit, offset]);
  const [{ n }] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
  return { deliveries: deliveries.map(number), total: n };
}

async function oneDelivery(q: Queryable, id: number): Promise<Delivery> {
  const [row] = await q.query<Delivery>(`SELECT ${DELIVERY} FROM webhook_deliveries d WHERE d.id = $1`, [id]);
  return number(row);
}

/** A test event for this endpoint alone, whatever events it wants. */
export async function queueTest(q: Queryable, endpoint: Endpoint, eventId: string): Promise<Delivery> {
  const payload = { timestamp: new Date().toISOString(), data: { endpoint_id: endpoint.id, message: 'A test event from Agent Workspace.' } };
  const [{ id }] = await q.query<{ id: number }>(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload, next_attempt_at) VALUES ($1, $2, $3, $4::jsonb, now()) RETURNING id`,
    [endpoint.id, eventId, TEST_EVENT, JSON.stringify(payload)]);
  return oneDelivery(q, id);
}

/** The delivery's event once more, as a new delivery (the same id: a receiver that saw it may skip it); null if not the user's. */
export async function redeliver(q: Queryable, deliveryId: number, userId: number): Promise<Delivery | null> {
  const [row] = await q.query<{ id: number }>(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload, next_attempt_at)
     SELECT d.endpoint_id, d.event_id, d.type, d.payload, now() FROM webhook_deliveries d
     JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1 AND e.user_id = $2 RETURNING id`, [deliveryId, userId]);
  return row ? oneDelivery(q, row.id) : null;
}

/** bigint ids come back from the driver as strings; the API's ids are numbers. */
const number = (d: Delivery): Delivery => ({ ...d, id: Number(d.id) });
