// Delivers approved (queued) mail: claims one due message at a time (exactly one instance gets each,
// see mail/outbox.ts), sends it, and records success, or a retry with exponential backoff, or —
// after maxAttempts — dead with the last error. Woken on the bus when a message is queued; it also
// polls, and sleeps until the next retry is due.
import type { Db } from '../db/db.ts';
import { claimDue, markFailed, markSent, msUntilNextDue, type OutboundMail } from './outbox.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import { createDelivery, type Delivery } from './transport.ts';
import { TOPICS } from '../realtime/topics.ts';

export type SenderOptions = {
  db: Db; bus: Bus; log: Log; dataDir: string; mailDomain: string; relayUrl: string | null; relayInsecure?: boolean;
  maxAttempts?: number; retryBaseMs?: number; retryMaxMs?: number; pollMs?: number; leaseMs?: number;
};

export class MailSender {
  readonly delivery: Delivery;
  private running = false;
  private loop: Promise<void> | null = null;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private o: Required<SenderOptions>;

  constructor(options: SenderOptions) {
    this.o = { relayInsecure: false, maxAttempts: 6, retryBaseMs: 30_000, retryMaxMs: 3_600_000, pollMs: 15_000, leaseMs: 10 * 60_000, ...options };
    this.delivery = createDelivery(options.relayUrl, options.dataDir, { insecure: options.relayInsecure });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.o.bus.subscribe(TOPICS.mailQueued, () => this.wake());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake();
    await this.loop;
  }

  /** Closes the relay connection for good (stop() alone allows a later start()). */
  async close(): Promise<void> {
    await this.stop();
    this.delivery.close();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Sends the next due message, if any; true when there was one. */
  async sendOne(): Promise<boolean> {
    const mail = await claimDue(this.o.db, this.o.leaseMs);
    if (!mail) return false;
    try {
      await this.delivery.send(this.compose(mail));
      await markSent(this.o.db, mail);
    } catch (err) {
      const error = (err as Error).message || String(err);
      const retryIn = mail.attempts >= this.o.maxAttempts ? null : Math.min(this.o.retryMaxMs, this.o.retryBaseMs * 2 ** (mail.attempts - 1));
      await markFailed(this.o.db, mail, error, retryIn);
      const next = retryIn === null ? 'dead' : `retry in ${retryIn} ms`;
      this.o.log.error(`mail ${mail.id} to ${mail.to_address}: attempt ${mail.attempts} failed (${next}): ${error}`);
    }
    this.o.bus.publish(TOPICS.agentChanged(mail.agent_id), { agent_id: mail.agent_id });
    return true;
  }

  private compose(mail: OutboundMail) {
    return {
      id: mail.id,
      from: mail.from_address || `no-reply@${this.o.mailDomain}`,
      to: mail.to_address,
      subject: mail.subject,
      text: mail.text,
      messageId: mail.message_id ?? undefined,
      inReplyTo: mail.in_reply_to ?? undefined,
      references: mail.reference_ids || undefined,
    };
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let next: number | null = null;
      try {
        while (this.running && (await this.sendOne()));
        next = await msUntilNextDue(this.o.db);
      } catch (err) {
        if (this.running) this.o.log.error(`mail sender: ${(err as Error).message}`);
      }
      if (this.running && !this.woken) await this.sleep(Math.min(this.o.pollMs, next ?? Infinity));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }
}
