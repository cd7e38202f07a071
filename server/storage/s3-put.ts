// How a put goes up, as the AWS SDK's lib-storage Upload does it: a body that ends within the first part is one
// PutObject; a longer one is a multipart upload (s3-multipart.ts), begun as soon as the first part is full and while
// the rest still arrives, each part sent as it fills. Anything failing ends it: the upload is aborted, so nothing is
// listed. Memory: the parts in flight, plus the one filling.
import type { Readable } from 'node:stream';
import { MultipartUpload, type S3Send } from './s3-multipart.ts';
import { partsOf, type Part } from './s3-parts.ts';
import { UNSIGNED_PAYLOAD } from './sigv4.ts';

export type PutPlan = {
  partBytes: number;
  partsInFlight: number;
  /** Whether each body's SHA-256 is signed (else UNSIGNED-PAYLOAD): S3Options.signPayload. */
  signPayload: boolean;
  maxBytes?: number;
  /** BlobPutOptions.expectedBytes. */
  expectedBytes?: number;
  headers: Record<string, string>;
};

/** Puts the whole body under `name`, or nothing; the bytes put. */
export async function putObject(send: S3Send, name: string, source: Readable, plan: PutPlan): Promise<number> {
  const parts = partsOf(source, plan.partBytes, { hashed: plan.signPayload, maxBytes: plan.maxBytes });
  // A body expected past one part: its upload begun while the first part fills (its answer is then no wait).
  const expectMany = plan.expectedBytes !== undefined && plan.expectedBytes > plan.partBytes;
  let upload = expectMany ? new MultipartUpload(send, name, plan.headers, plan.partsInFlight) : null;
  let bytes = 0;
  try {
    let part = (await parts.next()).value as Part | undefined;
    if (part!.last && !upload) {
      (await send('PUT', name, { headers: plan.headers, body: part!.chunks, payloadHash: part!.sha256 ?? UNSIGNED_PAYLOAD })).body.resume();
      bytes = part!.bytes;
    } else {
      upload ??= new MultipartUpload(send, name, plan.headers, plan.partsInFlight);
      while (part) {
        await upload.add(part);
        bytes += part.bytes;
        if (part.last) break;
        part = undefined; // sent or on its way: not held while the next one fills
        const next = await upload.whileSending(parts.next());
        part = next.done ? undefined : next.value;
      }
      await upload.complete();
    }
  } catch (err) {
    await upload?.abort();
    // Not awaited: a read may still be pending (a part failed meanwhile); the body is let go once it settles
    // (a BlobSink ends it as soon as this put has failed).
    parts.return(undefined).catch(() => {});
    throw err;
  }
  await parts.return(undefined);
  return bytes;
}
