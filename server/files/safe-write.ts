// Writing files so that a full disk is an answer, not a crash: every stream gets an error handler, a write
// that fails removes what it left behind, and ENOSPC/EDQUOT become OutOfSpace (507, 'Not enough storage
// space on the server'). Other errors pass through unchanged (after the partial file is removed).
import { constants, createWriteStream } from 'node:fs';
import { copyFile, unlink, writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { StatusError } from '../system/status-error.ts';
import { isOutOfSpace, OUT_OF_SPACE_DETAIL } from '../system/out-of-space.ts';

export { isOutOfSpace, OUT_OF_SPACE_DETAIL };

export class OutOfSpace extends StatusError {
  constructor(cause?: unknown) {
    super(507, OUT_OF_SPACE_DETAIL);
    this.name = 'OutOfSpace';
    if (cause !== undefined) this.cause = cause;
  }
}

/** A full disk as OutOfSpace (507); anything else unchanged. */
export function storageError(err: unknown): unknown {
  return isOutOfSpace(err) && !(err instanceof OutOfSpace) ? new OutOfSpace(err) : err;
}

/** The fs calls used here; tests pass failing ones. */
export type FileSystem = {
  writeFile: (path: string, data: string | Uint8Array, options: { mode?: number; flag?: string }) => Promise<void>;
  createWriteStream: (path: string, options: { flags: string; mode: number }) => Writable;
  copyFile: (source: string, destination: string, mode: number) => Promise<void>;
  unlink: (path: string) => Promise<void>;
};
export const nodeFs: FileSystem = { writeFile, createWriteStream, copyFile, unlink };

const removeQuietly = (fs: FileSystem, path: string) => fs.unlink(path).catch(() => {});

/**
 * Writes a whole file, or nothing: on any error the partial file is removed and the error thrown, a full disk
 * as OutOfSpace. `flag: 'wx'` (the default) never overwrites; then an existing file is left alone.
 */
export async function writeFileOrRemove(path: string, data: string | Uint8Array, options: { mode?: number; flag?: string } = {}, fs = nodeFs) {
  const flag = options.flag ?? 'wx';
  try {
    await fs.writeFile(path, data, { mode: options.mode ?? 0o666, flag });
  } catch (err) {
    // With 'wx', EEXIST means the file is someone else's: keep it.
    if ((err as { code?: string }).code !== 'EEXIST' || !flag.includes('x')) await removeQuietly(fs, path);
    throw storageError(err);
  }
}

/**
 * Copies a file, or nothing: on any error the partial copy is removed and the error thrown, a full disk as
 * OutOfSpace. Never over an existing file (COPYFILE_EXCL) unless `mode` says otherwise; then that file is kept.
 */
export async function copyFileOrRemove(source: string, destination: string, mode = constants.COPYFILE_EXCL, fs = nodeFs): Promise<void> {
  try {
    await fs.copyFile(source, destination, mode);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') await removeQuietly(fs, destination);
    throw storageError(err);
  }
}

/**
 * A file written chunk by chunk (a streamed body): each write resolves once the chunk is handed to the file, and
 * rejects with the stream's error, a full disk as OutOfSpace. discard() removes the partial file.
 */
export class FileSink {
  private failure: Error | null = null;
  private readonly stream: Writable;
  private readonly fs: FileSystem;

  constructor(readonly path: string, options: { mode?: number; fs?: FileSystem } = {}) {
    this.fs = options.fs ?? nodeFs;
    this.stream = this.fs.createWriteStream(path, { flags: 'wx', mode: options.mode ?? 0o666 }); // less the umask
    // Without a listener an 'error' event (ENOSPC on a write, or on open) ends the process.
    this.stream.on('error', (err) => (this.failure ??= err));
  }

  write(chunk: Uint8Array): Promise<void> {
    return this.settle((done) => this.stream.write(chunk, done));
  }

  end(): Promise<void> {
    return this.settle((done) => this.stream.end(done));
  }

  /** Stops writing and removes the file. */
  async discard(): Promise<void> {
    this.stream.destroy();
    await removeQuietly(this.fs, this.path);
  }

  private settle(start: (done: (err?: Error | null) => void) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.failure) return reject(storageError(this.failure));
      // The callback normally reports the error, but a stream that failed on open may only emit it.
      const onError = (err: Error) => reject(storageError(err));
      this.stream.once('error', onError);
      start((err) => {
        this.stream.off('error', onError);
        if (err || this.failure) reject(storageError(this.failure ?? err));
        else resolve();
      });
    });
  }
}
