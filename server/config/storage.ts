// Where blobs live (server/storage): DATA_DIR/files, or the S3-compatible bucket STORAGE_URL=s3://bucket/prefix
// names, with S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE, S3_TIMEOUT_MS and the standard AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY.
import { flag, httpUrl, positive, refuse, type Env } from './parse.ts';

/** The longest timer Node keeps: a longer one fires at once (TimeoutOverflowWarning), which would be no deadline. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type S3Config = {
  bucket: string;
  /** Key prefix inside the bucket: '' or ending in '/'. */
  prefix: string;
  /** S3_ENDPOINT; default https://s3.<region>.amazonaws.com. */
  endpoint: string;
  /** S3_REGION, else AWS_REGION; default us-east-1. */
  region: string;
  /** S3_FORCE_PATH_STYLE=1: endpoint/bucket/key (MinIO, most local servers); else bucket.endpoint/key. */
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  /** AWS_SESSION_TOKEN, for temporary credentials. */
  sessionToken?: string;
  /**
   * S3_TIMEOUT_MS: how long one request to the bucket may go unanswered before it fails (a 503 for the caller);
   * default 30000. Optional here only for configs made by hand (tests, scripts): those get the store's default.
   */
  timeoutMs?: number;
};

/** STORAGE_URL's bucket, or null for DATA_DIR/files. */
export function loadStorageConfig(env: Env): S3Config | null {
  const value = env.STORAGE_URL;
  if (!value) return null;
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!match) throw refuse('STORAGE_URL', value, 'an S3 bucket URL like s3://bucket/prefix');
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..') || /[\u0000\\]/.test(prefix)) {
    throw refuse('STORAGE_URL', value, 'an S3 bucket URL whose prefix has no "." or ".." parts');
  }
  const region = env.S3_REGION || env.AWS_REGION || 'us-east-1';
  const accessKeyId = env.AWS_ACCESS_KEY_ID ?? '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY ?? '';
  if (!accessKeyId || !secretAccessKey) throw new Error('STORAGE_URL needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  return {
    bucket: match[1],
    prefix: prefix ? `${prefix}/` : '',
    endpoint: httpUrl(env, 'S3_ENDPOINT') ?? `https://s3.${region}.amazonaws.com`,
    region,
    forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE'),
    accessKeyId,
    secretAccessKey,
    sessionToken: env.AWS_SESSION_TOKEN || undefined,
    timeoutMs: deadline(env),
  };
}

function deadline(env: Env): number {
  const ms = positive(env, 'S3_TIMEOUT_MS', 30_000);
  if (ms > MAX_TIMER_MS) throw refuse('S3_TIMEOUT_MS', env.S3_TIMEOUT_MS, `a positive whole number of milliseconds up to ${MAX_TIMER_MS}`);
  return ms;
}
