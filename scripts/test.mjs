// `npm test`: typecheck, the tree's structural rules (scripts/check-structure.mjs), unit tests, server tests (PGlite, and PostgreSQL when reachable),
// build, then Playwright end-to-end tests in Debian's Chromium. Ends with one line
// "N passed, N failed" over every suite and exits non-zero on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const only = process.argv.slice(2); // e.g. `npm test -- unit server` runs just those stages
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { out += d; process.stderr.write(d); });
    child.on('close', (code) => resolve({ code: code ?? 1, out: out.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

function record(name, passed, failed, skipped = 0) {
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  lines.push(`${name.padEnd(22)} ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
}

/** Lazily unmounts every mount point under `dir` (/proc/self/mountinfo's fifth field). */
function unmountUnder(dir) {
  let info = '';
  try {
    info = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return;
  }
  for (const line of info.split('\n')) {
    const point = line.split(' ')[4]?.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
    if (point?.startsWith(`${dir}/`)) spawnSync('umount', ['-l', point]);
  }
}

const wanted = (stage) => only.length === 0 || only.includes(stage);
const UVU = ['--import', './test/setup/register.mjs', 'test/setup/run.mjs'];
/** The server tests that store files (uploads, mail attachments): run on both kinds of storage. */
const S3_FILE_TESTS = '^(upload|mail-storage|mail-intake|agents|replay|recording)\\.test';

async function uvu(name, dir, env, pattern) {
  const { code, out } = await run(process.execPath, [...UVU, dir, ...(pattern ? [pattern] : [])], env);
  const num = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(out)?.[1] ?? NaN);
  const [total, passed, skipped] = [num('Total'), num('Passed'), num('Skipped')];
  if (Number.isNaN(total)) return record(name, 0, 1); // crashed before its summary
  // uvu's Total counts the tests that ran; skipped ones are apart from it.
  record(name, passed, total - passed + (code !== 0 && total === passed ? 1 : 0), skipped);
}

async function postgresUrl() {
  const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

if (wanted('typecheck')) {
  const { code } = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
  record('typecheck', code === 0 ? 1 : 0, code === 0 ? 0 : 1);
}
if (wanted('structure')) {
  const { code, out } = await run(process.execPath, ['scripts/check-structure.mjs']);
  const m = /(\d+) passed, (\d+) failed/.exec(out);
  if (m) record('structure', Number(m[1]), Number(m[2]) + (code !== 0 && m[2] === '0' ? 1 : 0));
  else record('structure', 0, 1);
}
if (wanted('unit')) await uvu('unit', 'test/unit');
if (wanted('server')) {
  await uvu('server (PGlite)', 'test/server', { TEST_DATABASE_URL: '' });
  const url = await postgresUrl();
  if (url) await uvu('server (PostgreSQL)', 'test/server', { TEST_DATABASE_URL: url });
  else lines.push('server (PostgreSQL)    not reachable: skipped');
  // The tests of stored files once more with the blobs in an S3 bucket (a local stand-in, test/server/s3-helpers.ts).
  await uvu('server (S3 storage)', 'test/server', { TEST_DATABASE_URL: '', TEST_STORAGE: 's3' }, S3_FILE_TESTS);
}
if (wanted('e2e')) {
  const build = await run(process.execPath, ['build.mjs']);
  if (build.code !== 0) record('build', 0, 1);
  else {
    const dataDir = mkdtempSync(join(tmpdir(), 'aw-e2e-'));
    const report = join(dataDir, 'report.json');
    const { code } = await run(process.execPath, ['node_modules/@playwright/test/cli.js', 'test'], {
      E2E_DATA_DIR: dataDir,
      PLAYWRIGHT_JSON_OUTPUT_NAME: report,
    });
    if (existsSync(report)) {
      const { stats } = JSON.parse(readFileSync(report, 'utf8'));
      record('e2e (Chromium)', stats.expected + stats.flaky, stats.unexpected, stats.skipped);
    } else record('e2e (Chromium)', 0, 1);
    if (code === 0) {
      unmountUnder(dataDir); // the homes' images a server that did not stop cleanly left mounted there
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }
  }
}

console.log('\n' + lines.join('\n'));
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed > 0 ? 1 : 0);
