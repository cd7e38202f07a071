// A received message as the intake needs it: subject, plain text, threading ids and attachments.
// postal-mime does the MIME work; whatever it cannot read is kept as text, so no message is refused
// or lost for being malformed.
import PostalMime from 'postal-mime';
import { cleanFileName, cleanLine, cleanText } from './clean-text.ts';

export type ParsedMail = {
  /** The From header's address ('' when there is none). */
  from: string;
  subject: string;
  text: string;
  messageId: string | null;
  inReplyTo: string | null;
  /** Message-IDs this one answers: In-Reply-To first, then References newest first. */
  answers: string[];
  references: string[];
  attachments: { filename: string; mimeType: string; content: Uint8Array }[];
};

export const MAX_MAIL_TEXT = 90_000; // leaves room for the header lines within a step's 100,000 characters
export const MAX_ATTACHMENTS = 50;

export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
  } catch {
    return { from: '', subject: '', text: rawText(raw), messageId: null, inReplyTo: null, answers: [], references: [], attachments: [] };
  }
  const inReplyTo = messageIds(email.inReplyTo)[0] ?? null;
  const references = messageIds(email.references);
  const decoded = email.text ?? htmlToText(email.html ?? '');
  // Nothing readable came out (no body found, or bytes decoded into junk): the raw text is worth more.
  const unreadable = (!decoded.trim() && !email.attachments.length) || JUNK.test(decoded);
  return {
    from: cleanLine(email.from?.address ?? '').slice(0, 254),
    subject: cleanLine(email.subject ?? '').slice(0, 500),
    text: unreadable ? rawText(raw) : clip(decoded),
    messageId: messageIds(email.messageId)[0] ?? null,
    inReplyTo,
    answers: [...new Set([...(inReplyTo ? [inReplyTo] : []), ...[...references].reverse()])],
    references,
    attachments: email.attachments.slice(0, MAX_ATTACHMENTS).map((a, i) => ({
      filename: cleanFileName(a.filename ?? '', `attachment-${i + 1}${a.mimeType === 'message/rfc822' ? '.eml' : ''}`),
      mimeType: cleanLine(a.mimeType ?? '').slice(0, 255) || 'application/octet-stream',
      content: typeof a.content === 'string' ? Buffer.from(a.content) : new Uint8Array(a.content),
    })),
  };
}

/** `<a@b> <c@d>` → ['<a@b>', '<c@d>']; a bare id without brackets (some clients) gets them. */
export function messageIds(header: string | undefined): string[] {
  if (!header) return [];
  header = cleanLine(header);
  const bracketed = header.match(/<[^<>\s]+>/g);
  if (bracketed) return bracketed.slice(-100);
  const bare = header.trim();
  return /^[^\s<>]+@[^\s<>]+$/.test(bare) ? [`<${bare}>`] : [];
}

const JUNK = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]/;

/** The message as it came (its body when a blank line ends the headers), as text. */
function rawText(raw: Buffer): string {
  const text = raw.toString('utf8');
  const body = /\r?\n\r?\n/.exec(text);
  return clip(body && text.slice(body.index).trim() ? text.slice(body.index) : text);
}

function clip(text: string): string {
  const clean = cleanText(text).trim();
  return clean.length > MAX_MAIL_TEXT ? clean.slice(0, MAX_MAIL_TEXT) + '\n[… the rest of the message was cut]' : clean;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** HTML-only mail: a readable approximation (the model reads it; no markup is ever rendered from it). */
function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e) => ENTITIES[e])
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
