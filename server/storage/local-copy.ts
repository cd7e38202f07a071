// A blob as a file on this machine for the one call that needs a path (the desktop copies an upload into the
// agent's home from a path): the local store's own file, or a private temporary copy of an S3 object, removed after.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from './blob-store.ts';

/** `bytes`: the object's content where the caller still holds it (a mail's attachment), written out rather than read back. */
export async function withLocalCopy<T>(store: BlobStore, key: string, use: (path: string) => Promise<T>, bytes?: Uint8Array): Promise<T | null> {
  if (store.localPath) return use(store.localPath(key));
  const read = bytes ? null : await store.get(key);
  if (!bytes && !read) return null;
  const dir = await mkdtemp(join(tmpdir(), 'aw-blob-'));
  try {
    const path = join(dir, 'copy');
    if (bytes) await writeFile(path, bytes, { mode: 0o600 });
    else await pipeline(read!.body, createWriteStream(path, { mode: 0o600 }));
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
