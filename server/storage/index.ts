// The storage wing's face: the BlobStore every part of the server keeps its blobs in, chosen by the config.
//   blob-store.ts          the interface and what a key may be
//   local-store.ts         DATA_DIR/files (the embedded default)
//   s3-store.ts            an S3-compatible bucket, with sigv4.ts (the signer), s3-put.ts, s3-parts.ts and
//                          s3-multipart.ts (a put, whole or in parts as it arrives), s3-http.ts (one exchange over
//                          node:http(s)) and s3-xml.ts (its few answers)
//   storage-unavailable.ts the 503 a store that fails or times out becomes
//   blob-sink.ts           a put fed chunk by chunk (an upload as it arrives)
//   local-copy.ts          a blob as a file on this machine, for the one call that wants a path
import { join } from 'node:path';
import type { S3Config } from '../config/index.ts';
import { StartRefused } from '../system/start-refused.ts';
import { LocalStore } from './local-store.ts';
import { S3Store, type S3Options } from './s3-store.ts';
import type { BlobStore } from './blob-store.ts';

export { isBlobKey, type BlobInfo, type BlobPutOptions, type BlobRange, type BlobRead, type BlobStore } from './blob-store.ts';
export { LocalStore, pipeBlob } from './local-store.ts';
export { S3Store, type S3Options } from './s3-store.ts';
export { StorageUnavailable, STORAGE_UNAVAILABLE_DETAIL } from './storage-unavailable.ts';

/** The store of a bucket's config: its deadline is S3_TIMEOUT_MS unless `options` names one. */
export function s3Store(config: S3Config, options: Pick<S3Options, 'timeoutMs' | 'partBytes' | 'partsInFlight' | 'signPayload'> = {}): S3Store {
  const { accessKeyId, secretAccessKey, sessionToken, timeoutMs, ...where } = config;
  return new S3Store({ ...where, ...(timeoutMs ? { timeoutMs } : {}), ...options, credentials: { accessKeyId, secretAccessKey, sessionToken } });
}

/**
 * DATA_DIR/files, or the bucket of STORAGE_URL once it answers to the credentials given: a bucket that is missing,
 * refuses them or cannot be reached stops the start with one line naming STORAGE_URL (StartRefused).
 */
export async function openBlobStore(config: { dataDir: string; storage: S3Config | null }, log: (line: string) => void): Promise<BlobStore> {
  if (!config.storage) return new LocalStore(join(config.dataDir, 'files'));
  const store = s3Store(config.storage);
  const problem = await store.check();
  if (problem) {
    const { bucket, prefix } = config.storage;
    throw new StartRefused(`STORAGE_URL=s3://${bucket}/${prefix} cannot be used (${problem}); check the bucket, S3_ENDPOINT, `
      + 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  }
  log(`storage: blobs are kept in ${store.description}`);
  return store;
}
export { withLocalCopy } from './local-copy.ts';
export { BlobSink } from './blob-sink.ts';
