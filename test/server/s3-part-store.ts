// Where the S3 stand-in (s3-helpers.ts) keeps the parts of multipart uploads in progress: in memory while they hold
// little, in files past that. The stand-in runs inside the tests' process, and a test that measures that process's
// memory (a refused 100 MB upload) must not count 100 MB of the stand-in's parts; a few parts in memory it may.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A part's bytes: the chunks it arrived in, or a file. */
export type StoredPart = { bytes: number; sha256: string; chunks: Buffer[] | null; file: string | null };

export class PartStore {
  private held = 0;
  private dir: string | null = null;

  /** `memoryBytes`: parts held in memory at most, all uploads together. */
  constructor(private readonly memoryBytes = 16 * 1024 * 1024) {}

  /** The request's body, hashed (SHA-256) as it arrives; its declared length says whether it fits in memory. */
  async receive(req: IncomingMessage): Promise<StoredPart> {
    const declared = Number(req.headers['content-length']);
    const inMemory = Number.isSafeInteger(declared) && this.held + declared <= this.memoryBytes;
    const hash = createHash('sha256');
    let bytes = 0;
    if (inMemory) {
      this.held += declared;
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of req) {
          hash.update(chunk as Buffer);
          bytes += (chunk as Buffer).length;
          chunks.push(chunk as Buffer);
        }
      } finally {
        this.held -= declared;
      }
      this.held += bytes;
      return { bytes, sha256: hash.digest('hex'), chunks, file: null };
    }
    this.dir ??= mkdtempSync(join(tmpdir(), 'aw-s3-parts-'));
    const file = join(this.dir, `${Date.now()}-${Math.random().toString(36).slice(2)}`);
    // Written in large batches (fs streams' 16 KiB default would make a 5 MiB part some 320 writes, each awaited).
    const out = createWriteStream(file, { highWaterMark: 1024 * 1024 });
    try {
      for await (const chunk of req) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } finally {
      await new Promise((resolve) => out.end(resolve));
    }
    return { bytes, sha256: hash.digest('hex'), chunks: null, file };
  }

  /** The part's bytes, as chunks (read from its file when it has one). */
  chunks(part: StoredPart): Buffer[] {
    return part.chunks ?? [readFileSync(part.file!)];
  }

  drop(part: StoredPart): void {
    if (part.chunks) this.held -= part.bytes;
    if (part.file) rmSync(part.file, { force: true });
  }

  close(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
