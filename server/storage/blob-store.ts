// One interface for every blob the server keeps (uploads, screenshots, recordings and their audio, hand-back
// screenshots, home checkpoints): the local folder DATA_DIR/files, or an S3-compatible bucket. Keys are
// relative paths with '/' between parts ("agent-3/<uuid>/report.pdf"); a key never starts with '/' and never
// holds '.' or '..' parts, so it cannot leave its store.
import type { Readable } from 'node:stream';

export type BlobInfo = {
  key: string;
  bytes: number;
  modifiedAt: Date;
  /** The SHA-256 (hex) the object was put with, where the store keeps it (S3's x-amz-meta-sha256; the migration sets it). */
  sha256?: string;
};

export type BlobPutOptions = {
  contentType?: string;
  maxBytes?: number;
  /** The body's SHA-256 in hex, when the caller knows it beforehand: kept with the object (S3), for checks. */
  sha256?: string;
  /**
   * About how many bytes will come, when the caller knows before they do (an upload's Content-Length, its multipart
   * framing included): S3 begins a multipart upload at once for a body expected past one part, not once the first
   * part is full. Only a hint: the body may be shorter or longer.
   */
  expectedBytes?: number;
};

export type BlobRange = { start: number; end?: number }; // end is inclusive, as in an HTTP Range header

export type BlobRead = {
  body: Readable;
  /** Bytes in `body` (the range's length when a range was asked). */
  bytes: number;
  /** The whole object's size. */
  totalBytes: number;
  modifiedAt: Date;
};

export type BlobStore = {
  /** Local disk or S3: what the log and the health page say. */
  readonly kind: 'local' | 's3';
  /**
   * Stores a whole object, or nothing: a failed put leaves no object under `key` (a multipart upload is
   * aborted). A full local disk is OutOfSpace (507); a store that fails or times out is StorageUnavailable (503).
   * `maxBytes` ends the put with TooLarge once more arrives.
   */
  put(key: string, body: Readable | Uint8Array, options?: BlobPutOptions): Promise<BlobInfo>;
  /** The object's bytes (a range of them when asked), or null when there is none. */
  get(key: string, range?: BlobRange): Promise<BlobRead | null>;
  head(key: string): Promise<BlobInfo | null>;
  /** Removes the object; one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix` (an agent's folder when the agent is deleted). */
  deletePrefix(prefix: string): Promise<void>;
  /** Where the object is on this machine's disk, for a store that keeps it there (local); S3 has none. */
  localPath?(key: string): string;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<BlobInfo>;
};

/** Whether `key` is a store key: relative, '/'-separated, no empty, '.' or '..' parts, no NUL or backslash. */
export function isBlobKey(key: string): boolean {
  if (!key || key.length > 1024 || /[\u0000\\]/.test(key)) return false;
  return key.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}
