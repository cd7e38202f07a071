// Streams a raw request body (not multipart) to a file with a byte cap: a declared length over the cap is
// refused before reading, an undeclared one as soon as it passes it (413, the partial file removed).
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { discardRest } from '../http/body.ts';
import { HttpError } from '../http/errors.ts';

export function bodyTooLarge(what: string, limit: number): HttpError {
  return new HttpError(413, `${what} exceeds the ${Math.round(limit / 1024 / 1024)}MB limit`);
}

/** Writes the body to `destination`; resolves with its size in bytes. */
export async function receiveRaw(req: IncomingMessage, destination: string, limit: number, what = 'Body'): Promise<number> {
  if (Number(req.headers['content-length']) > limit) {
    discardRest(req);
    throw bodyTooLarge(what, limit);
  }
  const out = createWriteStream(destination, { flags: 'wx', mode: 0o600 });
  const write = (chunk: Buffer) => new Promise<void>((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
  let size = 0;
  try {
    // Read like the multipart parser does (a write at a time), so an early answer still reaches the client;
    // not `for await (… of req)`, whose early end would destroy the connection under that answer.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw bodyTooLarge(what, limit);
      await write(chunk);
    }
    if (!req.complete) throw new HttpError(400, 'The request body ended early');
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    return size;
  } catch (err) {
    discardRest(req); // read the rest (bounded) so the answer reaches the client
    out.destroy();
    await unlink(destination).catch(() => {});
    // A client that went away mid-body makes the stream throw (ECONNRESET, 'aborted').
    throw err instanceof HttpError || !req.destroyed ? err : new HttpError(400, 'The request body ended early');
  }
}
