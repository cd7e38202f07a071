// Streams a raw request body (not multipart) to a file with a byte cap: a declared length over the cap is
// refused before reading, an undeclared one as soon as it passes it (413, the partial file removed).
import type { IncomingMessage } from 'node:http';
import { discardRest } from '../http/body.ts';
import { statusOf } from '../system/status-error.ts';
import { HttpError } from '../http/errors.ts';
import { FileSink, type FileSystem } from './safe-write.ts';

export function bodyTooLarge(what: string, limit: number): HttpError {
  return new HttpError(413, `${what} exceeds the ${Math.round(limit / 1024 / 1024)}MB limit`);
}

/** Checks a body as it is read, e.g. against a signature (server/desktop/place/signature.ts); end throws for a bad one. */
export type BodyCheck = { update(chunk: Buffer): void; end(trailers: NodeJS.Dict<string>): void };

export type RawLimit = {
  bytes: number;
  /** The 413 to answer past `bytes`. @default bodyTooLarge(what, bytes) */
  error?: HttpError;
  /** Where the file is written (tests pass a failing one). @default node:fs */
  fs?: FileSystem;
  /** Sees every chunk; a body its end refuses is discarded like one too large (the error is answered). */
  check?: BodyCheck;
};

/** Writes the body to `destination`; resolves with its size in bytes. A full disk is 507, the partial file removed. */
export async function receiveRaw(req: IncomingMessage, destination: string, limit: number | RawLimit, what = 'Body'): Promise<number> {
  const { bytes, error, fs, check } = typeof limit === 'number' ? { bytes: limit } as RawLimit : limit;
  const over = () => error ?? bodyTooLarge(what, bytes);
  if (Number(req.headers['content-length']) > bytes) {
    discardRest(req);
    throw over();
  }
  const out = new FileSink(destination, { fs, mode: 0o600 });
  let size = 0;
  try {
    // Read like the multipart parser does (a write at a time), so an early answer still reaches the client;
    // not `for await (… of req)`, whose early end would destroy the connection under that answer.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > bytes) throw over();
      check?.update(chunk);
      await out.write(chunk);
    }
    if (!req.complete) throw new HttpError(400, 'The request body ended early');
    check?.end(req.trailers);
    await out.end();
    return size;
  } catch (err) {
    discardRest(req); // read the rest (bounded) so the answer reaches the client
    await out.discard();
    // A client that went away mid-body makes the stream throw (ECONNRESET, 'aborted').
    throw statusOf(err) || !req.destroyed ? err : new HttpError(400, 'The request body ended early');
  }
}
