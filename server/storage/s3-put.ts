// How a put goes up, as the AWS SDK's lib-storage Upload does it: a body that ends within the first part is one
// PutObject; a longer one is a multipart upload, begun as soon as the first part is full and while the rest still
// arrives, each part sent as it fills with at most `partsInFlight` on the wire (memory: that many part buffers, plus
// the one filling). Anything failing ends it: the parts in flight settle, then the upload is aborted, so that S3 frees
// them all (https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html) and nothing is listed.
import type { Readable } from 'node:stream';
import type { S3Answer } from './s3-http.ts';
import { parseError, tagText } from './s3-xml.ts';
import { PartReader, type Part } from './s3-parts.ts';
import { StorageUnavailable } from './storage-unavailable.ts';
import { UNSIGNED_PAYLOAD } from './sigv4.ts';

export type S3Request = { query?: Record<string, string>; headers?: Record<string, string>; body?: Buffer; payloadHash?: string; expect?: number[] };
/** One signed request for the object `name`, whose status must be expected (else StorageUnavailable). */
export type S3Send = (method: string, name: string, request?: S3Request) => Promise<S3Answer>;

export type PutPlan = {
  partBytes: number;
  partsInFlight: number;
  /** Whether each body's SHA-256 is signed (else UNSIGNED-PAYLOAD): S3Options.signPayload. */
  signPayload: boolean;
  maxBytes?: number;
  headers: Record<string, string>;
};

/** Puts the whole body under `name`, or nothing; the bytes put. */
export async function putObject(send: S3Send, name: string, source: Readable, plan: PutPlan): Promise<number> {
  const reader = new PartReader(plan.partBytes, plan.signPayload);
  const parts = reader.parts(source, plan.maxBytes);
  let bytes: number;
  try {
    const first = (await parts.next()).value as Part;
    if (first.last) {
      (await send('PUT', name, { headers: plan.headers, body: first.body, payloadHash: first.sha256 ?? UNSIGNED_PAYLOAD })).body.resume();
      bytes = first.body.length;
    } else {
      bytes = await multipart(send, name, first, parts, reader, plan);
    }
  } catch (err) {
    // Not awaited: a read may still be pending (a part failed meanwhile); the body is let go once it settles
    // (a BlobSink ends it as soon as this put has failed).
    parts.return(undefined).catch(() => {});
    throw err;
  }
  await parts.return(undefined);
  return bytes;
}

async function multipart(send: S3Send, name: string, first: Part, rest: AsyncGenerator<Part>, reader: PartReader, plan: PutPlan): Promise<number> {
  const created = send('POST', name, { query: { uploads: '' }, headers: plan.headers }).then(async (res) => {
    const id = tagText(await res.text(), 'UploadId');
    if (!id) throw new StorageUnavailable('CreateMultipartUpload answered without an UploadId');
    return id;
  });
  const inFlight = new Set<Promise<void>>();
  const etags: string[] = [];
  let failed: ((err: unknown) => void) | null = null;
  // Rejects as soon as a part fails, so that reading the body waits no longer for it.
  const failure = new Promise<never>((_, reject) => { failed = reject; });
  failure.catch(() => {});
  let uploadId: string | null = null;
  let bytes = 0;
  try {
    uploadId = await Promise.race([created, failure]);
    for (let next: Part | undefined = first; next; next = await nextPart(rest, failure)) {
      const part = next;
      while (inFlight.size >= plan.partsInFlight) await Promise.race([...inFlight, failure]);
      const sent = sendPart(send, name, uploadId, part).then((etag) => {
        etags[part.number - 1] = etag;
        reader.release(part);
      });
      const tracked: Promise<void> = sent.catch((err) => failed!(err)).finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      bytes += part.body.length;
      if (part.last) break;
    }
    await Promise.race([Promise.all(inFlight), failure]);
    const list = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`);
    const xml = Buffer.from(`<CompleteMultipartUpload>${list.join('')}</CompleteMultipartUpload>`);
    const done = await send('POST', name, { query: { uploadId }, body: xml });
    // S3 may answer 200 with an <Error> once it has started to answer.
    const answer = parseError(await done.text());
    if (answer) throw new StorageUnavailable(`CompleteMultipartUpload: ${answer.code}: ${answer.message}`);
    return bytes;
  } catch (err) {
    await Promise.allSettled([...inFlight]);
    const id = uploadId ?? (await created.catch(() => null));
    if (id) await send('DELETE', name, { query: { uploadId: id }, expect: [200, 204, 404] }).then((res) => res.body.resume(), () => {});
    throw err;
  }
}

async function nextPart(parts: AsyncGenerator<Part>, failure: Promise<never>): Promise<Part | undefined> {
  const next = await Promise.race([parts.next(), failure]);
  return next.done ? undefined : next.value;
}

async function sendPart(send: S3Send, name: string, uploadId: string, part: Part): Promise<string> {
  const query = { partNumber: String(part.number), uploadId };
  const res = await send('PUT', name, { query, body: part.body, payloadHash: part.sha256 ?? UNSIGNED_PAYLOAD });
  res.body.resume();
  return res.headers.get('etag') ?? '';
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
