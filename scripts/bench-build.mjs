// The built app the browser and process benchmarks run: `node build.mjs --if-needed` into
// .tmp/bench-dist (not dist/, which a developer may be watching), and that server started as a
// process of its own over PGlite in a data directory.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_DIR = join(ROOT, '.tmp', 'bench-dist');

export function ensureBuild() {
  const r = spawnSync(process.execPath, ['build.mjs', '--if-needed'], { cwd: ROOT, env: { ...process.env, BUILD_DIR }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error('build failed');
  return BUILD_DIR;
}

export const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };

export async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts the built server; resolves once it listens. */
export async function startServer(dist, dataDir, port, env = {}) {
  const child = spawn(process.execPath, [join(dist, 'server.mjs')], {
    env: {
      ...process.env, DATA_DIR: dataDir, PORT: String(port), SMTP_PORT: '0', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
      STATIC_DIR: join(dist, 'public'), LOG_REQUESTS: '0', DESKTOP_PROVIDER: 'none', DATABASE_URL: '', ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = performance.now();
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('listening on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return { child, startMs: performance.now() - started };
}

export async function stop(child) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function call(base, path, { token, body } = {}) {
  const res = await fetch(base + path, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${res.status} ${path}`);
  return res.json();
}

