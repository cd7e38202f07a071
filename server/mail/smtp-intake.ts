// The SMTP intake on SMTP_PORT for MAIL_DOMAIN (smtp-server): recipients are checked at RCPT —
// an unknown prefix or a sender the agent does not accept is refused there with a 5xx — and a
// message is answered 250 only once ingestMail has committed it (a failure there is a 451, so the
// sending server tries again). Over MAIL_MAX_BYTES is 552. No AUTH or STARTTLS: this only receives.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { findMailbox, type Mailbox } from '../domain/email-settings.ts';
import type { Log } from '../ops/log.ts';
import { acceptsSender } from './accept-from.ts';
import { recipientPrefix, splitAddress } from './address.ts';
import { QuotaExceeded } from '../domain/uploads.ts';
import { databaseCannotWrite } from '../db/unavailable.ts';
import { isOutOfSpace, OutOfSpace } from '../files/safe-write.ts';
import { ingestMail, type IngestDeps } from './ingest.ts';

export type IntakeOptions = IngestDeps & { port: number; mailDomain: string; maxBytes: number; log: Log };

const MAX_RECIPIENTS = 50;

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

export class SmtpIntake {
  private server: SMTPServer;
  /** The bound port (config 0 picks a free one). */
  port = 0;

  constructor(private o: IntakeOptions) {
    this.server = new SMTPServer({
      name: o.mailDomain,
      banner: 'Agent Workspace mail intake',
      size: o.maxBytes,
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      maxClients: 200,
      closeTimeout: 2000, // close() waits this long for open sessions, then ends them
      onRcptTo: (address, session, done) => this.recipient(address.address, session).then(() => done(), done),
      onData: (stream, session, done) => this.receive(stream, session).then(() => done(), done),
    });
    // Per-connection failures (resets, timeouts) are the client's business, never the server's end.
    this.server.on('error', (err) => o.log.error(`smtp: ${err.message}`));
  }

  async listen(): Promise<number> {
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

  /** The mailbox for this recipient if the envelope sender may write to it; else a 5xx error. */
  private async mailbox(rcpt: string, session: SMTPServerSession): Promise<Mailbox> {
    if (!splitAddress(rcpt)) throw smtpError(553, `5.1.3 <${rcpt}>: not a valid address`);
    const prefix = recipientPrefix(rcpt, this.o.mailDomain);
    if (prefix === null) throw smtpError(550, `5.7.1 <${rcpt}>: relay access denied, this server only takes mail for @${this.o.mailDomain}`);
    const mailbox = await findMailbox(this.o.db, prefix);
    if (!mailbox) throw smtpError(550, `5.1.1 <${rcpt}>: no such mailbox here`);
    const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    if (!acceptsSender(mailbox.email_accept_from_addresses, sender)) {
      throw smtpError(550, `5.7.1 <${rcpt}>: sender <${sender}> is not accepted by this mailbox`);
    }
    return mailbox;
  }

  private async recipient(rcpt: string, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) throw smtpError(452, '4.5.3 Too many recipients');
    await this.mailbox(rcpt, session);
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
    const recipients = new Map<number, { mailbox: Mailbox; address: string }>();
    for (const { address } of session.envelope.rcptTo) {
      const mailbox = await this.mailbox(address, session).catch(() => null);
      if (mailbox && !recipients.has(mailbox.id)) recipients.set(mailbox.id, { mailbox, address });
    }
    if (!recipients.size) throw smtpError(550, '5.1.1 No valid recipients left');
    try {
      await ingestMail(this.o, { mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', recipients: [...recipients.values()], raw: Buffer.concat(chunks) });
    } catch (err) {
      if (err instanceof QuotaExceeded) throw smtpError(552, `5.2.2 Mailbox full: ${err.message}`);
      // A full disk (or a database that cannot write) passes: the sending server tries again later.
      if (err instanceof OutOfSpace || isOutOfSpace(err) || databaseCannotWrite(err)) {
        this.o.log.error(`smtp: message from <${session.envelope.mailFrom && session.envelope.mailFrom.address}> not stored: ${(err as Error).message}`);
        throw smtpError(452, '4.3.1 Insufficient system storage, please try again later');
      }
      this.o.log.error(`smtp: message from <${session.envelope.mailFrom && session.envelope.mailFrom.address}> not stored: ${(err as Error).stack ?? err}`);
      throw smtpError(451, '4.3.0 Could not store the message now, please try again later');
    }
  }
}
