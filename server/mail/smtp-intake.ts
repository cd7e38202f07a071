// The SMTP intake on SMTP_PORT for MAIL_DOMAIN (smtp-server): recipients are checked at RCPT —
// an unknown prefix or a sender the agent does not accept is refused there with a 5xx, a client
// address or sender over its rate with 450 — and a message is answered 250 only once ingestMail has
// committed it (a passing failure there is a 451, so the sending server tries again; what can never
// be stored is a 554). The From of an accepted sender must pass SPF/DKIM/DMARC (sender-auth.ts) or
// the mail is held (MAIL_AUTH=hold) or refused (enforce). Over MAIL_MAX_BYTES is 552. STARTTLS only
// with a configured certificate; no AUTH: this only receives.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { MailLimits } from '../config/index.ts';
import { findMailbox, type Mailbox } from './email-settings.ts';
import type { Log } from '../ops/log.ts';
import { acceptsSender } from './accept-from.ts';
import { recipientPrefix, splitAddress } from './address.ts';
import { QuotaExceeded } from '../agents/uploads.ts';
import { databaseCannotWrite } from '../db/unavailable.ts';
import { isOutOfSpace, OutOfSpace } from '../files/safe-write.ts';
import { ingestMail, type IngestDeps } from './ingest.ts';
import { parseMail } from './parse-mail.ts';
import { RateLimiter } from '../ops/rate-limit.ts';
import { systemResolver, verifySender, type DnsResolver, type MailAuthMode, type SenderVerdict } from './sender-auth.ts';
import { TlsReloader, type TlsFiles } from './tls-files.ts';

export type IntakeOptions = IngestDeps & {
  port: number; mailDomain: string; maxBytes: number; log: Log;
  /** MAIL_AUTH, read per message. */
  auth: () => MailAuthMode;
  /** Read when used (tests change them on a running intake); idleMs only at construction. */
  limits: MailLimits;
  tls?: TlsFiles | null;
  requireTls?: boolean;
  resolver?: DnsResolver;
};

/** What the intake turned away or held, for /api/metrics. */
export type IntakeCounts = { throttled: number; refusedConnections: number; held: number; unverified: number };

const MAX_RECIPIENTS = 50;

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

export class SmtpIntake {
  private server: SMTPServer;
  /** The bound port (config 0 picks a free one). */
  port = 0;
  /** The DNS the sender checks use (tests put an in-memory zone here). */
  resolver: DnsResolver;
  readonly counts: IntakeCounts = { throttled: 0, refusedConnections: 0, held: 0, unverified: 0 };
  private perIp = new RateLimiter(Infinity, 60_000);
  private perSender = new RateLimiter(Infinity, 60_000);
  private open = new Map<string, number>();
  private counted = new Set<string>();
  private tls: TlsReloader | null;

  constructor(private o: IntakeOptions) {
    this.resolver = o.resolver ?? systemResolver();
    this.tls = o.tls ? new TlsReloader(o.tls, o.log.error) : null;
    const options: SMTPServerOptions = {
      name: o.mailDomain,
      banner: 'Agent Workspace mail intake',
      size: o.maxBytes,
      authOptional: true,
      disabledCommands: this.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      logger: false,
      maxClients: 200,
      socketTimeout: o.limits.idleMs, // an idle client gives its slot back soon
      closeTimeout: 2000, // close() waits this long for open sessions, then ends them
      onConnect: (session, done) => void this.connect(session).then(done, done),
      onClose: (session) => this.disconnect(session),
      onMailFrom: (_address, session, done) => done(this.o.requireTls && !session.secure ? smtpError(530, '5.7.0 Must issue a STARTTLS command first') : null),
      onRcptTo: (address, session, done) => this.recipient(address.address, session).then(() => done(), done),
      onData: (stream, session, done) => this.receive(stream, session).then(() => done(), done),
    };
    this.server = new SMTPServer(options);
    // Per-connection failures (resets, timeouts) are the client's business, never the server's end.
    this.server.on('error', (err) => o.log.error(`smtp: ${err.message}`));
  }

