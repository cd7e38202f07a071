// Where uploaded files live: $DATA_DIR/files/agent-<id>/<random>/<safe name>. The stored
// path (relative to the files folder) is what the API returns as file_path.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export function filesDir(dataDir: string): string {
  return join(dataDir, 'files');
}

/** A file name that cannot climb directories or carry control characters. */
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
