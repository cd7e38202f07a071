// Streams the single file part of a multipart/form-data upload to disk (or to a sink: a blob store's put) without
// holding it in memory, enforcing a byte cap while it streams. Other fields are ignored.
import type { IncomingMessage } from 'node:http';
import { discardRest } from '../http/body.ts';
import { HttpError } from '../http/errors.ts';
import { FileSink, type FileSystem } from './safe-write.ts';

export type UploadedFile = { path: string; filename: string; contentType: string; size: number };

/** Where a file part's bytes go when not to a path: a store's put fed chunk by chunk (storage/blob-sink.ts). */
export type UploadSink = { write(chunk: Uint8Array): Promise<void>; end(): Promise<unknown>; discard(): Promise<void> };
/** Makes the sink once the part's name and type are known. */
export type SinkFor = (file: { filename: string; contentType: string }) => UploadSink;

const CRLF2 = Buffer.from('\r\n\r\n');

export function tooLarge(limit: number): HttpError {
  return new HttpError(413, `File exceeds the ${Math.round(limit / 1024 / 1024)}MB limit`);
}

export type ReceiveLimit = {
  /** Bytes of file content allowed. */
  bytes: number;
  /** The 413 to answer when the file passes `bytes`. @default tooLarge(bytes) */
  error?: HttpError;
  /** Where the file is written (tests pass a failing one). @default node:fs */
  fs?: FileSystem;
};

/**
 * Writes the part named `field` to `destination`. Rejects with 413 as soon as it passes
 * `limit.bytes` (or the declared length says it will), 400 for malformed bodies, 422 when
 * no such file part exists, 507 when the disk is full. A refused body is read to its end (bounded) so the
 * client sees the reply; the partial file is removed.
 */
export async function receiveFile(req: IncomingMessage, field: string, destination: string | SinkFor, limit: ReceiveLimit): Promise<UploadedFile> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '') || !boundary) {
    discardRest(req);
    throw new HttpError(400, 'Expected a multipart/form-data body');
  }
  const over = () => limit.error ?? tooLarge(limit.bytes);
  // The multipart framing adds a few hundred bytes around the file itself.
  if (Number(req.headers['content-length']) > limit.bytes + 64 * 1024) {
    discardRest(req);
    throw over();
  }

  const delimiter = Buffer.from(`\r\n--${boundary[1] ?? boundary[2]}`);
  let buffer: Buffer = Buffer.from('\r\n'); // lets the first boundary match the same delimiter
  let state = 'preamble' as 'preamble' | 'headers' | 'body' | 'skip' | 'done';
  let out: UploadSink | null = null;
  let file: UploadedFile | null = null;

  const fail = async (err: unknown) => {
    discardRest(req);
    await out?.discard();
    throw err;
  };

  try {
    // Not `for await (… of req)`: leaving that loop early destroys the request, and with it the connection
    // before the client could read our reply.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      while (state !== 'done') {
        if (state === 'preamble' || state === 'skip') {
          const at = buffer.indexOf(delimiter);
          if (at < 0) {
            buffer = buffer.subarray(Math.max(0, buffer.length - delimiter.length));
            break;
          }
          buffer = buffer.subarray(at + delimiter.length);
          state = 'headers';
        } else if (state === 'headers') {
          if (buffer.length >= 2 && buffer[0] === 45 && buffer[1] === 45) {
            state = 'done'; // "--" closes the body
            break;
          }
          const end = buffer.indexOf(CRLF2);
          if (end < 0) {
            if (buffer.length > 16 * 1024) throw new HttpError(400, 'Malformed multipart headers');
            break;
          }
          const headers = buffer.subarray(0, end).toString('utf8');
          buffer = buffer.subarray(end + 4);
          const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
          const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
          const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
          if (name === field && filename !== undefined && !file) {
            file = {
              path: typeof destination === 'string' ? destination : '',
              filename,
              contentType: /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1].trim() || 'application/octet-stream',
              size: 0,
            };
            out = typeof destination === 'string' ? new FileSink(destination, { fs: limit.fs }) : destination(file);
            state = 'body';
          } else state = 'skip';
        } else if (state === 'body') {
          const at = buffer.indexOf(delimiter);
          // Keep a tail that could be the start of a delimiter split across chunks.
          const safe = at >= 0 ? at : Math.max(0, buffer.length - delimiter.length);
          if (safe > 0) {
            file!.size += safe;
            if (file!.size > limit.bytes) throw over();
            await out!.write(buffer.subarray(0, safe));
          }
          buffer = buffer.subarray(safe);
          if (at < 0) break;
          buffer = buffer.subarray(delimiter.length);
          await out!.end();
          state = 'headers';
        }
      }
      if (state === 'done') break;
    }
  } catch (err) {
    return fail(err);
  }
  if (!file) return fail(new HttpError(422, [{ loc: ['body', field], msg: 'A file is required', type: 'missing' }]));
  if (state !== 'done' && state !== 'headers') return fail(new HttpError(400, 'The upload ended before the file did'));
  return file;
}
