// A put's body cut into S3 parts as it arrives. Each part is copied into a buffer of its own (slices of the chunks
// would keep them all alive) and, when its payload is signed, hashed while it fills, so its SigV4 payload hash is
// ready the moment it is full rather than costing a second pass over it then. A full part is handed on only once a byte past it has arrived (or
// the body ended), so the put knows whether it was the last: a body that fits one part is one PutObject.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { StatusError } from '../system/status-error.ts';

export type Part = {
  /** 1, 2, … as S3's partNumber. */
  number: number;
  body: Buffer;
  /** SHA-256 of `body`, hex; null when the reader was asked for none. */
  sha256: string | null;
  /** Whether the body ended with this part. */
  last: boolean;
};

export class PartReader {
  // Buffers of parts sent, given back by release(): a large put turns over as many as it has parts in flight, plus one.
  private readonly spare: Buffer[] = [];

  constructor(private readonly size: number, private readonly hashed = true) {}

  /** The part's buffer may take a later part (its bytes are sent). */
  release(part: Part): void {
    if (part.body.length === this.size) this.spare.push(part.body);
  }

  /** The source's parts, in order; past `maxBytes`, TooLarge (413). An empty body is one empty part. */
  async *parts(source: Readable, maxBytes?: number): AsyncGenerator<Part> {
    let buffer = this.buffer();
    let hash = this.hashed ? createHash('sha256') : null;
    let filled = 0;
    let total = 0;
    let number = 1;
    for await (const chunk of source) {
      const data: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      total += data.length;
      if (maxBytes !== undefined && total > maxBytes) throw new StatusError(413, 'File too large');
      let at = 0;
      while (at < data.length) {
        if (filled === this.size) { // full, and more follows: not the last
          yield { number: number++, body: buffer, sha256: hash?.digest('hex') ?? null, last: false };
          buffer = this.buffer();
          hash = this.hashed ? createHash('sha256') : null;
          filled = 0;
        }
        const n = data.copy(buffer, filled, at);
        hash?.update(buffer.subarray(filled, filled + n));
        filled += n;
        at += n;
      }
    }
    yield { number, body: buffer.subarray(0, filled), sha256: hash?.digest('hex') ?? null, last: true };
  }

  private buffer(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafe(this.size);
  }
}
