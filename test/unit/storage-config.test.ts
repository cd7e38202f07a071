import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadStorageConfig } from '../../server/config/storage.ts';

const storage = suite('config: STORAGE_URL');
const KEYS = { AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' };

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadStorageConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  assert.unreachable('expected a refusal');
  return '';
}

storage('unset keeps DATA_DIR/files', () => {
  assert.is(loadStorageConfig({}), null);
});

storage('s3://bucket/prefix with the S3_* settings, and AWS defaults without them', () => {
  const env = { ...KEYS, STORAGE_URL: 's3://team-files/aw/blobs/', S3_ENDPOINT: 'http://minio:9000', S3_REGION: 'eu-west-3', S3_FORCE_PATH_STYLE: '1' };
  assert.equal(loadStorageConfig(env), {
    bucket: 'team-files', prefix: 'aw/blobs/', endpoint: 'http://minio:9000', region: 'eu-west-3', forcePathStyle: true,
    accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: undefined, timeoutMs: 30_000,
  });
  const aws = loadStorageConfig({ ...KEYS, STORAGE_URL: 's3://team-files', AWS_REGION: 'us-west-2' })!;
  assert.is(aws.prefix, '');
  assert.is(aws.endpoint, 'https://s3.us-west-2.amazonaws.com');
  assert.is(aws.forcePathStyle, false);
  assert.is(loadStorageConfig({ ...KEYS, STORAGE_URL: 's3://team-files', S3_TIMEOUT_MS: '1500' })!.timeoutMs, 1500);
});

storage('a bad URL, a prefix that climbs, missing credentials, a bad endpoint or deadline stop the start with the setting named', () => {
  assert.match(refusal({ ...KEYS, STORAGE_URL: 'https://bucket' }), /^STORAGE_URL must be an S3 bucket URL like s3:\/\/bucket\/prefix/);
  assert.match(refusal({ ...KEYS, STORAGE_URL: 's3://Bad_Bucket' }), /^STORAGE_URL must be/);
  assert.match(refusal({ ...KEYS, STORAGE_URL: 's3://bucket/a/../b' }), /^STORAGE_URL must be .*no "\." or "\.\." parts/);
  assert.match(refusal({ STORAGE_URL: 's3://bucket' }), /^STORAGE_URL needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  assert.match(refusal({ ...KEYS, STORAGE_URL: 's3://bucket', S3_ENDPOINT: 'minio:9000' }), /^S3_ENDPOINT must be an http\(s\) URL/);
  assert.match(refusal({ ...KEYS, STORAGE_URL: 's3://bucket', S3_FORCE_PATH_STYLE: 'yes' }), /^S3_FORCE_PATH_STYLE must be 1 or 0/);
  for (const bad of ['0', '-5', '2.5', '30s']) {
    assert.match(refusal({ ...KEYS, STORAGE_URL: 's3://bucket', S3_TIMEOUT_MS: bad }), /^S3_TIMEOUT_MS must be a positive whole number/);
  }
  // Past Node's longest timer the deadline would fire at once.
  assert.match(refusal({ ...KEYS, STORAGE_URL: 's3://bucket', S3_TIMEOUT_MS: '2147483648' }), /^S3_TIMEOUT_MS must be .* up to 2147483647/);
});

storage.run();
