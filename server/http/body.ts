// Reads a request body as JSON (or a urlencoded form) with a size cap: too large → 413, unparsable → 400.
// discardRest lets an early error reply reach a client that is still sending.
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

export const JSON_LIMIT = 1024 * 1024;

export async function readJson<T = unknown>(req: IncomingMessage, limit = JSON_LIMIT): Promise<T> {
  const text = await readText(req, limit);
  if (!text) return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new HttpError(400, 'Request body is not valid JSON');
  }
}

/**
 * A JSON body that must be an object: `null`, `[]`, `"x"` or `1` would reach handlers that destructure
 * fields and turn into a 500, so they are a 422 here, once for every route. An empty body is `{}`.
 */
export async function readJsonObject<T = Record<string, unknown>>(req: IncomingMessage, limit = JSON_LIMIT): Promise<T> {
  const body = await readJson(req, limit);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(422, [{ loc: ['body'], msg: 'The request body must be a JSON object', type: 'type_error' }]);
  }
  const bad = badText(body, ['body']);
  if (bad) throw new HttpError(422, [{ loc: bad.loc, msg: bad.msg, type: 'value_error' }]);
  return body as T;
}

const LONE_SURROGATE = /\p{Surrogate}/u; // with the u flag, only unpaired halves match
const MAX_DEPTH = 32;

/**
 * Text PostgreSQL cannot store (NUL) or that is not Unicode (a lone surrogate, which would be saved as
 * U+FFFD): refused up front, as a 422 naming the field, instead of a 500 from the database or silently
 * changed text. Nesting past MAX_DEPTH is refused as well: no route takes anything that deep.
 */
export function badText(value: unknown, loc: (string | number)[], depth = 0): { loc: (string | number)[]; msg: string } | null {
  if (typeof value === 'string') {
    if (value.includes('\0')) return { loc, msg: 'Text must not contain NUL characters' };
    if (LONE_SURROGATE.test(value)) return { loc, msg: 'Text must be valid Unicode (no lone surrogates)' };
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_DEPTH) return { loc, msg: `The body is nested more than ${MAX_DEPTH} levels deep` };
  for (const [key, item] of Object.entries(value)) {
    const hit = badText(key, [...loc, key], depth + 1) ?? badText(item, [...loc, Array.isArray(value) ? Number(key) : key], depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** An application/x-www-form-urlencoded body (a plain HTML form post). */
export async function readForm(req: IncomingMessage, limit = 16 * 1024): Promise<URLSearchParams> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new HttpError(415, 'Expected a form (application/x-www-form-urlencoded)');
  return new URLSearchParams(await readText(req, limit));
}

async function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    discardRest(req);
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Not `for await (… of req)`: leaving that loop early destroys the request, and with it the connection.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      discardRest(req);
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body exceeds the ${Math.round(limit / 1024)} KB limit`);
}

/** How much of a refused body is still read (and dropped) after the reply, at most. */
export const DISCARD_LIMITS = { bytes: 128 * 1024 * 1024, ms: 30_000 };

/**
 * After deciding to refuse a body half-way (e.g. a 413), reads the rest and throws it away. Closing the
 * connection under a client that is still sending makes it see a reset (Node's fetch: "fetch failed")
 * instead of the reply; reading on lets it finish and read the reply. Bounded: past `bytes` more or after
 * `ms`, the connection is closed after all.
 */
export function discardRest(req: IncomingMessage, limits = DISCARD_LIMITS): void {
  if (req.complete) return;
  let seen = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, limits.ms);
  timer.unref();
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limits.bytes) cut();
  };
  req.on('data', onData);
  req.once('close', () => {
    clearTimeout(timer);
    req.off('data', onData);
  });
  req.resume();
}
