// Where an agent's files live in the blob store: agent-<id>/<random>/<safe name>, the key the API returns as
// file_path (uploads and e-mail attachments alike). The random folder keeps two files of one name apart.
import { randomUUID } from 'node:crypto';
import { safeFileName } from '../files/storage.ts';
import type { BlobStore } from '../storage/index.ts';

/** A fresh folder for one file of the agent: "agent-3/<uuid>". */
export function uploadSlot(agentId: number): string {
  return `agent-${agentId}/${randomUUID()}`;
}

/** Everything stored for the agent (its files, recordings, screenshots) is under this prefix. */
export const agentPrefix = (agentId: number) => `agent-${agentId}/`;

/**
 * Stores bytes already in hand (an e-mail attachment) the way an upload is stored; returns its file_path (the key).
 * A full disk is OutOfSpace (507), a store that fails StorageUnavailable (503), with nothing left behind.
 */
export async function storeFile(blobs: BlobStore, agentId: number, name: string, content: Uint8Array): Promise<{ file_path: string; name: string }> {
  const slot = uploadSlot(agentId);
  const safe = safeFileName(name);
  try {
    await blobs.put(`${slot}/${safe}`, content);
  } catch (err) {
    await blobs.deletePrefix(`${slot}/`).catch(() => {});
    throw err;
  }
  return { file_path: `${slot}/${safe}`, name: safe };
}

/** Removes a stored file with its slot (the random folder it was put in). */
export async function removeStoredFile(blobs: BlobStore, filePath: string): Promise<void> {
  const slot = filePath.split('/').slice(0, 2).join('/');
  if (/^agent-\d+\/[0-9a-f-]{36}$/.test(slot)) await blobs.deletePrefix(`${slot}/`);
}
