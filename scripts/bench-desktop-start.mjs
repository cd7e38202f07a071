// Cold start (issue 48): POST /agents/enter for agents whose desktop is not running, until the first frame
// reaches the viewer through the Guacamole tunnel; median over distinct agents (budget ≤ 1.0 s, contained when
// the server is root). Each desktop's apps come up and it is stopped before the next start, so every start finds
// the machine idle. scripts/bench-desktop.mjs runs it on its own server; alone: `node scripts/bench-desktop-start.mjs`.
import { benchResult, median } from './bench-result.mjs';

const ms = (v) => `${v.toFixed(0)} ms`;

/** `api(path, {token, body})` and `base` of a running server, `desktops` its desktops part, `connect(url)` a viewer. */
export async function benchColdStart({ api, base, admin, desktops, connect, count = 5 }) {
  const enters = [];
  const frames = [];
  for (let i = 0; i < count; i++) {
    const agent = (await api('/api/agents/', { token: admin, body: { name: `Cold ${i + 1}` } })).body;
    const t = performance.now();
    const enter = await api('/api/agents/enter', { token: admin, body: { agent_id: agent.id } });
    if (enter.status !== 200) throw new Error(`enter: ${enter.status} ${JSON.stringify(enter.body)}`);
    enters.push(performance.now() - t);
    const client = await connect(base.replace('http', 'ws') + enter.body.guacamole_tunnel_url);
    try {
      await client.until(() => client.frames >= 1, 15_000, 'first frame');
      frames.push(client.syncTimes[0] - t);
    } finally {
      client.close();
    }
    await desktops.running(agent.id)?.ready;
    await desktops.stop(agent.id);
  }
  console.log(`desktop cold start over ${count} agents: enter median ${ms(median(enters))}, ` +
    `enter → first frame median ${ms(median(frames))} (${frames.map(ms).join(', ')})  [budget ≤ 1000 ms]`);
  benchResult(`desktop: cold enter → first frame, ${count} agents (median)`, median(frames), 'ms', '≤ 1000 ms');
  return frames;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { register } = await import('node:module');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  register('../test/setup/ts-loader.mjs', import.meta.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-'));
  process.env.DESKTOP_DISPLAY_BASE ||= '120';
  const { loadConfig } = await import('../server/config/index.ts');
  const { openDb } = await import('../server/db/db.ts');
  const { start } = await import('../server/start.ts');
  const { GuacTestClient } = await import('../test/server/desktop-helpers.ts');
  const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };
  const log = { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) };
  const db = await openDb({ dataDir: null });
  const running = await start({
    ...loadConfig(process.env), port: 0, smtpPort: 0, dataDir, staticDir: null, logRequests: false,
    adminEmail: ADMIN.email, adminPassword: ADMIN.password,
  }, db, log);
  const api = async (path, { token, body } = {}) => {
    const res = await fetch(running.url + path, {
      method: body ? 'POST' : 'GET',
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  try {
    const admin = (await api('/api/auth/sign-in', { body: ADMIN })).body.token;
    await benchColdStart({
      api, base: running.url, admin, desktops: running.parts.desktops, connect: (url) => GuacTestClient.connect(url),
      count: Number(process.env.BENCH_COLD_AGENTS ?? 5),
    });
  } finally {
    await running.close();
    await db.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
  process.exit(0);
}
