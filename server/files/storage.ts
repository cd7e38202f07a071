// Where uploaded files live: $DATA_DIR/files/agent-<id>/<random>/<safe name>. The stored
// path (relative to the files folder) is what the API returns as file_path.
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Called after a file is stored for an agent (the desktop puts a copy on the agent's ~/Desktop). */
export type UploadHook = (agentId: number, path: string, name: string) => Promise<void>;

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export function filesDir(dataDir: string): string {
  return join(dataDir, 'files');
}

/** A file name that cannot climb directories or carry control characters. */
/** A name as sent, for the record: without NUL (PostgreSQL cannot store it) or other control characters. */
export function storableName(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f]/g, '').replace(/\p{Surrogate}/gu, '\ufffd').slice(0, 1000);
}

export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'))
    .replace(/[\u0000-\u001f\u007f/]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 150);
  return base || 'file';
}

export async function newUploadSlot(dataDir: string, agentId: number): Promise<{ dir: string; relDir: string }> {
  const relDir = `agent-${agentId}/${randomUUID()}`;
  const dir = join(filesDir(dataDir), relDir);
  await mkdir(dir, { recursive: true });
  return { dir, relDir };
}

/** Stores bytes already in hand (an e-mail attachment) the way an upload is stored; returns its file_path. */
export async function storeFile(dataDir: string, agentId: number, name: string, content: Uint8Array): Promise<{ file_path: string; path: string; name: string }> {
  const { dir, relDir } = await newUploadSlot(dataDir, agentId);
  const safe = safeFileName(name);
  try {
    await writeFile(join(dir, safe), content, { flag: 'wx' });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { file_path: `${relDir}/${safe}`, path: join(dir, safe), name: safe };
}

/** Removes a stored file with its slot (the random folder it was written into). */
export async function removeStoredFile(dataDir: string, filePath: string): Promise<void> {
  const slot = filePath.split('/').slice(0, 2).join('/');
  if (/^agent-\d+\/[0-9a-f-]{36}$/.test(slot)) await rm(join(filesDir(dataDir), slot), { recursive: true, force: true });
}
