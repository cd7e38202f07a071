// Sends the queued deliveries (issue 46). Every instance runs one: it claims due deliveries with SKIP LOCKED and
// moves their next attempt on by a lease before sending, so two instances never send one at once and a delivery
// whose instance died is tried again when the lease ends (at least once). It looks when woken on the bus (an
// event was queued, on any instance) and when the next retry falls due. A failure is retried with exponential
// backoff and jitter for 24 hours; an endpoint that has failed for 3 days is turned off and its owner told.
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';
import type { SecretBox } from '../system/secret-box.ts';
import { checkedAddress, RefusedTarget, type Resolve } from './address-guard.ts';
import { secretLabel } from './endpoints.ts';
import { ClaimLoop } from './claim-loop.ts';
import { send, SEND_TIMEOUT_MS, type Attempt } from './send.ts';
import { signedHeaders } from './signature.ts';

const PARALLEL = 16; // attempts in flight per instance: a slow endpoint holds one, not the queue
const LEASE_SECONDS = 60; // longer than an attempt can take
const RETRY_FOR_MS = 24 * 3600_000;
const DISABLE_AFTER = '3 days';
const FIRST_RETRY_MS = 5_000;
const LONGEST_WAIT_MS = 6 * 3600_000;
/** The log keeps a delivery this long after it was made (a pending one until it is settled). */
export const KEEP_DAYS = 30;

export type DelivererDeps = {
  db: Db;
  bus: Bus;
  box: SecretBox;
  log: { error: (m: string) => void };
  /** The app's origin: an event's links are paths made whole with it. */
  origin: () => string;
  /** WEBHOOK_ALLOW_PRIVATE, read per attempt. */
  allowPrivate: () => boolean;
  /** Tells an endpoint's owner it was turned off (an e-mail when mail can be sent). */
  tellOwner: (to: string, subject: string, text: string) => Promise<void>;
  resolve?: Resolve;
  timeoutMs?: number;
};

type Claimed = {
  id: string; event_id: string; type: string; payload: { timestamp: string; data: Record<string, unknown> }; created_at: Date | string;
  attempt: number; endpoint_id: number; url: string; secret: string; enabled: boolean;
};

