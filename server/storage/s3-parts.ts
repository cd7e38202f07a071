// A put's body cut into S3 parts as it arrives. A part is the chunks that came, the one across a boundary split
// without a copy: copying them into a part-sized buffer cost the server's thread 1 ms per fresh 5 MiB buffer, most of
// it page faults (0.1 ms into a reused one), and the chunks are let go with their part all the same. When its payload
// is signed, a part is hashed while it fills, so its SigV4 payload hash is ready the moment it is full. A full part
// is handed on only once a byte past it has arrived (or the body ended), so the put knows whether it was the last:
// a body that fits one part is one PutObject.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { StatusError } from '../system/status-error.ts';

export type Part = {
  /** 1, 2, … as S3's partNumber. */
  number: number;
  chunks: Buffer[];
  bytes: number;
  /** SHA-256 of the part, hex; null when none was asked for. */
  sha256: string | null;
  /** Whether the body ended with this part. */
  last: boolean;
};

/** The source's parts of `size` bytes (the last one shorter), in order; past `maxBytes`, TooLarge (413). An empty body is one part. */
export async function* partsOf(source: Readable, size: number, options: { hashed: boolean; maxBytes?: number }): AsyncGenerator<Part> {
  let number = 1;
  let total = 0;
  let chunks: Buffer[] = [];
  let filled = 0;
  let hash = options.hashed ? createHash('sha256') : null;
  for await (const chunk of source) {
    let data = asBuffer(chunk);
    total += data.length;
    if (options.maxBytes !== undefined && total > options.maxBytes) throw new StatusError(413, 'File too large');
    while (data.length > 0) {
      if (filled === size) { // full, and more follows: not the last
        yield { number: number++, chunks, bytes: filled, sha256: hash?.digest('hex') ?? null, last: false };
        chunks = [];
        filled = 0;
        hash = options.hashed ? createHash('sha256') : null;
      }
      const piece = data.length <= size - filled ? data : data.subarray(0, size - filled);
      chunks.push(piece);
      hash?.update(piece);
      filled += piece.length;
      data = data.subarray(piece.length);
    }
  }
  yield { number, chunks, bytes: filled, sha256: hash?.digest('hex') ?? null, last: true };
}

function asBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength); // a view, not a copy
  return Buffer.from(String(chunk));
}
