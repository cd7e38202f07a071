// Blob storage benchmark (issue 50), printed, not asserted: "an upload of 8 MB through the API ≤ 1.3× the time to
// the local disk", against the local S3 stand-in of the tests (test/server/s3-helpers.ts, in a process of its own so
// that its work is not counted in the server's event loop). One real server (PGlite in memory, temporary DATA_DIR);
// its parts.blobs is swapped between DATA_DIR/files and the bucket, the uploads interleaved, BENCH_STORAGE_RUNS
// (default 15) of each; every object is deleted after its upload. The time is the client's, request to answer.
// No desktop takes the uploads unless BENCH_STORAGE_DESKTOP=1 (then each is copied onto the agent's ~/Desktop too).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median, ratioInterval } = await import('./bench-result.mjs');
const { loadConfig } = await import('../server/config/index.ts');
const { openDb } = await import('../server/db/db.ts');
const { start } = await import('../server/start.ts');
const { LocalStore, s3Store } = await import('../server/storage/index.ts');

const RUNS = Number(process.env.BENCH_STORAGE_RUNS) || 15;
const MB8 = 8 * 1024 * 1024;
console.log(`load average at the start: ${loadavg().map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min) on ${cpus().length} cores`);

// The stand-in in a child process: it prints its config as JSON once it listens.
// BENCH_STANDIN_PROFILE=<dir>: the stand-in's own CPU profile, written there when it is stopped.
const profile = process.env.BENCH_STANDIN_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_STANDIN_PROFILE}`] : [];
const standIn = spawn(process.execPath, [...profile, '--import', './test/setup/register.mjs', '--input-type=module', '-e', `
  const { startS3Server } = await import('./test/server/s3-helpers.ts');
  const s3 = await startS3Server();
  process.on('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify(s3.config('bench', 'aw')));
`], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => standIn.kill()); // also when the start below fails
const s3Config = await new Promise((resolve, reject) => {
  let out = '';
  standIn.stdout.on('data', (d) => {
    out += d;
    if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
  });
  standIn.on('exit', (code) => reject(new Error(`the S3 stand-in exited ${code}`)));
});

const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-storage-'));
const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };
const db = await openDb({ dataDir: null });
// No desktops: the bench measures storage, and must not claim the uid range of a server already running here.
const running = await start({
  ...loadConfig({ DESKTOP_PROVIDER: process.env.BENCH_STORAGE_DESKTOP ? 'xvnc' : 'none' }), port: 0, smtpPort: 0, dataDir, staticDir: null, logRequests: false,
  adminEmail: ADMIN.email, adminPassword: ADMIN.password,
  agentStorageBytes: 10 * 1024 * 1024 * 1024,
}, db, { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) });
const stores = { local: new LocalStore(join(dataDir, 'files')), s3: s3Store(s3Config) };

const token = (await (await fetch(`${running.url}/api/auth/sign-in`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN),
})).json()).token;
const agent = await (await fetch(`${running.url}/api/agents/`, {
  method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'Bench' }),
})).json();
const body = new Uint8Array(MB8).map((_, i) => (i * 31) & 0xff);

async function upload(kind) {
  running.parts.blobs = stores[kind];
  const form = new FormData();
  form.append('file', new Blob([body]), 'eight.bin');
  const started = performance.now();
  const res = await fetch(`${running.url}/api/agents/${agent.id}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  const answer = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${kind} upload: ${res.status} ${JSON.stringify(answer)}`);
  await stores[kind].deletePrefix(`${answer.file_path.split('/').slice(0, 2).join('/')}/`);
  await db.query('DELETE FROM uploaded_files WHERE file_path = $1', [answer.file_path]);
  return ms;
}

const times = { local: [], s3: [] };
try {
  await upload('local'); // warm-up: the first of each kind is not counted
  await upload('s3');
  for (let i = 0; i < RUNS; i++) for (const kind of i % 2 ? ['s3', 'local'] : ['local', 's3']) times[kind].push(await upload(kind));
  const [local, s3] = [median(times.local), median(times.s3)];
  const [lo, hi] = ratioInterval(times.s3, times.local);
  console.log(`8 MB upload through the API: local disk p50 ${local.toFixed(1)} ms, S3 (local stand-in) p50 ${s3.toFixed(1)} ms: `
    + `${(s3 / local).toFixed(2)}× (95 % interval ${lo.toFixed(2)}–${hi.toFixed(2)}), ${RUNS} each`);
  benchResult('8 MB upload, local disk (p50)', local, 'ms', 'reference');
  benchResult('8 MB upload, S3 stand-in (p50)', s3, 'ms', '<= 1.3x local', local);
  benchResult('8 MB upload, S3 / local', s3 / local, 'x', '<= 1.3');
} finally {
  await running.close();
  await db.close();
  standIn.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
