// A small S3-compatible server for the tests, in memory: buckets, PUT/GET (with Range)/HEAD/DELETE, ListObjectsV2,
// multipart uploads, x-amz-meta-*; every request's SigV4 signature is checked here from the raw request, apart from
// the client's signer (server/storage/sigv4.ts), and a wrong one is 403 SignatureDoesNotMatch. `fault` makes it answer
// 500 or never answer, for the 503 tests. (s3rver, the npm candidate, does not check SigV4: "Signature version 4
// calculation is unimplemented" in its lib/middleware/authentication.js, and brings 116 packages.)
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PartStore, type StoredPart } from './s3-part-store.ts';
import type { S3Config } from '../../server/config/index.ts';

/** `body` is joined from the parts it was sent in the first time it is read (a completed upload's stays as it came). */
export type S3Object = { readonly body: Buffer; bytes: number; modified: Date; meta: Record<string, string>; etag: string };
/** error: 500; hang: no answer; corrupt: a PUT is answered 200 but its last byte is stored flipped. */
type Fault = { mode: 'error' | 'hang' | 'corrupt'; when?: (method: string, url: URL) => boolean };

export type S3Server = {
  url: string;
  buckets: Map<string, Map<string, S3Object>>;
  /** Multipart uploads begun and neither completed nor aborted (their parts: s3-part-store.ts). */
  uploads: Map<string, { bucket: string; key: string; parts: Map<number, StoredPart>; meta: Record<string, string> }>;
  fault: Fault | null;
  /** Keys per ListObjectsV2 page when the request does not ask for fewer (S3's is 1000): small, it tests paging. */
  pageSize: number;
  /** Every request, with its x-amz-content-sha256 (a hex hash, or UNSIGNED-PAYLOAD). */
  requests: { method: string; path: string; contentSha256: string }[];
  /** A config for STORAGE_URL=s3://<bucket>/<prefix> at this server (the bucket is made). */
  config(bucket?: string, prefix?: string, secret?: string): S3Config;
  close(): Promise<void>;
};

const ACCESS_KEY = 'test-access-key';
const SECRET_KEY = 'test-secret-key';
const REGION = 'us-east-1';

