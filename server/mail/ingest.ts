// Turns one accepted message into work: for each recipient agent, an inbound communication message
// on a new thread (or on the thread it answers), a user step with the text and the attachments as
// user_files, and the thread queued — the same writes as a user's message, in one transaction, so
// the 250 the intake answers afterwards means it is all stored.
import type { Db } from '../db/db.ts';
import { findReplyThread, insertInbound } from '../domain/comm-messages.ts';
import type { Mailbox } from '../domain/email-settings.ts';
import { announceScheduledInput, insertScheduledInput, insertThread, lockAgents } from '../domain/threads.ts';
import { recordFiles } from '../domain/uploads.ts';
import type { AgentStorage } from '../files/agent-storage.ts';
import { removeStoredFile, storableName, storeFile, type UploadHook } from '../files/storage.ts';
import type { Bus } from '../realtime/bus.ts';
import { parseMail, type ParsedMail } from './parse-mail.ts';

export type IngestDeps = {
  db: Db; bus: Bus; dataDir: string; onUpload?: UploadHook;
  /** Bytes each agent may keep (read per message), when `storage` is not given. */
  storageQuota: () => number;
  /** The agents' storage: one quota for all they keep (screenshot included), and the disk's reserve (507 below it). */
  storage?: AgentStorage;
};
export type Delivery = { mailFrom: string; recipients: { mailbox: Mailbox; address: string }[]; raw: Buffer };

/** Stores the message for every recipient; returns the thread ids (in recipient order). */
export async function ingestMail(deps: IngestDeps, delivery: Delivery): Promise<number[]> {
  const mail = await parseMail(delivery.raw);
  const stored: { agentId: number; files: Awaited<ReturnType<typeof storeFile>>[]; sizes: number[] }[] = [];
  const attachmentBytes = mail.attachments.reduce((n, a) => n + a.content.byteLength, 0);
  // Below the disk's reserve no attachment is written: OutOfSpace (the intake answers 452).
  if (attachmentBytes) await deps.storage?.admit(attachmentBytes * delivery.recipients.length);
  try {
    for (const { mailbox } of delivery.recipients) {
      const files = [];
      for (const a of mail.attachments) files.push(await storeFile(deps.dataDir, mailbox.id, a.filename, a.content));
      stored.push({ agentId: mailbox.id, files, sizes: mail.attachments.map((a) => a.content.byteLength) });
    }
    const results = await deps.db.tx(async (q) => {
      const out = [];
      await lockAgents(q, delivery.recipients.map((r) => r.mailbox.id));
      for (const [i, { mailbox, address }] of delivery.recipients.entries()) {
        const { files, sizes } = stored[i];
        const threadId = (await findReplyThread(q, mailbox.id, mail.answers))
          ?? (await insertThread(q, mailbox.id, { name: mail.subject || `E-mail from ${delivery.mailFrom}` })).id;
        const paths = files.map((f) => f.file_path);
        await insertInbound(q, {
          threadId, from: delivery.mailFrom, to: address, subject: mail.subject, text: mail.text, files: paths,
          messageId: mail.messageId, inReplyTo: mail.inReplyTo, references: mail.references,
        });
        // Attachments count against the agent's storage quota like uploads (the intake answers 552 when full).
        await recordFiles(q, mailbox.owner_id, mailbox.id, files.map((f, j) => ({
          file_path: f.file_path, original_name: storableName(mail.attachments[j].filename), size: sizes[j],
          content_type: storableName(mail.attachments[j].mimeType),
        })), deps.storage ? await deps.storage.quota(mailbox.id) : deps.storageQuota());
        const input = await insertScheduledInput(q, threadId, mailbox.id, userText(delivery.mailFrom, mail), paths);
        out.push({ threadId, input });
      }
      return out;
    });
    for (const [i, { input }] of results.entries()) {
      announceScheduledInput(deps.bus, input);
      for (const f of stored[i].files) await deps.onUpload?.(input.step.agent_id, f.path, f.name);
    }
    return results.map((r) => r.threadId);
  } catch (err) {
    for (const { files } of stored) for (const f of files) await removeStoredFile(deps.dataDir, f.file_path);
    throw err;
  }
}

/** What the agent reads: who wrote and about what, then the text (it answers with the email tool). */
function userText(from: string, mail: ParsedMail): string {
  const head = [`E-mail from ${from}`, mail.subject && `Subject: ${mail.subject}`].filter(Boolean).join('\n');
  return `${head}\n\n${mail.text.trim() || '(no text)'}`;
}
