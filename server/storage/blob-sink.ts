// A put fed chunk by chunk (the multipart reader writes an upload's bytes as they arrive): write() resolves once
// the store took the chunk (backpressure), and fails as soon as the put did; discard() ends the put so that
// nothing is left (a local partial file removed, an S3 multipart upload aborted).
// With `keepLocalCopy`, a bucket's sink also writes the bytes to a private file on this machine as they arrive: what
// needs a path afterwards (the copy onto the agent's desktop) takes it, and the object is not read back whole.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { BlobInfo, BlobPutOptions, BlobStore } from './blob-store.ts';
import { withLocalCopy } from './local-copy.ts';

export class BlobSink {
  private readonly pass = new PassThrough({ highWaterMark: 1024 * 1024 });
  private readonly done: Promise<BlobInfo>;
  private failure: unknown = null;
  /** The private copy's folder and its file, while one is kept. */
  private copy: { dir: Promise<string>; file: Promise<WriteStream> } | null = null;

  constructor(private store: BlobStore, readonly key: string, options: BlobPutOptions & { keepLocalCopy?: boolean } = {}) {
    const { keepLocalCopy, ...put } = options;
    this.done = store.put(key, this.pass, put);
    this.done.catch((err) => {
      this.failure = err;
      this.pass.destroy();
    });
    if (keepLocalCopy && !store.localPath) {
      const dir = mkdtemp(join(tmpdir(), 'aw-blob-'));
      this.copy = { dir, file: dir.then((d) => createWriteStream(join(d, 'copy'), { mode: 0o600 })) };
    }
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    // The copy is only a shortcut: one that fails (this machine's disk full) is dropped, and the object read back instead.
    const copied = this.copy && this.copy.file.then((file) => new Promise<void>((resolve, reject) => {
      file.write(chunk, (err) => (err ? reject(err) : resolve()));
    })).catch(() => this.dropCopy());
    if (!this.pass.write(chunk)) {
      await new Promise<void>((resolve) => {
        const settle = () => {
          this.pass.off('drain', settle).off('close', settle);
          resolve();
        };
        this.pass.on('drain', settle).on('close', settle);
      });
    }
    await copied;
    if (this.failure) throw this.failure;
  }

  async end(): Promise<BlobInfo> {
    this.pass.end();
    const file = this.copy && await this.copy.file.catch(() => null);
    if (file && !(await new Promise<boolean>((resolve) => file.end((err?: Error | null) => resolve(!err))))) await this.dropCopy();
    return this.done;
  }

  /** `use` with a path of the stored bytes on this machine (the local store's file, or the copy kept), then the copy goes. */
  async withLocalCopy<T>(use: (path: string) => Promise<T>): Promise<T | null> {
    if (!this.copy) return withLocalCopy(this.store, this.key, use);
    try {
      return await use(join(await this.copy.dir, 'copy'));
    } finally {
      await this.dropCopy();
    }
  }

  async discard(): Promise<void> {
    this.pass.destroy();
    await this.done.catch(() => {});
    await this.dropCopy();
  }

  private async dropCopy(): Promise<void> {
    const copy = this.copy;
    this.copy = null;
    if (!copy) return;
    (await copy.file.catch(() => null))?.destroy();
    await rm(await copy.dir, { recursive: true, force: true });
  }
}
