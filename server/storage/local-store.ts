// The embedded default: blobs as files under DATA_DIR/files. A put writes a hidden partial file and renames it
// into place, so a reader never sees half an object and a failed put leaves nothing listed.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, opendir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileSink, nodeFs, storageError, type FileSystem } from '../files/safe-write.ts';
import { StatusError } from '../system/status-error.ts';
import { isBlobKey, type BlobInfo, type BlobRange, type BlobRead, type BlobStore } from './blob-store.ts';

const PARTIAL = '.partial-';

export class LocalStore implements BlobStore {
  readonly kind = 'local' as const;

  /** `fs`: the writes' calls (tests pass a disk that fills). */
  constructor(readonly root: string, private readonly options: { fs?: FileSystem } = {}) {}

  /** Where the object's bytes are on this machine (the desktop copies an upload from there). */
  localPath(key: string): string {
    return this.path(key);
  }

  async put(key: string, body: Readable | Uint8Array, options: { maxBytes?: number } = {}): Promise<BlobInfo> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true }).catch((err) => { throw storageError(err); });
    const partial = join(dirname(path), `${PARTIAL}${randomUUID()}`);
    const sink = new FileSink(partial, { mode: 0o600, fs: this.options.fs ?? nodeFs });
    let bytes = 0;
    try {
      const source = body instanceof Readable ? body : Readable.from([body]);
      for await (const chunk of source) {
        bytes += chunk.length;
        if (options.maxBytes !== undefined && bytes > options.maxBytes) throw new StatusError(413, 'File too large');
        await sink.write(chunk);
      }
      await sink.end();
      await rename(partial, path);
    } catch (err) {
      await sink.discard();
      throw storageError(err);
    }
    return { key, bytes, modifiedAt: new Date() };
  }

  async get(key: string, range?: BlobRange): Promise<BlobRead | null> {
    const info = await this.head(key);
    if (!info) return null;
    const start = range?.start ?? 0;
    const end = Math.min(range?.end ?? info.bytes - 1, info.bytes - 1);
    const bytes = Math.max(0, end - start + 1);
    const body = bytes === 0 ? Readable.from([]) : createReadStream(this.path(key), { start, end });
    return { body, bytes, totalBytes: info.bytes, modifiedAt: info.modifiedAt };
  }

  async head(key: string): Promise<BlobInfo | null> {
    const s = await stat(this.path(key)).catch(() => null);
    return s?.isFile() ? { key, bytes: s.size, modifiedAt: s.mtime } : null;
  }

  async delete(key: string): Promise<void> {
    await unlink(this.path(key)).catch((err) => { if (err.code !== 'ENOENT') throw err; });
  }

  async deletePrefix(prefix: string): Promise<void> {
    // A prefix is a folder here ("agent-3/"), or the start of names in one.
    if (prefix.endsWith('/') && isBlobKey(prefix.slice(0, -1))) {
      await rm(this.path(prefix.slice(0, -1)), { recursive: true, force: true });
      return;
    }
    for await (const { key } of this.list(prefix)) await this.delete(key);
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    const found: BlobInfo[] = [];
    await this.walk('', prefix, found);
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    yield* found;
  }

  private async walk(rel: string, prefix: string, found: BlobInfo[]): Promise<void> {
    const dir = await opendir(rel ? this.path(rel) : this.root).catch(() => null);
    if (!dir) return;
    for await (const entry of dir) {
      const key = rel ? `${rel}/${entry.name}` : entry.name;
      if (!key.startsWith(prefix) && !prefix.startsWith(`${key}/`)) continue;
      if (entry.isDirectory()) await this.walk(key, prefix, found);
      else if (entry.isFile() && !entry.name.startsWith(PARTIAL)) {
        const s = await stat(this.path(key)).catch(() => null);
        if (s) found.push({ key, bytes: s.size, modifiedAt: s.mtime });
      }
    }
  }

  private path(key: string): string {
    if (!isBlobKey(key)) throw new StatusError(400, 'Invalid storage key');
    return join(this.root, ...key.split('/'));
  }
}

/** Copies a blob's bytes to a writable (a response, a file), returning when all are written. */
export async function pipeBlob(read: BlobRead, to: NodeJS.WritableStream): Promise<void> {
  await pipeline(read.body, to);
}
