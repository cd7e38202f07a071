// A put fed chunk by chunk (the multipart reader writes an upload's bytes as they arrive): write() resolves once
// the store took the chunk (backpressure), and fails as soon as the put did; discard() ends the put so that
// nothing is left (a local partial file removed, an S3 multipart upload aborted).
import { PassThrough } from 'node:stream';
import type { BlobInfo, BlobPutOptions, BlobStore } from './blob-store.ts';

export class BlobSink {
  private readonly pass = new PassThrough({ highWaterMark: 1024 * 1024 });
  private readonly done: Promise<BlobInfo>;
  private failure: unknown = null;

  constructor(store: BlobStore, readonly key: string, options: BlobPutOptions = {}) {
    this.done = store.put(key, this.pass, options);
    this.done.catch((err) => {
      this.failure = err;
      this.pass.destroy();
    });
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.pass.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const settle = () => {
        this.pass.off('drain', settle).off('close', settle);
        resolve();
      };
      this.pass.on('drain', settle).on('close', settle);
    });
    if (this.failure) throw this.failure;
  }

  async end(): Promise<BlobInfo> {
    this.pass.end();
    return this.done;
  }

  async discard(): Promise<void> {
    this.pass.destroy();
    await this.done.catch(() => {});
  }
}
