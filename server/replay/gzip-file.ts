// One gzip stream written to a file while it is made (a run's recording). The file always holds a prefix of the
// stream, and after each flush() it ends on a Z_SYNC_FLUSH boundary: read while still being written (zlib with
// `finishFlush: Z_SYNC_FLUSH`) it gives everything up to the last flush. The compressed bytes wait in memory until
// the next flush (a few seconds of a recording, at most MAX_PENDING), so that `fits` is asked before they reach the
// file. Failures never throw: they end the writing, reach `onFailure` once, and the file keeps what it has.
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { constants, createGzip } from 'node:zlib';

/** Compressed bytes held for the file beyond which they go before the next flush (one huge frame). */
const MAX_PENDING = 4 * 1024 * 1024;

/** `fits` said no: writing these bytes would take the owner past their storage. */
export class OverQuota extends Error {
  override name = 'OverQuota';
  constructor(readonly totalBytes: number) {
    super(`the recording would take ${totalBytes} bytes, more than the storage left`);
  }
}

export type GzipFileOptions = {
  /** Asked before bytes go to the file, with the file's size after them; false fails the file with OverQuota. */
  fits?: (totalBytes: number) => boolean | Promise<boolean>;
  onFailure: (err: Error) => void;
  createWriteStream?: typeof createWriteStream;
};

export class GzipFile {
  /** Level 1: the text is mostly base64 of deflated PNGs, where a deeper search finds nothing (level 6 took 13 % longer for 0.02 % less). */
  private readonly gzip = createGzip({ level: 1 });
  private readonly file: Writable;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;
  /** Writes to the file, one at a time and in order. */
  private queue: Promise<void> = Promise.resolve();
  failure: Error | null = null;

  constructor(path: string, private o: GzipFileOptions) {
    this.file = (o.createWriteStream ?? createWriteStream)(path, { flags: 'wx', mode: 0o600 });
    // Without listeners an 'error' event (ENOSPC, EEXIST on open) would end the process.
    this.file.on('error', (err) => this.fail(err));
    this.gzip.on('error', (err) => this.fail(err));
    this.gzip.on('readable', () => this.collect());
  }

  /** Compressed bytes in the file. */
  get bytes(): number {
    return this.written;
  }

  /** Resolves once gzip has compressed `text` (also after a failure: the text is then dropped). */
  write(text: string): Promise<void> {
    if (this.failure) return Promise.resolve();
    return new Promise((resolve) => this.gzip.write(text, () => resolve()));
  }

  /** Everything written so far, compressed, to the file (if it fits); resolves once it is there. */
  flush(): Promise<void> {
    if (this.failure) return Promise.resolve();
    return new Promise<void>((resolve) => this.gzip.flush(constants.Z_SYNC_FLUSH, () => resolve())).then(() => {
      this.collect(); // the flush's output may still sit in the readable buffer
      return this.drain();
    });
  }

  /** Ends the gzip stream (its trailer goes to the file) and closes the file; after a failure, just closes it. */
  async end(): Promise<void> {
    if (!this.failure) {
      await new Promise<void>((resolve) => {
        this.gzip.once('end', resolve).once('error', () => resolve());
        this.gzip.end();
      });
      await this.drain();
    }
    await this.close();
  }

  /** Stops writing: what is not in the file yet is dropped, the file is closed with what it has. */
  async abort(): Promise<void> {
    this.gzip.destroy();
    await this.queue;
    await this.close();
  }

  private collect(): void {
    for (let chunk: Buffer | null; (chunk = this.gzip.read()) !== null; ) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
    }
    if (this.pendingBytes >= MAX_PENDING) void this.drain();
  }

  private drain(): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.failure || !this.pendingBytes) return;
      const data = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      const total = this.written + data.length;
      if (this.o.fits && !(await this.o.fits(total))) return this.fail(new OverQuota(total));
      if (this.failure) return;
      await new Promise<void>((resolve) => {
        this.file.write(data, (err) => {
          if (err) this.fail(err);
          else this.written = total;
          resolve();
        });
      });
    }).catch((err) => this.fail(err as Error)); // `fits` threw
    return this.queue;
  }

  private close(): Promise<void> {
    const file = this.file;
    if (file.closed) return Promise.resolve();
    return new Promise((resolve) => {
      file.once('close', resolve);
      if (!file.destroyed) file.end();
    });
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.pending = [];
    this.pendingBytes = 0;
    this.o.onFailure(err);
  }
}