/** How long to wait after the n-th failed attempt: doubling from 5 s up to 6 h, less a random part of up to a half. */
export function retryDelay(attempt: number, random = Math.random()): number {
  const full = Math.min(LONGEST_WAIT_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(full * (1 - random / 2));
}

export class Deliverer {
  private loop: ClaimLoop<Claimed>;
  private pruning: NodeJS.Timeout | null = null;
  private unsubscribe: () => void = () => {};

  constructor(private d: DelivererDeps) {
    this.loop = new ClaimLoop({
      claim: (limit) => this.claim(limit), deliver: (c) => this.deliver(c), nextDueMs: () => this.nextDueMs(),
      label: 'webhooks', log: d.log, parallel: PARALLEL,
    });
  }

  start(): void {
    this.unsubscribe = this.d.bus.subscribe(TOPICS.webhooksQueued, () => this.loop.wake());
    this.loop.wake();
    const prune = () => void this.prune().catch((err) => this.d.log.error(`webhooks: prune failed: ${err.message}`));
    prune();
    this.pruning = setInterval(prune, 6 * 3600_000).unref();
  }

  /** Deletes the settled deliveries older than KEEP_DAYS (on several instances the second prune finds nothing). */
  async prune(): Promise<number> {
    const rows = await this.d.db.query(
      `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < now() - interval '${KEEP_DAYS} days' RETURNING id`);
    return rows.length;
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    if (this.pruning) clearInterval(this.pruning);
    await this.loop.stop();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    this.loop.wake();
  }

  private claim(limit: number): Promise<Claimed[]> {
    return this.d.db.query<Claimed>(
      `UPDATE webhook_deliveries d SET next_attempt_at = now() + interval '${LEASE_SECONDS} seconds', attempt = d.attempt + 1
       FROM webhook_endpoints e
       WHERE e.id = d.endpoint_id AND d.id IN (
         SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.event_id, d.type, d.payload, d.created_at, d.attempt, d.endpoint_id, e.url, e.secret, e.enabled`, [limit]);
  }

  private async deliver(c: Claimed): Promise<void> {
    if (!c.enabled) return this.settle(c, { ok: false, status: null, latencyMs: 0, error: 'the endpoint is turned off' }, true);
    const body = JSON.stringify({ type: c.type, timestamp: c.payload.timestamp, data: this.withOrigin(c.payload.data) });
    let attempt: Attempt;
    try {
      const url = new URL(c.url);
      const address = await checkedAddress(url, this.d.allowPrivate(), this.d.resolve);
      const secret = this.d.box.open(c.secret, secretLabel(c.endpoint_id));
      const headers = signedHeaders(secret, c.event_id, Math.floor(Date.now() / 1000), body);
      attempt = await send(url, address, headers, body, this.d.timeoutMs ?? SEND_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof RefusedTarget)) this.d.log.error(`webhooks: delivery ${c.id}: ${(err as Error).message}`);
      attempt = { ok: false, status: null, latencyMs: 0, error: (err as Error).message };
    }
    await this.settle(c, attempt, false);
  }

  /** Writes the attempt's outcome: delivered, a retry later, or given up (24 hours on, or `final`). */
  private async settle(c: Claimed, a: Attempt, final: boolean): Promise<void> {
    const { db } = this.d;
    if (a.ok) {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', response_code = $2, latency_ms = $3, error = NULL, last_attempt_at = now(),
           next_attempt_at = NULL WHERE id = $1`, [c.id, a.status, a.latencyMs]);
      await db.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [c.endpoint_id]);
      return;
    }
    const wait = retryDelay(c.attempt);
    const giveUp = final || Date.now() + wait > new Date(c.created_at).getTime() + RETRY_FOR_MS;
    await db.query(
      `UPDATE webhook_deliveries SET status = $2, response_code = $3, latency_ms = $4, error = $5, last_attempt_at = now(),
         next_attempt_at = CASE WHEN $2 = 'pending' THEN now() + $6 * interval '1 millisecond' END WHERE id = $1`,
      [c.id, giveUp ? 'failed' : 'pending', a.status, a.latencyMs, a.error, wait]);
    if (!final) await this.noteFailure(c.endpoint_id);
  }

  /** The endpoint fails since its first failure after a success; after 3 days it is turned off, once. */
  private async noteFailure(endpointId: number): Promise<void> {
    const [row] = await this.d.db.query<{ url: string; email: string; failing_since: Date | string; turned_off: boolean }>(
      `WITH old AS (SELECT enabled, failing_since < now() - interval '${DISABLE_AFTER}' AS expired FROM webhook_endpoints WHERE id = $1 FOR UPDATE)
       UPDATE webhook_endpoints e SET failing_since = coalesce(e.failing_since, now()),
         enabled = e.enabled AND NOT coalesce(old.expired, false),
         disabled_reason = CASE WHEN e.enabled AND old.expired
           THEN 'Failing since ' || to_char(e.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC' ELSE e.disabled_reason END
       FROM old, users u WHERE e.id = $1 AND u.id = e.user_id
       RETURNING e.url, u.email, e.failing_since, old.enabled AND coalesce(old.expired, false) AS turned_off`, [endpointId]);
    const off = row?.turned_off ? row : null;
    if (!off) return;
    const text = `Your webhook endpoint ${off.url} has failed every delivery since ${new Date(off.failing_since).toUTCString()}, `
      + 'so Agent Workspace has turned it off and sends it nothing more.\n\n'
      + `See its deliveries and turn it back on in Settings, Webhooks: ${this.d.origin()}/settings/webhooks\n`;
    await this.d.tellOwner(off.email, 'A webhook endpoint was turned off', text)
      .catch((err) => this.d.log.error(`webhooks: the owner of endpoint ${endpointId} was not told: ${err.message}`));
  }

  private withOrigin(data: Record<string, unknown>): Record<string, unknown> {
    const links = data.links as Record<string, string> | undefined;
    if (!links) return data;
    const origin = this.d.origin();
    return { ...data, links: Object.fromEntries(Object.entries(links).map(([k, path]) => [k, origin + path])) };
  }

  private async nextDueMs(): Promise<number | null> {
    const [row] = await this.d.db.query<{ ms: number | null }>(
      `SELECT extract(epoch FROM (min(next_attempt_at) - now())) * 1000 AS ms FROM webhook_deliveries WHERE status = 'pending'`);
    return row?.ms === null || row?.ms === undefined ? null : Number(row.ms);
  }
}