  async listen(): Promise<number> {
    await this.refreshTls(); // a certificate that cannot be read stops the start
    await new Promise<void>((resolve, reject) => {
      const server = this.server.server;
      server.once('error', reject);
      this.server.listen(this.o.port, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.server.address() as AddressInfo).port;
    return this.port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** A renewed certificate (or key) is used from the next STARTTLS on, with or without SNI. */
  private async refreshTls(): Promise<void> {
    const pair = await this.tls?.changed();
    if (pair) this.server.updateSecureContext(pair);
  }

  /** One address may hold only so many connections: the rest of the world keeps the other slots. */
  private async connect(session: SMTPServerSession): Promise<Error | null> {
    await this.refreshTls().catch((err) => this.o.log.error(`smtp: ${(err as Error).message}`));
    const ip = session.remoteAddress;
    const n = this.open.get(ip) ?? 0;
    if (n >= this.o.limits.connectionsPerIp) {
      this.counts.refusedConnections++;
      return smtpError(421, `4.7.0 Too many connections from ${ip}, try again later`);
    }
    this.open.set(ip, n + 1);
    this.counted.add(session.id);
    return null;
  }

  private disconnect(session: SMTPServerSession): void {
    if (!this.counted.delete(session.id)) return;
    const n = (this.open.get(session.remoteAddress) ?? 1) - 1;
    if (n > 0) this.open.set(session.remoteAddress, n);
    else this.open.delete(session.remoteAddress);
  }

  /** The mailbox for this recipient if the envelope sender may write to it; else a 5xx error. */
  private async mailbox(rcpt: string, session: SMTPServerSession): Promise<Mailbox> {
    if (!splitAddress(rcpt)) throw smtpError(553, `5.1.3 <${rcpt}>: not a valid address`);
    const prefix = recipientPrefix(rcpt, this.o.mailDomain);
    if (prefix === null) throw smtpError(550, `5.7.1 <${rcpt}>: relay access denied, this server only takes mail for @${this.o.mailDomain}`);
    const mailbox = await findMailbox(this.o.db, prefix);
    if (!mailbox) throw smtpError(550, `5.1.1 <${rcpt}>: no such mailbox here`);
    const sender = envelopeSender(session);
    if (!acceptsSender(mailbox.email_accept_from_addresses, sender)) {
      throw smtpError(550, `5.7.1 <${rcpt}>: sender <${sender}> is not accepted by this mailbox`);
    }
    return mailbox;
  }

  private async recipient(rcpt: string, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) throw smtpError(452, '4.5.3 Too many recipients');
    const mailbox = await this.mailbox(rcpt, session);
    const { perIpPerMinute, perSenderPerMinute } = this.o.limits;
    const sender = envelopeSender(session).toLowerCase();
    if (this.perIp.take(session.remoteAddress, perIpPerMinute) || this.perSender.take(`${mailbox.id} ${sender}`, perSenderPerMinute)) {
      this.counts.throttled++;
      throw smtpError(450, '4.7.1 Too much mail from you right now, try again later');
    }
  }

  private async receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= this.o.maxBytes) chunks.push(chunk); // past the cap the rest is only drained
    }
    if (stream.sizeExceeded || size > this.o.maxBytes) {
      throw smtpError(552, `5.3.4 Message too big: the limit is ${this.o.maxBytes} bytes`);
    }
    // The settings may have changed since RCPT: look the recipients up again, once per agent.
    const mailboxes = new Map<number, { mailbox: Mailbox; address: string }>();
    for (const { address } of session.envelope.rcptTo) {
      const mailbox = await this.mailbox(address, session).catch(() => null);
      if (mailbox && !mailboxes.has(mailbox.id)) mailboxes.set(mailbox.id, { mailbox, address });
    }
    if (!mailboxes.size) throw smtpError(550, '5.1.1 No valid recipients left');
    const raw = Buffer.concat(chunks);
    const mail = await parseMail(raw);
    const mode = this.o.auth();
    const verdict: SenderVerdict = mode === 'off' ? { identity: null, summary: 'not checked (MAIL_AUTH=off)' } : await verifySender(raw, {
      ip: session.remoteAddress, helo: session.hostNameAppearsAs, mailFrom: envelopeSender(session), from: mail.from,
    }, this.resolver, this.o.mailDomain);
    const recipients = [...mailboxes.values()].map((r) => {
      const verified = mode === 'off' ? null : !!verdict.identity && acceptsSender(r.mailbox.email_accept_from_addresses, verdict.identity);
      const notAccepted = verified === false && verdict.identity;
      return { ...r, verified, auth: notAccepted ? `From <${verdict.identity}> is verified but not an accepted sender` : verdict.summary };
    });
    const unverified = recipients.filter((r) => r.verified === false);
    if (unverified.length) this.counts.unverified++;
    if (mode === 'enforce' && unverified.length) {
      throw smtpError(550, `5.7.1 Sender not verified: ${unverified[0].auth}`);
    }
    try {
      const threads = await ingestMail(this.o, { mailFrom: envelopeSender(session), recipients, raw, runsPerHour: this.o.limits.runsPerAgentPerHour }, mail);
      this.counts.held += threads.filter((t) => t.held).length;
    } catch (err) {
      if (err instanceof QuotaExceeded) throw smtpError(552, `5.2.2 Mailbox full: ${err.message}`);
      // A full disk (or a database that cannot write) passes: the sending server tries again later.
      if (err instanceof OutOfSpace || isOutOfSpace(err) || databaseCannotWrite(err)) {
        this.o.log.error(`smtp: message from <${envelopeSender(session)}> not stored: ${(err as Error).message}`);
        throw smtpError(452, '4.3.1 Insufficient system storage, please try again later');
      }
      this.o.log.error(`smtp: message from <${envelopeSender(session)}> not stored: ${(err as Error).stack ?? err}`);
      // PostgreSQL's data exceptions (class 22: a byte sequence, a value out of range) fail again on every retry.
      if (/^22/.test(String((err as { code?: unknown }).code ?? ''))) throw smtpError(554, '5.6.0 This message cannot be stored here');
      throw smtpError(451, '4.3.0 Could not store the message now, please try again later');
    }
  }
}

function envelopeSender(session: SMTPServerSession): string {
  return session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
}
