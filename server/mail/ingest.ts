// Turns one accepted message into work: for each recipient agent, an inbound communication message
// on a new thread (or on the thread it answers), a user step with the text and the attachments as
// user_files, and the thread queued — the same writes as a user's message, in one transaction, so
// the 250 the intake answers afterwards means it is all stored. A mail is held instead of queued
// when its sender is not verified or the agent's mail already started its hourly runs: the thread
// then waits for its owner to run it, and the step says why.
import type { Db } from '../db/db.ts';
import { countMailRuns, findReplyThread, insertInbound, type HeldReason } from './comm-messages.ts';
import type { Mailbox } from './email-settings.ts';
import { announceInput, announceScheduledInput, insertScheduledInput, insertThread, insertUserInput, lockAgents } from '../threads/threads.ts';
import { recordFiles } from '../agents/uploads.ts';
import type { AgentStorage } from '../agents/storage.ts';
import { storableName, type UploadHook } from '../files/storage.ts';
import { removeStoredFile, storeFile } from '../agents/stored-files.ts';
import { withLocalCopy, type BlobStore } from '../storage/index.ts';
import type { Bus } from '../realtime/bus.ts';
import { cleanLine } from './clean-text.ts';
import { parseMail, type ParsedMail } from './parse-mail.ts';

export type IngestDeps = {
  db: Db; bus: Bus; blobs: BlobStore; onUpload?: UploadHook;
  /** Bytes each agent may keep (read per message), when `storage` is not given. */
  storageQuota: () => number;
  /** The agents' storage: one quota for all they keep (screenshot included), and the disk's reserve (507 below it). */
  storage?: AgentStorage;
};
export type Delivery = {
  mailFrom: string; raw: Buffer;
  /** verified: the sender passed authentication for this mailbox's patterns (null: not checked); auth: what the checks found. */
  recipients: { mailbox: Mailbox; address: string; verified: boolean | null; auth: string }[];
  /** Runs mail may start per agent per hour; past it the thread waits. */
  runsPerHour: number;
};
export type Ingested = { threadId: number; held: HeldReason | null };

/** Stores the message for every recipient; returns the threads (in recipient order). */
export async function ingestMail(deps: IngestDeps, delivery: Delivery, parsed?: ParsedMail): Promise<Ingested[]> {
  const mail = parsed ?? (await parseMail(delivery.raw));
  const mailFrom = cleanLine(delivery.mailFrom);
  const stored: { agentId: number; files: Awaited<ReturnType<typeof storeFile>>[]; sizes: number[] }[] = [];
  const attachmentBytes = mail.attachments.reduce((n, a) => n + a.content.byteLength, 0);
  // Below the disk's reserve no attachment is written: OutOfSpace (the intake answers 452).
  if (attachmentBytes) await deps.storage?.admit(attachmentBytes * delivery.recipients.length);
  try {
    for (const { mailbox } of delivery.recipients) {
      const files = [];
      for (const a of mail.attachments) files.push(await storeFile(deps.blobs, mailbox.id, a.filename, a.content));
      stored.push({ agentId: mailbox.id, files, sizes: mail.attachments.map((a) => a.content.byteLength) });
    }
    const results = await deps.db.tx(async (q) => {
      const out = [];
      await lockAgents(q, delivery.recipients.map((r) => r.mailbox.id));
      for (const [i, { mailbox, address, verified, auth }] of delivery.recipients.entries()) {
        const { files, sizes } = stored[i];
        const held: HeldReason | null = verified === false ? 'unverified'
          : (await countMailRuns(q, mailbox.id)) >= delivery.runsPerHour ? 'rate' : null;
        const name = mail.subject || `E-mail from ${mailFrom}`;
        const threadId = (await findReplyThread(q, mailbox.id, mail.answers))
          ?? (await insertThread(q, mailbox.id, { name: held === 'unverified' ? `Unverified sender: ${name}` : name })).id;
        const paths = files.map((f) => f.file_path);
        await insertInbound(q, {
          threadId, from: mailFrom, to: address, subject: mail.subject, text: mail.text, files: paths,
          messageId: mail.messageId, inReplyTo: mail.inReplyTo, references: mail.references,
          senderVerified: verified, senderAuth: auth, held,
        });
        // Attachments count against the agent's storage quota like uploads (the intake answers 552 when full).
        await recordFiles(q, mailbox.owner_id, mailbox.id, files.map((f, j) => ({
          file_path: f.file_path, original_name: storableName(mail.attachments[j].filename), size: sizes[j],
          content_type: storableName(mail.attachments[j].mimeType),
        })), deps.storage ? await deps.storage.quota(mailbox.id) : deps.storageQuota());
        const text = userText(mailFrom, mail, heldNote(held, auth, delivery.runsPerHour));
        // A held mail is kept but waits for its owner; any other is queued in the same transaction.
        const input = held ? await insertUserInput(q, threadId, text, paths) : await insertScheduledInput(q, threadId, mailbox.id, text, paths);
        out.push({ threadId, input, held });
      }
      return out;
    });
    for (const [i, { input, held }] of results.entries()) {
      if (held) announceInput(deps.bus, input);
      else announceScheduledInput(deps.bus, input);
      const hook = deps.onUpload;
      // From the attachments as parsed: a bucket's copies are not read back for it.
      for (const [j, f] of (hook ? stored[i].files : []).entries()) {
        await withLocalCopy(deps.blobs, f.file_path, (path) => hook!(input.step.agent_id, path, f.name), mail.attachments[j].content).catch(() => null);
      }
    }
    return results.map(({ threadId, held }) => ({ threadId, held }));
  } catch (err) {
    for (const { files } of stored) for (const f of files) await removeStoredFile(deps.blobs, f.file_path).catch(() => {});
    throw err;
  }
}

/** Why the mail waits, for the owner reading the chat (and the agent, once the owner runs it). */
function heldNote(held: HeldReason | null, auth: string, runsPerHour: number): string {
  if (held === 'unverified') return `Unverified sender (${auth}): this mail does not run by itself. Run the thread if you trust it.`;
  if (held === 'rate') {
    return `Not started: mail already started ${runsPerHour} runs of this agent in the last hour (MAIL_RUNS_PER_AGENT_PER_HOUR). `
      + 'Run the thread to start it.';
  }
  return '';
}

/** What the agent reads: who wrote and about what, then the text (it answers with the email tool). */
function userText(from: string, mail: ParsedMail, note: string): string {
  const head = [`E-mail from ${from}`, mail.subject && `Subject: ${mail.subject}`, note && `[${note}]`].filter(Boolean).join('\n');
  return `${head}\n\n${mail.text.trim() || '(no text)'}`;
}
