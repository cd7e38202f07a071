// Reads a request body as JSON with a size cap: too large → 413, unparsable → 400.
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

export const JSON_LIMIT = 1024 * 1024;

export async function readJson<T = unknown>(req: IncomingMessage, limit = JSON_LIMIT): Promise<T> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume(); // drain without keeping it, so the 413 reaches the client
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new HttpError(400, 'Request body is not valid JSON');
  }
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body exceeds the ${Math.round(limit / 1024)} KB limit`);
}
