// Blobs in an S3-compatible bucket (AWS, MinIO, R2, Ceph…), spoken to over node:http(s) (s3-http.ts) with SigV4
// (sigv4.ts). Every instance of a fleet reads what any other wrote. A put that fits one part is one PUT; a larger one
// is a multipart upload, aborted when anything fails, so a failed put leaves nothing listed (s3-put.ts). Each request
// has a deadline; a store that fails, times out or cannot be reached is StorageUnavailable (503).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { StatusError } from '../system/status-error.ts';
import { isBlobKey, type BlobInfo, type BlobPutOptions, type BlobRange, type BlobRead, type BlobStore } from './blob-store.ts';
import { signRequest, uriEncode, EMPTY_HASH, type Credentials } from './sigv4.ts';
import { parseError, parseListPage } from './s3-xml.ts';
import { putObject } from './s3-put.ts';
import type { S3Request } from './s3-multipart.ts';
import { StorageUnavailable } from './storage-unavailable.ts';
import { exchange, type S3Answer, type S3Body } from './s3-http.ts';

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
  /**
   * Parts of one put sent at once (s3-put.ts); a put holds this many parts in memory, plus the one filling. @default 2: the
   * body arrives from a client slower than it leaves for the bucket, so one part going up while the next fills keeps
   * pace; a second in flight covers a slow answer.
   */
  partsInFlight?: number;
  /**
   * Whether a put's body is hashed into its signature (x-amz-content-sha256) or sent as UNSIGNED-PAYLOAD. @default true
   * over http, false over https: there TLS already keeps the body from being changed on the way, and the hash is the
   * put's largest CPU cost (5 ms of the server's one thread per 8 MB). Over plain http the signed hash is the only
   * guard. (botocore also signs over https unless it sends a Content-MD5 or x-amz-checksum-* with the body; no
   * checksum is sent here: those headers are not known to every S3-compatible server.)
   */
  signPayload?: boolean;
};

const DEFAULTS = { timeoutMs: 30_000, partBytes: 5 * 1024 * 1024, partsInFlight: 2 };

export class S3Store implements BlobStore {
  readonly kind = 's3' as const;
  private readonly o: Required<S3Options>;

  constructor(options: S3Options) {
    this.o = { ...DEFAULTS, ...options, signPayload: options.signPayload ?? new URL(options.endpoint).protocol !== 'https:' };
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
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/octet-stream' };
    if (options.sha256) headers['x-amz-meta-sha256'] = options.sha256;
    const source = body instanceof Readable ? body : Readable.from([Buffer.from(body)]);
    const { partBytes, partsInFlight, signPayload } = this.o;
    const plan = { partBytes, partsInFlight, signPayload, maxBytes: options.maxBytes, expectedBytes: options.expectedBytes, headers };
    const bytes = await putObject((method, name, request) => this.send(method, name, request), this.objectKey(key), source, plan);
    return { key, bytes, modifiedAt: new Date() };
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
  private async send(method: string, name: string | null, options: S3Request = {}): Promise<S3Answer> {
    const res = await this.request(method, name, options);
    const expected = options.expect ? options.expect.includes(res.status) : res.ok;
    if (expected) return res;
    const error = parseError(await res.text().catch(() => ''));
    throw new StorageUnavailable(`${method} ${name ?? this.o.bucket}: ${res.status}${error ? ` ${error.code}: ${error.message}` : ''}`);
  }

  private async request(method: string, name: string | null, options: S3Request, quiet = false): Promise<S3Answer> {
    const url = this.url(name, options.query ?? {});
    const body = options.body;
    const payloadHash = options.payloadHash ?? (body ? sha256Of(body) : EMPTY_HASH);
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

function sha256Of(body: S3Body): string {
  const hash = createHash('sha256');
  for (const chunk of Buffer.isBuffer(body) ? [body] : body) hash.update(chunk);
  return hash.digest('hex');
}

function lastModified(res: S3Answer): Date {
  const value = res.headers.get('last-modified');
  return value ? new Date(value) : new Date();
}
