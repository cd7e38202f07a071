// Content coding of answers: which coding a request accepts (Accept-Encoding, q=0 honoured), and text
// bodies sent with Brotli or gzip when they are worth it. Leaves out deflate (nobody needs it over br and
// gzip) and anything already compressed: callers pass text only. Secret-bearing answers are kept plain
// (BREACH, see keepUncompressed and the README's "What goes over the wire").
import type { ServerResponse } from 'node:http';
import { constants, createBrotliCompress, createGzip, brotliCompressSync, gzipSync } from 'node:zlib';

export type Coding = 'br' | 'gzip';

/** Bodies shorter than this go out plain: below about one packet compression saves nothing worth the CPU. */
export const COMPRESS_MIN_BYTES = 1024;
/** Bodies longer than this are compressed as they stream (off the main thread, chunked), not in one go. */
export const STREAM_FROM_BYTES = 64 * 1024;
/**
 * Brotli quality 4: on a 145 KB page of steps ~0.8 ms and 2.5 KB out, on the 4 KB agents list ~0.07 ms;
 * quality 5 and up cost 3–6 times as much for a few per cent (scripts/bench-api.mjs prints the p50).
 */
export const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 4;

/**
 * The best of `offered` (in order of preference) that Accept-Encoding allows, or null for none.
 * `*` stands for codings not named; q=0 refuses. See RFC 9110 §12.5.3.
 */
export function acceptedCoding(header: string | string[] | undefined, offered: readonly Coding[] = ['br', 'gzip']): Coding | null {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return null;
  const q = new Map<string, number>();
  for (const part of value.split(',')) {
    const [name, ...params] = part.split(';');
    const coding = name.trim().toLowerCase();
    if (!coding) continue;
    let weight = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(param);
      if (m) weight = Number(m[1]);
    }
    q.set(coding === 'x-gzip' ? 'gzip' : coding, Number.isFinite(weight) ? weight : 0);
  }
  let best: Coding | null = null;
  let bestQ = 0;
  for (const coding of offered) {
    const weight = q.get(coding) ?? q.get('*') ?? 0;
    if (weight > bestQ) [best, bestQ] = [coding, weight];
  }
  return best;
}

const plain = new WeakSet<ServerResponse>();

/** This answer carries a secret (a token, a single-use link): never compress it, whatever it holds besides. */
export function keepUncompressed(res: ServerResponse): void {
  plain.add(res);
}

/** The coding to send a text body of `bytes` with on `res`, or null to send it plain. */
export function codingFor(res: ServerResponse, bytes: number): Coding | null {
  if (bytes < COMPRESS_MIN_BYTES || plain.has(res)) return null;
  return acceptedCoding(res.req?.headers['accept-encoding']);
}

export function compressSync(coding: Coding, body: string | Buffer): Buffer {
  if (coding === 'gzip') return gzipSync(body, { level: GZIP_LEVEL });
  // The size hint need not be exact: a string's length is close enough to its UTF-8 bytes.
  const size = body.length;
  return brotliCompressSync(body, { params: brotliParams(size) });
}

/** A transform that compresses what is written to it, for answers written as a stream. */
export function compressStream(coding: Coding, sizeHint = 0) {
  return coding === 'gzip' ? createGzip({ level: GZIP_LEVEL }) : createBrotliCompress({ params: brotliParams(sizeHint) });
}

function brotliParams(size: number) {
  return {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    ...(size > 0 ? { [constants.BROTLI_PARAM_SIZE_HINT]: size } : {}),
  };
}

/** Adds Accept-Encoding to the answer's Vary (caches must keep one copy per coding). */
export function varyOnEncoding(headers: Record<string, string | number>): void {
  const vary = String(headers.Vary ?? '');
  if (!/\baccept-encoding\b/i.test(vary)) headers.Vary = vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding';
}

const packedOf = new WeakMap<object, Partial<Record<Coding | 'identity', Buffer>>>();

/**
 * Writes a text answer, compressed when it pays (≥ COMPRESS_MIN_BYTES, accepted, not kept plain): small
 * bodies in one go with Content-Length, large ones through a compressing stream (chunked). `of`: the
 * answer object the text came from; an answer served again (a cached list) is encoded and compressed once.
 * `headers` is the answer's own: this adds Vary and the length to it.
 */
export function writeText(res: ServerResponse, status: number, headers: Record<string, string | number>, text: string | Buffer, of?: object): void {
  let memo = of && packedOf.get(of);
  if (of && !memo) packedOf.set(of, (memo = {}));
  const bytes = memo?.identity?.length ?? (typeof text === 'string' ? Buffer.byteLength(text) : text.length);
  const coding = status === 204 || status === 304 ? null : codingFor(res, bytes);
  if (bytes >= COMPRESS_MIN_BYTES) varyOnEncoding(headers);
  if (!coding) {
    // Sent plain again and again: its UTF-8 bytes are kept, where a string is encoded on every write.
    const body = memo ? (memo.identity ??= Buffer.from(text)) : text;
    headers['Content-Length'] = bytes;
    res.writeHead(status, headers);
    return void res.end(body);
  }
  const known = memo?.[coding];
  if (known || bytes < STREAM_FROM_BYTES || res.req?.method === 'HEAD') {
    const packed = known ?? compressSync(coding, text);
    if (memo) memo[coding] = packed;
    headers['Content-Encoding'] = coding;
    headers['Content-Length'] = packed.length;
    res.writeHead(status, headers);
    return void res.end(packed);
  }
  const { 'Content-Length': _dropped, ...rest } = headers;
  res.writeHead(status, { ...rest, 'Content-Encoding': coding });
  const stream = compressStream(coding, bytes);
  stream.on('error', () => res.destroy());
  if (memo) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => (memo[coding] = Buffer.concat(chunks)));
  }
  stream.pipe(res);
  stream.end(text);
}