/** `partsInMemory`: bytes of parts in progress kept in memory before they go to files (s3-part-store.ts). */
export async function startS3Server(options: { partsInMemory?: number } = {}): Promise<S3Server> {
  const sockets = new Set<Socket>();
  const parts = new PartStore(options.partsInMemory);
  const s3: S3Server = {
    url: '', buckets: new Map(), uploads: new Map(), fault: null, pageSize: 1000, requests: [],
    config(bucket = 'test-bucket', prefix = '', secret = SECRET_KEY) {
      if (!s3.buckets.has(bucket)) s3.buckets.set(bucket, new Map());
      return {
        bucket, prefix: prefix ? `${prefix.replace(/\/$/, '')}/` : '', endpoint: s3.url, region: REGION, forcePathStyle: true,
        accessKeyId: ACCESS_KEY, secretAccessKey: secret,
      };
    },
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      parts.close();
      server.close(() => resolve());
    }),
  };
  const server = createServer((req, res) => {
    handle(s3, parts, req, res).catch((err) => answerError(res, 500, 'InternalError', String(err)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s3.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (globalThis as { __teardown?: (() => Promise<void>)[] }).__teardown?.push(() => s3.close());
  return s3;
}

async function handle(s3: S3Server, parts: PartStore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://s3.test');
  const method = req.method ?? 'GET';
  const part = method === 'PUT' && url.searchParams.has('uploadId') ? await parts.receive(req) : null;
  const { body, hash } = part ? { body: Buffer.alloc(0), hash: part.sha256 } : await readAll(req);
  s3.requests.push({ method, path: url.pathname + url.search, contentSha256: String(req.headers['x-amz-content-sha256'] ?? '') });
  const corrupt = s3.fault?.mode === 'corrupt' && (!s3.fault.when || s3.fault.when(method, url));
  if (s3.fault && s3.fault.mode !== 'corrupt' && (!s3.fault.when || s3.fault.when(method, url))) {
    if (part) parts.drop(part);
    if (s3.fault.mode === 'hang') return; // never answered: the client's deadline must end it
    return answerError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
  }
  const refused = checkSignature(req, url, hash);
  if (refused) {
    if (part) parts.drop(part);
    return answerError(res, 403, refused.code, refused.message);
  }
  const [, bucketName, ...rest] = url.pathname.split('/');
  const key = rest.map(decodeURIComponent).join('/');
  const bucket = s3.buckets.get(decodeURIComponent(bucketName ?? ''));
  if (!bucket) return answerError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
  const q = url.searchParams;
  if (!key) {
    if (method === 'GET' && q.get('list-type') === '2') return list(res, bucket, q, s3.pageSize);
    if (method === 'HEAD') return void res.writeHead(200).end();
    return answerError(res, 405, 'MethodNotAllowed', 'Not supported here');
  }
  if (method === 'POST' && q.has('uploads')) {
    const id = randomUUID();
    s3.uploads.set(id, { bucket: bucketName, key, parts: new Map(), meta: metaOf(req) });
    return xml(res, 200, `<InitiateMultipartUploadResult><Key>${esc(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
  }
  const uploadId = q.get('uploadId');
  if (uploadId) {
    const upload = s3.uploads.get(uploadId);
    if (!upload) {
      if (part) parts.drop(part);
      return answerError(res, 404, 'NoSuchUpload', 'The specified upload does not exist');
    }
    if (method === 'PUT') {
      const number = Number(q.get('partNumber'));
      const before = upload.parts.get(number);
      if (before) parts.drop(before); // a part sent again replaces the first, as on S3
      upload.parts.set(number, part!);
      return void res.writeHead(200, { ETag: etagOf(hash) }).end();
    }
    if (method === 'DELETE') {
      for (const stored of upload.parts.values()) parts.drop(stored);
      s3.uploads.delete(uploadId);
      return void res.writeHead(204).end();
    }
    const listed = [...body.toString().matchAll(/<PartNumber>(\d+)<\/PartNumber><ETag>([^<]*)<\/ETag>/g)];
    const chosen = listed.map(([, n, etag]) => ({ stored: upload.parts.get(Number(n)), asked: etag.replace(/&quot;/g, '"') }));
    if (!chosen.length || chosen.some((c) => !c.stored || etagOf(c.stored.sha256) !== c.asked)) {
      return answerError(res, 400, 'InvalidPart', 'One or more of the specified parts could not be found or its ETag does not match');
    }
    const chunks = chosen.flatMap(({ stored }) => parts.chunks(stored!));
    for (const stored of upload.parts.values()) parts.drop(stored);
    s3.uploads.delete(uploadId);
    // S3's multipart ETag: the MD5 of the parts' binary ETags, then '-' and how many.
    const digests = chosen.map(({ stored }) => Buffer.from(stored!.sha256.slice(0, 32), 'hex'));
    const etag = `"${md5(Buffer.concat(digests))}-${chosen.length}"`;
    bucket.set(key, storedObject(chunks, upload.meta, etag));
    return xml(res, 200, `<CompleteMultipartUploadResult><Key>${esc(key)}</Key></CompleteMultipartUploadResult>`);
  }
  if (method === 'PUT') {
    const meta = metaOf(req);
    const etag = etagOf(hash);
    if (corrupt && body.length) body[body.length - 1] ^= 0xff;
    bucket.set(key, storedObject([body], meta, etag));
    return void res.writeHead(200, { ETag: etag }).end();
  }
  const object = bucket.get(key);
  if (method === 'DELETE') {
    bucket.delete(key);
    return void res.writeHead(204).end();
  }
  if (!object) return method === 'HEAD' ? void res.writeHead(404).end() : answerError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  const headers = { 'Last-Modified': object.modified.toUTCString(), ETag: object.etag, 'Accept-Ranges': 'bytes', ...object.meta };
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range && method === 'GET') {
    const start = Number(range[1]);
    if (start >= object.bytes) return answerError(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
    const end = Math.min(range[2] ? Number(range[2]) : object.bytes - 1, object.bytes - 1);
    res.writeHead(206, { ...headers, 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${object.bytes}` });
    return void res.end(object.body.subarray(start, end + 1));
  }
  res.writeHead(200, { ...headers, 'Content-Length': object.bytes });
  res.end(method === 'HEAD' ? undefined : object.body);
}

function metaOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith('x-amz-meta-')).map(([k, v]) => [k, String(v)]));
}

