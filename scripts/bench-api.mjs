// API throughput (issue 12): wrk at 1, 16 and 64 connections against authenticated
// GET /api/agents/ (10 agents) and GET /api/threads/{id}/steps?limit=500 (500 steps), over PGlite and
// PostgreSQL, next to a bare node:http server answering a fixed JSON body in the same run.
// Targets: ≥ 10 % of the bare server's requests/s on PGlite, ≥ 25 % on PostgreSQL.
// Usage: node scripts/bench-api.mjs [seconds per run, default 3]
import { register } from 'node:module';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { ADMIN, PG_URL, api, bootServer, pgAvailable } = await import('./bench-server.mjs');
const { benchResult } = await import('./bench-result.mjs');

const SECONDS = Number(process.argv[2]) || 3;
const CONNECTIONS = [1, 16, 64];
const WRK = '/usr/bin/wrk';
if (!existsSync(WRK)) {
  console.log('api bench skipped: wrk is not installed (apt-get install wrk)');
  process.exit(0);
}

const toMs = (v, unit) => Number(v) * ({ us: 0.001, ms: 1, s: 1000, m: 60000 }[unit] ?? NaN);

/** One wrk run; returns requests/s, p50 and p99 in ms, and how many answers were not 2xx. */
function wrk(url, connections, headers = {}, seconds = SECONDS) {
  const args = ['-t', String(Math.min(2, connections)), '-c', String(connections), '-d', `${seconds}s`, '--latency', '--timeout', '10s'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  return new Promise((resolve, reject) => {
    const child = spawn(WRK, [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const lat = (p) => {
        const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
        return m ? toMs(m[1], m[2]) : NaN;
      };
      const bad = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors:.*timeout (\d+)/.exec(out)?.[1] ?? 0);
      resolve({ rps, p50: lat(50), p99: lat(99), bad });
    });
  });
}

/** A bare node:http server answering `body` (default: a one-item JSON list) at 1, 16 and 64 connections. */
async function bare(body = JSON.stringify([{ id: 1, name: 'Bench', agent_running: false, updated_at: new Date().toISOString() }]), label = 'fixed JSON') {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  await wrk(url, 16, {}, 1); // warm-up
  const figures = {};
  for (const c of CONNECTIONS) {
    figures[c] = await wrk(url, c);
    const f = figures[c];
    console.log(`bare node:http ${label}, ${c} conn: ${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`);
    benchResult(`api: bare node:http ${label}, ${c} conn`, f.rps, 'req/s', 'reference');
  }
  await new Promise((r) => server.close(r));
  return figures;
}

async function seed(db, base, token) {
  const agents = [];
  for (let i = 0; i < 10; i++) agents.push(await api(base, '/api/agents/', { token, body: { name: `Bench agent ${i + 1}` } }));
  const thread = await api(base, '/api/threads/', { token, body: { agent_id: agents[0].id, name: 'Bench thread' } });
  await db.query(
    `INSERT INTO thread_steps (thread_id, sequence, assistant_text, user_text, tool_calls)
     SELECT $1, g, CASE WHEN g % 2 = 0 THEN 'Step ' || g || ': I looked at the screen and clicked the button.' ELSE '' END,
            CASE WHEN g % 2 = 1 THEN 'Please continue with item ' || g ELSE '' END,
            CASE WHEN g % 2 = 0 THEN '[{"id":"t","name":"computer","input":{"action":"left_click","coordinate":[100,200]}}]'::jsonb ELSE '[]'::jsonb END
     FROM generate_series(1, 500) g`, [thread.id]);
  return thread.id;
}

async function engineBench(engine, reference) {
  const { running, db, close } = await bootServer(engine, 'api');
  await running.services.runner?.stop();
  const base = running.url.replace('localhost', '127.0.0.1');
  try {
    const token = (await api(base, '/api/auth/sign-in', { body: ADMIN })).token;
    const threadId = await seed(db, base, token);
    const headers = { Authorization: `Bearer ${token}` };
    const routes = [['GET /api/agents/', '/api/agents/'], ['GET /api/threads/{id}/steps?limit=500', `/api/threads/${threadId}/steps?limit=500`]];
    // The fixed-JSON reference is a ~100-byte body; the steps page is ~100 KB. Its fair ceiling, for
    // context: a bare server answering those very bytes (measured once, on the first engine).
    if (!reference.stepsBody) {
      const page = await fetch(base + routes[1][1], { headers }).then((r) => r.text());
      reference.stepsBody = await bare(page, `same ${(page.length / 1024).toFixed(0)} KB steps body`);
    }
    for (const [label, path] of routes) {
      await wrk(base + path, 16, headers, 1); // warm-up: JIT, caches, pool
      for (const c of CONNECTIONS) {
        const f = await wrk(base + path, c, headers);
        const share = (100 * f.rps) / reference[c].rps;
        const sameBody = path.includes('/steps') ? `, ${((100 * f.rps) / reference.stepsBody[c].rps).toFixed(1)} % of bare with the same body` : '';
        console.log(`${engine} ${label}, ${c} conn: ${f.rps.toFixed(0)} req/s (${share.toFixed(1)} % of bare${sameBody}), p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms${f.bad ? `, ${f.bad} failed` : ''}`);
        const target = engine === 'postgres' ? '≥ 25 % of bare' : '≥ 10 % of bare';
        benchResult(`api: ${label} ${engine}, ${c} conn`, f.rps, 'req/s', `${target} (${share.toFixed(1)} %)`, reference[c].rps);
        benchResult(`api: ${label} ${engine}, ${c} conn p50`, f.p50, 'ms', 'report', reference[c].p50);
        benchResult(`api: ${label} ${engine}, ${c} conn p99`, f.p99, 'ms', 'report', reference[c].p99);
      }
    }
  } finally {
    await api(base, '/api/health').catch(() => {}); // the backlog wrk left behind drains first
    await close();
  }
}

const reference = await bare();
await engineBench('pglite', reference);
if (await pgAvailable()) await engineBench('postgres', reference);
else console.log(`api (postgres): skipped, no PostgreSQL at ${PG_URL}`);
process.exit(0);
