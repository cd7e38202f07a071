// Blobs in an S3-compatible bucket (AWS, MinIO, R2, Ceph…), spoken to over fetch with SigV4 (sigv4.ts). Every
// instance of a fleet reads what any other wrote. A put that fits one part is one PUT; a larger one is a multipart
// upload, aborted when anything fails, so a failed put leaves nothing listed. Each request has a deadline; a store
// that fails, times out or cannot be reached is StorageUnavailable (503).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { StatusError } from '../system/status-error.ts';
import { isBlobKey, type BlobInfo, type BlobPutOptions, type BlobRange, type BlobRead, type BlobStore } from './blob-store.ts';
import { signRequest, uriEncode, EMPTY_HASH, type Credentials } from './sigv4.ts';
import { parseError, parseListPage, tagText } from './s3-xml.ts';
import { StorageUnavailable } from './storage-unavailable.ts';
import { exchange, type S3Answer } from './s3-http.ts';

export type S3Options = {
  bucket: string;
  /** Key prefix inside the bucket ('' or ending in '/'). */
  prefix: string;
  /** https://s3.<region>.amazonaws.com when not set (S3_ENDPOINT). */
  endpoint: string;
  region: string;
  /** endpoint/bucket/key instead of bucket.endpoint/key (MinIO and most local servers want it). */
  forcePathStyle: boolean;
  credentials: Credentials;
  /** How long one request may take before its answer starts. @default 30000 */
  timeoutMs?: number;
  /**
   * Size of a multipart upload's parts; a put up to this size is one PUT. S3 wants ≥ 5 MiB. @default 5 MiB: an 8 MB
   * upload is two parts, the first sent while the rest arrives (bench-storage: 1.6× local instead of 2.1× as one PUT).
   */
  partBytes?: number;
};

type Send = { query?: Record<string, string>; headers?: Record<string, string>; body?: Buffer; expect?: number[] };

const DEFAULTS = { timeoutMs: 30_000, partBytes: 5 * 1024 * 1024 };

export class S3Store implements BlobStore {
  readonly kind = 's3' as const;
  private readonly o: Required<S3Options>;

  constructor(options: S3Options) {
    this.o = { ...DEFAULTS, ...options };
  }

  /** Where objects go, for the log: s3://bucket/prefix at the endpoint. */
  get description(): string {
    return `s3://${this.o.bucket}/${this.o.prefix} at ${this.o.endpoint}`;
  }

  /** Whether the bucket answers to these credentials (the start's check): null, or why not. */
  async check(): Promise<string | null> {
    try {
      const res = await this.request('GET', null, { query: { 'list-type': '2', 'max-keys': '1', prefix: this.o.prefix } }, true);
      if (res.ok) {
        res.body.resume();
        return null;
      }
      const error = parseError(await res.text());
      return `${res.status}${error ? ` ${error.code}: ${error.message}` : ''}`;
    } catch (err) {
      return (err as Error).message;
    }
  }

