// `npm run storage:migrate`: copies DATA_DIR/files into the bucket STORAGE_URL names (with S3_ENDPOINT, S3_REGION,
// S3_FORCE_PATH_STYLE, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, as the server reads them), before the servers are
// started on it. Resumable: an object already in the bucket with the same size and SHA-256 (kept as
// x-amz-meta-sha256 by the copy) is skipped. Every copy is checked: its size by HEAD, its bytes read back and
// hashed. A progress bar on a terminal, else a line per 100 objects; exits 1 when any object failed or differs.
// Usage: node scripts/storage-migrate.mjs [--from <folder>]   (default: DATA_DIR/files)
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { loadConfig } = await import('../server/config/index.ts');
const { LocalStore, s3Store } = await import('../server/storage/index.ts');

const fromArg = process.argv.indexOf('--from');
let config;
try {
  config = loadConfig();
  if (!config.storage) throw new Error('STORAGE_URL is not set: name the bucket to copy into (s3://bucket/prefix)');
} catch (err) {
  console.error(`storage:migrate: ${err.message}`);
  process.exit(2);
}
const from = fromArg > 0 ? process.argv[fromArg + 1] : join(config.dataDir, 'files');
const local = new LocalStore(from);
const bucket = s3Store(config.storage);
const problem = await bucket.check();
if (problem) {
  console.error(`storage:migrate: STORAGE_URL=s3://${config.storage.bucket}/${config.storage.prefix} cannot be used (${problem})`);
  process.exit(2);
}

const objects = [];
for await (const info of local.list('')) objects.push(info);
const totalBytes = objects.reduce((n, o) => n + o.bytes, 0);
const tally = { copied: 0, skipped: 0, failed: 0, bytes: 0 };
const tty = process.stdout.isTTY;
console.log(`storage:migrate: ${objects.length} objects (${mb(totalBytes)}) from ${from} to ${bucket.description}`);

for (const [i, object] of objects.entries()) {
  try {
    const hash = await sha256(createReadStream(local.localPath(object.key)));
    const there = await bucket.head(object.key);
    if (there && there.bytes === object.bytes && there.sha256 === hash) tally.skipped++;
    else {
      await bucket.put(object.key, createReadStream(local.localPath(object.key)), { sha256: hash });
      const copied = await bucket.head(object.key);
      const read = await bucket.get(object.key);
      const readHash = read ? await sha256(read.body) : null;
      if (copied?.bytes !== object.bytes || readHash !== hash) {
        throw new Error(`differs in the bucket: ${copied?.bytes ?? 'no'} bytes (${object.bytes} here), sha256 ${readHash} (${hash} here)`);
      }
      tally.copied++;
    }
  } catch (err) {
    tally.failed++;
    if (tty) process.stdout.write('\n');
    console.error(`storage:migrate: ${object.key}: ${err.message}`);
  }
  tally.bytes += object.bytes;
  progress(i + 1);
}
if (tty) process.stdout.write('\n');
console.log(`storage:migrate: ${tally.copied} copied, ${tally.skipped} already there, ${tally.failed} failed`);
process.exit(tally.failed ? 1 : 0);

function progress(done) {
  if (tty) {
    const width = 30;
    const share = objects.length ? done / objects.length : 1;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '-');
    process.stdout.write(`\r[${bar}] ${Math.round(share * 100)}% ${done}/${objects.length} objects, ${mb(tally.bytes)} of ${mb(totalBytes)}`);
  } else if (done % 100 === 0 || done === objects.length) {
    console.log(`storage:migrate: ${done}/${objects.length} objects, ${mb(tally.bytes)} of ${mb(totalBytes)}`);
  }
}

function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function sha256(stream) {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}
