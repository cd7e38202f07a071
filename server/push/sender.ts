// Sends the queued notifications (issue 47). Every instance runs one, woken on the bus when an event was queued
// (TOPICS.webhooksQueued: the same wake as the webhooks' deliverer, published after the commit that queued both)
// and when a retry falls due. It claims with SKIP LOCKED and a lease (push/queue.ts): at least once, never by two
// instances at once. A push is encrypted for its device (RFC 8291), signed for its push service (VAPID), and POSTed
// to the address the guard checked, no redirects, 10 s. A device the push service says is gone (404, 410) is
// deleted; a refusal that cannot get better (another 4xx) drops the notification; anything else is tried again after
// 5 s, 30 s, 2 min and 10 min, never later than an hour after the event (a notification is worth nothing then).
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';
import type { SecretBox } from '../system/secret-box.ts';
import { record, SYSTEM } from '../audit/audit.ts';
import { checkedAddress, ClaimLoop, RefusedTarget, send, SEND_TIMEOUT_MS, type Attempt, type Resolve } from '../webhooks/index.ts';
import { encryptPayload } from './encrypt.ts';
import { helpPath, openHelpToken, pruneHelpLinks } from './help-links.ts';
import { notificationOf } from './notification.ts';
import { claimPushes, dropPush, nextPushDue, pushSent, retryPushLater, type Claimed } from './queue.ts';
import { deleteDevice } from './subscriptions.ts';
import type { Vapid } from './vapid.ts';

const PARALLEL = 16; // pushes in flight per instance: a slow push service holds one, not the queue
const LEASE_SECONDS = 30; // longer than an attempt can take (10 s)
export const WORTH_MS = 3600_000;
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

export type PushSenderDeps = {
  db: Db;
  bus: Bus;
  box: SecretBox;
  vapid: Vapid;
  log: { error: (m: string) => void };
  /** WEBHOOK_ALLOW_PRIVATE, read per attempt. */
  allowPrivate: () => boolean;
  resolve?: Resolve;
  timeoutMs?: number;
  /** The waits between attempts (tests shorten them). */
  retryDelaysMs?: number[];
};

export class PushSender {
  private loop: ClaimLoop<Claimed>;
  private pruning: NodeJS.Timeout | null = null;
  private unsubscribe: () => void = () => {};

  constructor(private d: PushSenderDeps) {
    this.loop = new ClaimLoop({
      claim: (limit) => claimPushes(d.db, limit, LEASE_SECONDS), deliver: (c) => this.deliver(c), nextDueMs: () => nextPushDue(d.db),
      label: 'push', log: d.log, parallel: PARALLEL,
    });
  }

  start(): void {
    this.unsubscribe = this.d.bus.subscribe(TOPICS.webhooksQueued, () => this.loop.wake());
    this.loop.wake();
    const prune = () => void pruneHelpLinks(this.d.db).catch((err) => this.d.log.error(`push: help links not pruned: ${err.message}`));
    prune();
    this.pruning = setInterval(prune, 6 * 3600_000).unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    if (this.pruning) clearInterval(this.pruning);
    await this.loop.stop();
  }

  /** Looks for due notifications now. */
  wake(): void {
    this.loop.wake();
  }

  private async deliver(c: Claimed): Promise<void> {
    const left = WORTH_MS - (Date.now() - new Date(c.created_at).getTime());
    if (left < 1000) return this.giveUp(c, 'over an hour old');
    let attempt: Attempt;
    try {
      const link = c.link_token && c.link_hash ? helpPath(openHelpToken(this.d.box, c.link_token, c.link_hash)) : null;
      const note = notificationOf(c.type, c.payload.data, link, c.subscription_id);
      const body = encryptPayload(Buffer.from(JSON.stringify(note)), { p256dh: Buffer.from(c.p256dh, 'base64url'), auth: Buffer.from(c.auth, 'base64url') });
      const url = new URL(c.endpoint);
      const address = await checkedAddress(url, this.d.allowPrivate(), this.d.resolve);
      attempt = await send(url, address, {
        'content-type': 'application/octet-stream', 'content-encoding': 'aes128gcm', ttl: String(Math.floor(left / 1000)),
        urgency: c.type === 'run.needs_help' ? 'high' : 'normal', authorization: await this.d.vapid.authorization(url),
        'user-agent': 'AgentWorkspace-Push/1',
      }, body, this.d.timeoutMs ?? SEND_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof RefusedTarget)) this.d.log.error(`push: notification ${c.id}: ${(err as Error).message}`);
      attempt = { ok: false, status: null, latencyMs: 0, error: (err as Error).message };
    }
    await this.settle(c, attempt, left);
  }

  private async settle(c: Claimed, a: Attempt, left: number): Promise<void> {
    const { db } = this.d;
    if (a.ok) return pushSent(db, c);
    if (a.status === 404 || a.status === 410) return this.forgetDevice(c, a.status);
    // A redirect, a malformed or refused push (400, 401/403: a key the subscription was not made with, 413): as
    // bad next time. A timeout (408), too many requests (429), a server error or no answer may pass.
    const final = a.status !== null && a.status >= 300 && a.status < 500 && a.status !== 408 && a.status !== 429;
    const delays = this.d.retryDelaysMs ?? RETRY_DELAYS_MS;
    const wait = delays[c.attempt - 1];
    if (final || wait === undefined || wait >= left) return this.giveUp(c, a.error ?? `answered ${a.status}`);
    await retryPushLater(db, c.id, wait);
  }

  private async giveUp(c: Claimed, why: string): Promise<void> {
    this.d.log.error(`push: notification ${c.id} (${c.type}) to ${new URL(c.endpoint).origin} given up after ${c.attempt} attempts: ${why}`);
    await dropPush(this.d.db, c.id);
  }

  /** The push service says the subscription is gone (the browser unsubscribed, or it expired): so is the device. */
  private async forgetDevice(c: Claimed, status: number): Promise<void> {
    await this.d.db.tx(async (q) => {
      if (!(await deleteDevice(q, c.subscription_id))) return;
      await record(q, {
        action: 'push.unsubscribe', actor: SYSTEM, background: true, target: { type: 'push_device', id: c.subscription_id },
        detail: { reason: `the push service answered ${status}`, endpoint_origin: new URL(c.endpoint).origin },
      });
    });
  }
}
