// How an approved message leaves: through the SMTP relay of SMTP_RELAY_URL (smtp://user:pass@host:port,
// smtps://… for TLS from the start), or, with none set, as an .eml file in $DATA_DIR/outbox/ built by
// nodemailer's stream transport — the exact bytes a relay would have been given.
// The outbox file is message-<id>-<Message-ID uuid>.eml. A password never crosses the network in
// clear: an smtp:// URL with credentials requires STARTTLS (SMTP_RELAY_INSECURE=1 allows otherwise).
import { mkdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { nodeFs, writeFileOrRemove, type FileSystem } from '../files/safe-write.ts';

export type Delivery = { send(message: SendMailOptions & { id: number }): Promise<void>; close(): void; describe: string };

export function outboxDir(dataDir: string): string {
  return join(dataDir, 'outbox');
}

/** message-<id>-<the Message-ID's left part>.eml */
export function outboxFileName(id: number, messageId: string): string {
  const unique = messageId.replace(/^<|@.*$|>$/g, '').replace(/[^A-Za-z0-9._-]/g, '') || randomUUID();
  return `message-${id}-${unique}.eml`;
}

/** `fs`: where outbox files are written (tests pass a failing one); `insecure`: SMTP_RELAY_INSECURE. */
export function createDelivery(relayUrl: string | null, dataDir: string, options: { insecure?: boolean; fs?: FileSystem } = {}): Delivery {
  const fs = options.fs ?? nodeFs;
  if (relayUrl) {
    const where = new URL(relayUrl);
    const requireTLS = where.protocol === 'smtp:' && !!(where.username || where.password) && !options.insecure;
    // Short timeouts: a hung relay must fail the attempt (and be retried), not hold the sender.
    const transport = nodemailer.createTransport({ url: relayUrl, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000, requireTLS });
    return {
      describe: `relay ${where.protocol}//${where.host}${requireTLS ? ' (STARTTLS required)' : ''}`,
      send: async ({ id, ...message }) => {
        const info = await transport.sendMail(message).catch((err) => {
          if (requireTLS && (err as { code?: string }).code === 'ETLS') {
            throw new Error(`the relay ${where.host} did not start TLS (STARTTLS), so its password was not sent; `
              + `fix the relay or set SMTP_RELAY_INSECURE=1 (${(err as Error).message})`);
          }
          throw err;
        });
        if (info.rejected.length) throw new Error(`the relay refused ${info.rejected.join(', ')}: ${info.response}`);
      },
      close: () => transport.close(),
    };
  }
  const dir = outboxDir(dataDir);
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    describe: dir,
    send: async ({ id, ...message }) => {
      const info = await transport.sendMail(message);
      await mkdir(dir, { recursive: true });
      // Named after the Message-ID too, so ids of another database using this folder never collide;
      // written whole then renamed, so whoever watches the folder never reads half a message. A full disk leaves
      // no .tmp behind and fails the attempt with 'Not enough storage space on the server' (retried later).
      const file = join(dir, outboxFileName(id, typeof message.messageId === 'string' ? message.messageId : ''));
      await writeFileOrRemove(`${file}.tmp`, info.message as Buffer, { flag: 'w' }, fs);
      await rename(`${file}.tmp`, file).catch(async (err) => {
        await unlink(`${file}.tmp`).catch(() => {});
        throw err;
      });
    },
    close: () => transport.close(),
  };
}
