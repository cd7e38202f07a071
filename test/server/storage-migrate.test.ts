import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, type S3Server } from './s3-helpers.ts';

const migrate = suite('npm run storage:migrate');

const dataDir = mkdtempSync(join(tmpdir(), 'aw-migrate-'));
(globalThis as { __teardown?: (() => Promise<void>)[] }).__teardown?.push(async () => rmSync(dataDir, { recursive: true, force: true }));
const FILES: Record<string, Buffer> = {
  'agent-1/0b6a3c52-1d2e-4f60-9a7b-000000000001/report.pdf': Buffer.from('%PDF report'),
  'agent-1/screenshot.png': Buffer.alloc(3000, 1),
  'agent-2/0b6a3c52-1d2e-4f60-9a7b-000000000002/big file.bin': Buffer.alloc(9 * 1024 * 1024 + 5, 2), // past one part: multipart
  'agent-2/recordings/7/audio.webm': Buffer.from('audio'),
};
for (const [key, body] of Object.entries(FILES)) {
  mkdirSync(join(dataDir, 'files', key, '..'), { recursive: true });
  writeFileSync(join(dataDir, 'files', key), body);
}

function run(s3: S3Server): Promise<{ code: number; out: string }> {
  const { bucket, endpoint, accessKeyId, secretAccessKey } = s3.config('migrated', 'aw');
  const env = {
    PATH: process.env.PATH, DATA_DIR: dataDir, STORAGE_URL: `s3://${bucket}/aw`, S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: '1',
    AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/storage-migrate.mjs'], { env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

const inBucket = (s3: S3Server) => Object.fromEntries([...s3.buckets.get('migrated')!].map(([k, o]) => [k, o.body]));

migrate('copies every file, checks it, and a second run after a failed one copies only what is missing', async () => {
  const s3 = await startS3Server();
  // The first run fails one object (the bucket answers 500 for it): it says which, and exits 1.
  s3.fault = { mode: 'error', when: (method, url) => method === 'PUT' && url.pathname.endsWith('audio.webm') };
  const first = await run(s3);
  assert.is(first.code, 1, first.out);
  assert.match(first.out, /agent-2\/recordings\/7\/audio\.webm: Storage unavailable/);
  assert.match(first.out, /3 copied, 0 already there, 1 failed/);
  assert.is(Object.keys(inBucket(s3)).length, 3);
  s3.fault = null;
  const puts = () => s3.requests.filter((r) => r.method === 'PUT' || r.method === 'POST').length;
  const before = puts();
  const second = await run(s3);
  assert.is(second.code, 0, second.out);
  assert.match(second.out, /1 copied, 3 already there, 0 failed/);
  assert.is(puts() - before, 1, 'only the missing object was put');
  const stored = inBucket(s3);
  assert.equal(Object.keys(stored).sort(), Object.keys(FILES).map((k) => `aw/${k}`).sort());
  for (const [key, body] of Object.entries(FILES)) assert.ok(stored[`aw/${key}`].equals(body), key);
  // Not a terminal: a line per 100 objects and one at the end, no carriage returns.
  assert.match(second.out, /4\/4 objects/);
  assert.not.match(second.out, /\r/);
});

migrate('an object that arrives different from the file is reported and the run exits 1', async () => {
  const s3 = await startS3Server();
  s3.fault = { mode: 'corrupt', when: (method, url) => method === 'PUT' && url.pathname.endsWith('report.pdf') };
  const result = await run(s3);
  assert.is(result.code, 1, result.out);
  assert.match(result.out, /report\.pdf: differs in the bucket: 11 bytes \(11 here\), sha256 [0-9a-f]{64} \([0-9a-f]{64} here\)/);
});

migrate('without STORAGE_URL, or with a bucket that refuses the credentials, it says so and copies nothing', async () => {
  const none = await new Promise<string>((resolve) => {
    execFile(process.execPath, ['scripts/storage-migrate.mjs'], { env: { PATH: process.env.PATH, DATA_DIR: dataDir } }, (_err, out, err) => resolve(out + err));
  });
  assert.match(none, /STORAGE_URL is not set/);
  const s3 = await startS3Server();
  const { endpoint } = s3.config('migrated');
  const wrong = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, ['scripts/storage-migrate.mjs'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, STORAGE_URL: 's3://migrated', S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: '1',
        AWS_ACCESS_KEY_ID: 'test-access-key', AWS_SECRET_ACCESS_KEY: 'wrong' },
    }, (err, out, stderr) => resolve({ code: Number((err as { code?: number } | null)?.code ?? 0), out: out + stderr }));
  });
  assert.is(wrong.code, 2);
  assert.match(wrong.out, /STORAGE_URL=s3:\/\/migrated\/ cannot be used \(403 SignatureDoesNotMatch/);
  assert.is(s3.buckets.get('migrated')!.size, 0);
});

migrate.run();