  async put(key: string, body: Readable | Uint8Array, options: BlobPutOptions = {}): Promise<BlobInfo> {
    const name = this.objectKey(key);
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/octet-stream' };
    if (options.sha256) headers['x-amz-meta-sha256'] = options.sha256;
    const spare: Buffer[] = [];
    const chunks = partsOf(body instanceof Readable ? body : Readable.from([Buffer.from(body)]), this.o.partBytes, options.maxBytes, spare);
    const first = await chunks.next();
    const second = first.done ? first : await chunks.next();
    if (second.done) {
      const part = first.done ? Buffer.alloc(0) : first.value;
      (await this.send('PUT', name, { headers, body: part })).body.resume();
      return { key, bytes: part.length, modifiedAt: new Date() };
    }
    const created = await this.send('POST', name, { query: { uploads: '' }, headers });
    const uploadId = tagText(await created.text(), 'UploadId');
    if (!uploadId) throw new StorageUnavailable('CreateMultipartUpload answered without an UploadId');
    try {
      const etags: string[] = [];
      let bytes = 0;
      // One part goes up while the next is read: the upload keeps pace with the sender.
      let part: IteratorResult<Buffer> = first;
      let next: Promise<IteratorResult<Buffer>> | null = Promise.resolve(second);
      while (!part.done) {
        const sending = this.send('PUT', name, { query: { partNumber: String(etags.length + 1), uploadId }, body: part.value });
        const [res, following] = await Promise.all([sending, next ?? chunks.next()]);
        res.body.resume();
        etags.push(res.headers.get('etag') ?? '');
        bytes += part.value.length;
        if (part.value.length === this.o.partBytes) spare.push(part.value); // sent: its buffer may take a later part
        part = following;
        next = null;
      }
      const list = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`);
      const xml = `<CompleteMultipartUpload>${list.join('')}</CompleteMultipartUpload>`;
      const done = await this.send('POST', name, { query: { uploadId }, body: Buffer.from(xml) });
      // S3 may answer 200 with an <Error> once it has started to answer.
      const answer = parseError(await done.text());
      if (answer) throw new StorageUnavailable(`CompleteMultipartUpload: ${answer.code}: ${answer.message}`);
      return { key, bytes, modifiedAt: new Date() };
    } catch (err) {
      await this.send('DELETE', name, { query: { uploadId }, expect: [200, 204, 404] }).then((res) => res.body.resume(), () => {});
      throw err;
    } finally {
      await chunks.return(undefined);
    }
  }

  async get(key: string, range?: BlobRange): Promise<BlobRead | null> {
    const headers: Record<string, string> = {};
    if (range) headers.range = `bytes=${range.start}-${range.end ?? ''}`;
    const res = await this.send('GET', this.objectKey(key), { headers, expect: [200, 206, 404, 416] });
    if (res.status === 404) {
      res.body.resume();
      return null;
    }
    if (res.status === 416) { // a range past the end: no bytes, as the local store answers
      res.body.resume();
      const info = await this.head(key);
      return info && { body: Readable.from([]), bytes: 0, totalBytes: info.bytes, modifiedAt: info.modifiedAt };
    }
    const bytes = Number(res.headers.get('content-length') ?? 0);
    const total = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
    return { body: res.body, bytes, totalBytes: total ? Number(total) : bytes, modifiedAt: lastModified(res) };
  }

  async head(key: string): Promise<BlobInfo | null> {
    const res = await this.send('HEAD', this.objectKey(key), { expect: [200, 404] });
    res.body.resume();
    if (res.status === 404) return null;
    const sha256 = res.headers.get('x-amz-meta-sha256') ?? undefined;
    return { key, bytes: Number(res.headers.get('content-length') ?? 0), modifiedAt: lastModified(res), sha256 };
  }

  async delete(key: string): Promise<void> {
    (await this.send('DELETE', this.objectKey(key), { expect: [200, 204, 404] })).body.resume();
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys: string[] = [];
    for await (const { key } of this.list(prefix)) keys.push(key);
    // A few at a time: a deleted agent may have thousands of keyframes.
    for (let i = 0; i < keys.length; i += 8) await Promise.all(keys.slice(i, i + 8).map((key) => this.delete(key)));
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    let token: string | null = null;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix: this.o.prefix + prefix };
      if (token) query['continuation-token'] = token;
      const page = parseListPage(await (await this.send('GET', null, { query })).text());
      for (const object of page.objects) {
        const key = object.key.slice(this.o.prefix.length);
        if (isBlobKey(key)) yield { key, bytes: object.bytes, modifiedAt: object.modifiedAt };
      }
      token = page.nextToken;
    } while (token);
  }

  private objectKey(key: string): string {
    if (!isBlobKey(key)) throw new StatusError(400, 'Invalid storage key');
    return this.o.prefix + key;
  }

  /** One request whose status must be in `expect` (2xx by default); anything else is StorageUnavailable. */
  private async send(method: string, name: string | null, options: Send = {}): Promise<S3Answer> {
    const res = await this.request(method, name, options);
    const expected = options.expect ? options.expect.includes(res.status) : res.ok;
    if (expected) return res;
    const error = parseError(await res.text().catch(() => ''));
    throw new StorageUnavailable(`${method} ${name ?? this.o.bucket}: ${res.status}${error ? ` ${error.code}: ${error.message}` : ''}`);
  }

  private async request(method: string, name: string | null, options: Send, quiet = false): Promise<S3Answer> {
    const url = this.url(name, options.query ?? {});
    const body = options.body;
    const payloadHash = body ? createHash('sha256').update(body).digest('hex') : EMPTY_HASH;
    const headers = signRequest({ method, url, headers: options.headers, region: this.o.region, credentials: this.o.credentials, payloadHash });
    try {
      return await exchange(url, { method, headers, body, timeoutMs: this.o.timeoutMs });
    } catch (err) {
      if (quiet) throw new Error(`${this.o.endpoint} cannot be reached: ${(err as Error).message}`);
      throw new StorageUnavailable(`${method} ${name ?? this.o.bucket}: ${(err as Error).message}`, err);
    }
  }

  private url(name: string | null, query: Record<string, string>): URL {
    const endpoint = new URL(this.o.endpoint);
    const path = name === null ? '' : uriEncode(name, true);
    const url = this.o.forcePathStyle
      ? new URL(`${endpoint.origin}${endpoint.pathname.replace(/\/$/, '')}/${this.o.bucket}/${path}`)
      : new URL(`${endpoint.protocol}//${this.o.bucket}.${endpoint.host}/${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
  }
}

/** The source cut into parts of `size` bytes (the last one shorter); past `maxBytes`, TooLarge (413). */
async function* partsOf(source: Readable, size: number, maxBytes: number | undefined, spare: Buffer[]): AsyncGenerator<Buffer> {
  // Each part is copied into a buffer of its own (slices of the chunks would keep them all alive), taken from
  // `spare` where the put gives back the buffers of parts sent: a large upload turns over two or three buffers.
  let part = spare.pop() ?? Buffer.allocUnsafe(size);
  let filled = 0;
  let total = 0;
  let any = false;
  for await (const chunk of source) {
    const data: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    total += data.length;
    if (maxBytes !== undefined && total > maxBytes) throw new StatusError(413, 'File too large');
    let at = 0;
    while (at < data.length) {
      const n = data.copy(part, filled, at);
      filled += n;
      at += n;
      if (filled === size) {
        yield part;
        any = true;
        part = spare.pop() ?? Buffer.allocUnsafe(size);
        filled = 0;
      }
    }
  }
  if (filled > 0 || !any) yield part.subarray(0, filled);
}

function lastModified(res: S3Answer): Date {
  const value = res.headers.get('last-modified');
  return value ? new Date(value) : new Date();
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