function list(res: ServerResponse, bucket: Map<string, S3Object>, q: URLSearchParams, pageSize: number): void {
  const prefix = q.get('prefix') ?? '';
  const max = Math.min(Number(q.get('max-keys') ?? 1000), pageSize);
  const after = q.get('continuation-token') ?? '';
  const keys = [...bucket.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
  const page = keys.slice(0, max);
  const truncated = keys.length > page.length;
  const contents = page.map((k) => {
    const o = bucket.get(k)!;
    return `<Contents><Key>${esc(k)}</Key><LastModified>${o.modified.toISOString()}</LastModified><ETag>${esc(o.etag)}</ETag>`
      + `<Size>${o.bytes}</Size></Contents>`;
  }).join('');
  const next = truncated ? `<NextContinuationToken>${esc(page[page.length - 1])}</NextContinuationToken>` : '';
  const head = `<Prefix>${esc(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>`;
  xml(res, 200, `<ListBucketResult>${head}${next}${contents}</ListBucketResult>`);
}

/** SigV4 from the request as it arrived: its path, query and the headers it says it signed. */
function checkSignature(req: IncomingMessage, url: URL, bodyHash: string): { code: string; message: string } | null {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/
    .exec(req.headers.authorization ?? '');
  if (!auth) return { code: 'AccessDenied', message: 'Missing or malformed Authorization' };
  const [, accessKey, day, region, signed, signature] = auth;
  if (accessKey !== ACCESS_KEY) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const payload = String(req.headers['x-amz-content-sha256'] ?? '');
  if (payload !== 'UNSIGNED-PAYLOAD' && payload !== bodyHash) return { code: 'XAmzContentSHA256Mismatch', message: 'The body does not match' };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const sent = Date.parse(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!amzDate.startsWith(day) || !(Math.abs(Date.now() - sent) <= 900_000)) {
    return { code: 'RequestTimeTooSkewed', message: 'The difference between the request time and the server time is too large.' };
  }
  const names = signed.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return { code: 'AccessDenied', message: 'host and x-amz-date must be signed' };
  const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  const rawPath = (req.url ?? '/').split('?')[0];
  const path = rawPath.split('/').map((p) => enc(decodeURIComponent(p))).join('/');
  const query = [...url.searchParams].map(([k, v]) => `${enc(k)}=${enc(v)}`).sort().join('&');
  const headers = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonical = [req.method, path, query, headers, signed, payload].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, `${day}/${region}/s3/aws4_request`, sha256(Buffer.from(canonical))].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${SECRET_KEY}`).update(day).digest();
  for (const part of [region, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  if (createHmac('sha256', key).update(toSign).digest('hex') !== signature) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  }
  return null;
}

function answerError(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) return void res.destroy();
  xml(res, status, `<Error><Code>${code}</Code><Message>${esc(message)}</Message></Error>`);
}

function xml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
// An object's (or part's) ETag: 128 bits of the SHA-256 every body is hashed with anyway (for x-amz-content-sha256),
// not S3's MD5, a second pass over every byte; S3 calls the ETag opaque, and nothing here reads more into it.
const etagOf = (sha256Hex: string) => `"${sha256Hex.slice(0, 32)}"`;

function storedObject(chunks: Buffer[], meta: Record<string, string>, etag: string): S3Object {
  let body: Buffer | null = null;
  const bytes = chunks.reduce((sum, c) => sum + c.length, 0);
  return {
    get body() {
      body ??= chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes);
      chunks = [];
      return body;
    },
    bytes, modified: new Date(), meta, etag,
  };
}

/** The body and its SHA-256. */
async function readAll(req: IncomingMessage): Promise<{ body: Buffer; hash: string }> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    hash.update(chunk as Buffer);
    chunks.push(chunk as Buffer);
  }
  return { body: Buffer.concat(chunks), hash: hash.digest('hex') };
}
