// Serving a run's recording (issue 44). The file is gzip as it was written: a client that accepts gzip gets its
// bytes as they are (Content-Encoding: gzip, Range on those bytes, 206), others get it gunzipped as it streams
// (Range on the recording's own bytes). A recording still being written, or left by an instance that died, is not
// yet a whole gzip stream: it is read up to its last flush and sent gunzipped. A finished recording is read from
// the blob store, one still being written from the file on the instance that writes it.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { constants, createGunzip } from 'node:zlib';
import { acceptedCoding } from '../http/compress.ts';
import { HttpError } from '../http/errors.ts';
import type { BlobStore } from '../storage/index.ts';

/** The recording's gzip bytes: how many, and a stream of all or a range (inclusive) of them. */
export type RecordingSource = { size: number; open(range?: { start: number; end: number }): Promise<Readable> };

export type RecordingFile = { source: RecordingSource; done: boolean; name: string };

/** A file on this machine's disk (a recording being written here), or null when there is none. */
export async function fileSource(path: string): Promise<RecordingSource | null> {
  const size = await stat(path).then((s) => (s.isFile() ? s.size : null), () => null);
  if (size === null) return null;
  return { size, open: async (range) => createReadStream(path, range ?? {}) };
}

/** An object of the blob store, or null when there is none. */
export async function blobSource(store: BlobStore, key: string): Promise<RecordingSource | null> {
  const info = await store.head(key);
  if (!info) return null;
  return {
    size: info.bytes,
    open: async (range) => {
      if (info.bytes === 0) return Readable.from([]);
      const read = await store.get(key, range);
      if (!read) throw new HttpError(404, 'This recording is no longer available');
      return read.body;
    },
  };
}

type Range = { start: number; end: number } | null;

/** A single `bytes=` range of a body of `size` bytes: null for none or one this does not serve (then all of it). 416 when outside. */
export function parseRange(header: string | undefined, size: number): Range {
  const m = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) throw new HttpError(416, 'Range Not Satisfiable', { 'Content-Range': `bytes */${size}` });
  return { start, end };
}

const gunzip = () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });

export async function serveRecordingFile(req: IncomingMessage, res: ServerResponse, file: RecordingFile): Promise<void> {
  const { source } = file;
  const size = source.size;
  const head: Record<string, string> = {
    'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes', Vary: 'Accept-Encoding', 'Cache-Control': 'private, no-store',
    'Content-Disposition': `attachment; filename="${file.name}"`,
  };
  const gzip = file.done && acceptedCoding(req.headers['accept-encoding'], ['gzip']) === 'gzip';
  if (gzip) {
    const range = parseRange(req.headers.range, size);
    // Opened before the head is written: a store that fails then still answers with its status.
    const body = await source.open(range ?? undefined);
    Object.assign(head, { 'Content-Encoding': 'gzip', 'Content-Length': String(range ? range.end - range.start + 1 : size) });
    if (range) head['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
    res.writeHead(range ? 206 : 200, head);
    return send(res, body);
  }
  if (!req.headers.range) {
    const body = await source.open();
    res.writeHead(200, head);
    return send(res, body.pipe(gunzip()));
  }
  // A range of the recording's own bytes: its length is known once it was read through.
  const length = await rawLength(source);
  const range = parseRange(req.headers.range, length);
  const body = await source.open();
  if (!range) {
    res.writeHead(200, { ...head, 'Content-Length': String(length) });
    return send(res, body.pipe(gunzip()));
  }
  res.writeHead(206, { ...head, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${length}` });
  return send(res, body.pipe(gunzip()).pipe(slice(range.start, range.end)));
}

async function send(res: ServerResponse, body: Readable): Promise<void> {
  await pipeline(body, res).catch(() => res.destroy()); // a client that went away, or a file cut short: the answer ends there
}

async function rawLength(source: RecordingSource): Promise<number> {
  let n = 0;
  for await (const chunk of (await source.open()).pipe(gunzip())) n += (chunk as Buffer).length;
  return n;
}

/** Passes bytes start..end (inclusive) of what flows through. */
function slice(start: number, end: number): Transform {
  let at = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const from = Math.max(0, start - at);
      const to = Math.min(chunk.length, end + 1 - at);
      at += chunk.length;
      done(null, to > from ? chunk.subarray(from, to) : undefined);
    },
  });
}
