// What uploaded files are called: the names taken from users, agents and mails made safe, and the upload cap. Where
// they are kept is the blob store's (server/agents/stored-files.ts: agent-<id>/<random>/<safe name>).
import { basename, join } from 'node:path';

/** After an upload is stored: puts a copy where the agent works; the name the copy got there, or null when none was put. */
export type UploadHook = (agentId: number, path: string, name: string) => Promise<string | null>;

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export function filesDir(dataDir: string): string {
  return join(dataDir, 'files');
}

/**
 * Control characters (C0, DEL, C1: NUL and line breaks included) and the bidirectional controls that make
 * 'invoice\u202Etxt.exe' display as 'invoiceexe.txt' (LRE…RLO, LRI…PDI, LRM, RLM, ALM): never part of a name
 * taken from a user, an agent or a mail.
 */
const UNSAFE_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** Most filesystems take names of up to 255 bytes. */
export const MAX_NAME_BYTES = 255;

/** The longest start of `text` that fits in `bytes` UTF-8 bytes, never cut inside a character. */
export function cutUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  let used = 0;
  let end = 0;
  for (const char of text) { // by code point: a surrogate pair stays whole
    used += Buffer.byteLength(char);
    if (used > bytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** A name as sent, for the record: without the characters above, lone surrogates as U+FFFD, at most 1000 characters. */
export function storableName(name: string): string {
  return name.replace(UNSAFE_IN_NAMES, '').replace(/\p{Surrogate}/gu, '\ufffd').slice(0, 1000);
}

/**
 * A file name that cannot climb directories or carry control or bidi characters, of at most 255 UTF-8 bytes;
 * a name cut to fit keeps its extension (up to 16 characters).
 */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'))
    .replace(UNSAFE_IN_NAMES, '')
    .replace(/\//g, '')
    .replace(/\p{Surrogate}/gu, '')
    .replace(/^\.+/, '')
    .trim();
  if (Buffer.byteLength(base) <= MAX_NAME_BYTES) return base || 'file';
  const ext = /\.[^.\s]{1,16}$/u.exec(base)?.[0] ?? '';
  return (cutUtf8(base.slice(0, base.length - ext.length), MAX_NAME_BYTES - Buffer.byteLength(ext)).trimEnd() + ext) || 'file';
}
