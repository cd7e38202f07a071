// Memory (issue 12): resident memory of the built server (dist/server.mjs over PGlite in DATA_DIR),
// idle with 10 agents, after a first start on an empty data directory and after a restart.
// Target ≤ 400 MB both (issue 48). Reference: a bare `node -e` process holding a server socket.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, call, ensureBuild, freePort, startServer, stop } from './bench-build.mjs';
import { benchResult } from './bench-result.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (kb) => kb / 1024;

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** RSS once the process has settled: a few API calls like a page load, then idle. */
async function idleRss(child, base, token) {
  for (let i = 0; i < 5; i++) await call(base, '/api/agents/', { token });
  await sleep(3000);
  return status(child.pid);
}

const dist = ensureBuild();
const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-memory-'));
try {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const reference = spawn(process.execPath, ['-e', 'require("http").createServer((q, s) => s.end("{}")).listen(0)']);
  await sleep(1000);
  const bare = status(reference.pid);
  reference.kill();

  const first = await startServer(dist, dataDir, port);
  let token = (await call(base, '/api/auth/sign-in', { body: ADMIN })).token;
  for (let i = 0; i < 10; i++) await call(base, '/api/agents/', { token, body: { name: `Agent ${i + 1}` } });
  const a = await idleRss(first.child, base, token);
  await stop(first.child);
  console.log(`first start on an empty data dir: ready in ${(first.startMs / 1000).toFixed(1)} s, ` +
    `idle RSS ${mb(a.rss).toFixed(0)} MB (peak ${mb(a.peak).toFixed(0)} MB)`);

  const second = await startServer(dist, dataDir, port);
  token = (await call(base, '/api/auth/sign-in', { body: ADMIN })).token;
  const b = await idleRss(second.child, base, token);
  await stop(second.child);
  console.log(`restart: ready in ${(second.startMs / 1000).toFixed(1)} s, idle RSS ${mb(b.rss).toFixed(0)} MB (peak ${mb(b.peak).toFixed(0)} MB)`);
  console.log(`reference: bare node:http process ${mb(bare.rss).toFixed(0)} MB`);

  benchResult('memory: RSS idle after first start, 10 agents', mb(a.rss), 'MB', '≤ 400 MB', mb(bare.rss));
  benchResult('memory: peak RSS during first start', mb(a.peak), 'MB', 'report', mb(bare.peak));
  benchResult('memory: RSS idle after restart, 10 agents', mb(b.rss), 'MB', '≤ 400 MB', mb(bare.rss));
  benchResult('memory: first start until listening', first.startMs / 1000, 's', 'report');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
