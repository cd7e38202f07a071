// One multipart upload (s3-put.ts decides when): begun at once, its parts sent as they are added with at most
// `partsInFlight` on the wire, completed with their ETags, or aborted once the parts in flight have settled, so that
// S3 frees them all (https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html).
// Nothing here holds a part once it is sent: memory is the parts in flight, whatever the body's size.
import type { S3Answer, S3Body } from './s3-http.ts';
import type { Part } from './s3-parts.ts';
import { UNSIGNED_PAYLOAD } from './sigv4.ts';
import { escapeXml, parseError, tagText } from './s3-xml.ts';
import { StorageUnavailable } from './storage-unavailable.ts';

export type S3Request = { query?: Record<string, string>; headers?: Record<string, string>; body?: S3Body; payloadHash?: string; expect?: number[] };
/** One signed request for the object `name`, whose status must be expected (else StorageUnavailable). */
export type S3Send = (method: string, name: string, request?: S3Request) => Promise<S3Answer>;

export class MultipartUpload {
  private readonly created: Promise<string>;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly etags: string[] = [];
  private readonly failure = new FirstFailure();

  constructor(private readonly send: S3Send, private readonly name: string, headers: Record<string, string>, private readonly partsInFlight: number) {
    this.created = send('POST', name, { query: { uploads: '' }, headers }).then(async (res) => {
      const id = tagText(await res.text(), 'UploadId');
      if (!id) throw new StorageUnavailable('CreateMultipartUpload answered without an UploadId');
      return id;
    });
    this.created.catch(() => {}); // awaited by add() or abort()
  }

  /** Sends the part once the upload is begun and a place is free; a part that failed before fails this. */
  async add(part: Part): Promise<void> {
    const uploadId = await this.failure.race(this.created);
    while (this.inFlight.size >= this.partsInFlight) await this.failure.race(Promise.race(this.inFlight));
    const query = { partNumber: String(part.number), uploadId };
    const sent = this.send('PUT', this.name, { query, body: part.chunks, payloadHash: part.sha256 ?? UNSIGNED_PAYLOAD }).then((res) => {
      res.body.resume();
      this.etags[part.number - 1] = res.headers.get('etag') ?? '';
    });
    const tracked: Promise<void> = sent.catch((err) => this.failure.fail(err)).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** `next`, unless a part fails first (the body need not be read any further then). */
  whileSending<T>(next: Promise<T>): Promise<T> {
    return this.failure.race(next);
  }

  async complete(): Promise<void> {
    await this.failure.race(Promise.all(this.inFlight));
    const uploadId = await this.created;
    const list = this.etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`);
    const xml = Buffer.from(`<CompleteMultipartUpload>${list.join('')}</CompleteMultipartUpload>`);
    const done = await this.send('POST', this.name, { query: { uploadId }, body: xml });
    // S3 may answer 200 with an <Error> once it has started to answer.
    const answer = parseError(await done.text());
    if (answer) throw new StorageUnavailable(`CompleteMultipartUpload: ${answer.code}: ${answer.message}`);
  }

  async abort(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    const uploadId = await this.created.catch(() => null);
    if (!uploadId) return;
    await this.send('DELETE', this.name, { query: { uploadId }, expect: [200, 204, 404] }).then((res) => res.body.resume(), () => {});
  }
}

/**
 * The first failure of a part sent in the background, and waits it cuts short. Not one long-lived promise raced
 * again and again: each race would stay in its reactions, holding the part it resolved with until the put ended.
 */
class FirstFailure {
  private error: { cause: unknown } | null = null;
  private waiting: ((err: unknown) => void) | null = null;

  fail(err: unknown): void {
    if (this.error) return;
    this.error = { cause: err };
    this.waiting?.(err);
  }

  race<T>(p: Promise<T>): Promise<T> {
    if (this.error) return Promise.reject(this.error.cause);
    return new Promise<T>((resolve, reject) => {
      this.waiting = reject;
      p.then(resolve, reject).finally(() => {
        if (this.waiting === reject) this.waiting = null;
      });
    });
  }
}
