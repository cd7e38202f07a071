// API throughput (issue 12): wrk at 1, 16 and 64 connections against authenticated
// GET /api/agents/ (10 agents) and GET /api/threads/{id}/steps?limit=500 (500 steps), over PGlite and
// PostgreSQL, next to a bare node:http server answering a fixed JSON body in the same run (for the agents
// list, run in turns with it: pairedRuns).
// Targets (issue 26): GET /api/agents/ ≥ 50 % of the bare server's requests/s at 16 connections and
// ≥ 25 % at 1; the steps page ≥ 50 % of a bare server answering the same body. Those runs send no
// Accept-Encoding (compression off, as the bare server); the steps page is also run with `br`, and the
// time Brotli adds to it (p50) is printed. What the profile showed is printed first (PROFILE below).
// Usage: node scripts/bench-api.mjs [seconds per run, default 3]
import { register } from 'node:module';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { ADMIN, PG_URL, api, bootServer, pgAvailable } = await import('./bench-server.mjs');
const { benchResult, median } = await import('./bench-result.mjs');

const SECONDS = Number(process.argv[2]) || 3;

// What the profiles showed (the inspector's sampler under wrk at 16 connections, PGlite unless said) and what was done:
const PROFILE = [
  'GET /api/agents/ before issue 26: ~65 % of CPU inside PGlite running the list query per request (~0.4 ms even for',
  '  SELECT 1). Fix: the list is kept as the same JsonText while Db.version() is unchanged (server/db/read-cache.ts);',
  '  its ETag, UTF-8 bytes and compressed bytes are worked out once per version.',
  'Then: node\'s header handling ~11 % (security headers set with setHeader before the handler, so node validated',
  '  every header twice and merged the answer\'s into its map one by one: ~7 µs a request in a bare server). Fix:',
  '  AppResponse writes the standing headers in the answer\'s own writeHead, as one flat list.',
  'Then: the router\'s scan of ~100 patterns, WeakMaps keyed by each request (route, request id), an async layer',
  '  around the identity cache and the impersonation audit on every GET. Fix: fixed paths in a map, the route and',
  '  id on the request\'s context, no extra promise where nothing waits.',
  'PostgreSQL: every request asked the database (~0.6 ms at 1 connection; a round trip alone is ~0.17 ms here).',
  '  Fix: the same caches, validated by pg_current_snapshot() (one round trip, shared by the requests waiting).',
  'Then (perf and the inspector, writev left out): AsyncLocalStorage for the audit trail\'s request context, whose',
  '  hooks ran for ~19 promises and ticks per request (~3 µs); the token parsed and hashed per request; metrics',
  '  keys built as strings per request. Fix: the context travels with the request\'s database (requestDb), a',
  '  connection\'s last identity is reused while its headers are the same, metrics are found by route and method.',
  'Then (PostgreSQL): pg\'s Client spent ~60 µs more of this process\'s CPU per snapshot query than the round trip',
  '  itself (query objects, result rows, type parsing). Fix: the snapshot is read on a line of its own that speaks',
  '  the extended protocol for its one statement (server/db/snapshot-line.ts; pg opens and authenticates it).',
  'What is left at 16 connections: writev (the socket write, ~40 % of samples, with wrk on the same two cores),',
  '  node validating each of the ~10 answer headers (~20 % of what is not the write), the GC, and on PostgreSQL',
  '  the snapshot round trip (shared by the requests that wait for it).',
];
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

const FIXED_JSON = JSON.stringify([{ id: 1, name: 'Bench', agent_running: false, updated_at: new Date().toISOString() }]);

// The bare server, in a process of its own (a small heap, nothing else on its event loop): it reads the body
// from stdin, then prints its port.
const BARE_SERVER = `let body = '';
process.stdin.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => {
  const server = require('node:http').createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
});`;

/** A bare node:http server answering `body`; `measure(c)` runs wrk against it at c connections. */
async function bareServer(body) {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(body);
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  await wrk(url, 16, {}, 1); // warm-up
  return {
    measure: (c, seconds) => wrk(url, c, {}, seconds),
    close: () => new Promise((r) => {
      child.once('exit', r);
      child.kill();
    }),
  };
}

/** The bare server answering `body` at 1, 16 and 64 connections, printed. */
async function bare(body, label) {
  const server = await bareServer(body);
  const figures = {};
  for (const c of CONNECTIONS) {
    figures[c] = await server.measure(c);
    const f = figures[c];
    console.log(`bare node:http ${label}, ${c} conn: ${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`);
    benchResult(`api: bare node:http ${label}, ${c} conn`, f.rps, 'req/s', 'reference');
  }
  await server.close();
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

const PAIRS = 5;

/**
 * The agents list against the fixed-JSON server in turns, 1 s each, PAIRS times: this VM's speed swings by
 * half within a minute, and a reference taken at another moment would carry that swing into the ratio. The
 * share is the median of the pairs' shares; the figures, medians of the runs.
 */
async function pairedRuns(fixed, ours, c) {
  const runs = [];
  for (let i = 0; i < PAIRS; i++) runs.push({ bare: await fixed.measure(c, 1), ours: await ours() });
  const mid = (pick) => Object.fromEntries(['rps', 'p50', 'p99', 'bad'].map((k) => [k, median(runs.map((r) => pick(r)[k]))]));
  return { bare: mid((r) => r.bare), ours: mid((r) => r.ours), shares: runs.map((r) => (100 * r.ours.rps) / r.bare.rps) };
}

async function engineBench(engine, reference) {
  const { running, db, close } = await bootServer(engine, 'api');
  // The agents list is compared with the fixed-JSON server run in turns with it (pairedRuns).
  const fixed = await bareServer(FIXED_JSON);
  await running.parts.runner?.stop();
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
      // The agents list is ~50× the fixed JSON's bytes, and on loopback the write of the answer is most of a
      // request's cost (a profile: writev ~46 %): for context, the same comparison with those very bytes.
      const list = await fetch(base + routes[0][1], { headers }).then((r) => r.text());
      reference.agentsBody = await bare(list, `same ${(list.length / 1024).toFixed(1)} KB agents body`);
    }
    const br = { ...headers, 'Accept-Encoding': 'br' };
    const runs = [[...routes[0], headers], [...routes[1], headers], [`${routes[1][0]} with br`, routes[1][1], br]];
    const p50 = {};
    for (const [label, path, sent] of runs) {
      await wrk(base + path, 16, sent, 1); // warm-up: JIT, caches, pool
      const steps = path.includes('/steps');
      for (const c of CONNECTIONS) {
        const paired = steps ? null : await pairedRuns(fixed, () => wrk(base + path, c, sent, 1), c);
        const ref = steps ? reference.stepsBody[c] : paired.bare;
        const f = steps ? await wrk(base + path, c, sent) : paired.ours;
        if (paired) console.log(`bare node:http fixed JSON in turns with it, ${c} conn: ${ref.rps.toFixed(0)} req/s (median); `
          + `its share in each pair: ${paired.shares.map((s) => s.toFixed(0)).join(' ')} %`);
        if (c === 1) p50[label] = f.p50;
        const share = steps ? (100 * f.rps) / ref.rps : median(paired.shares);
        const sameBody = steps ? '' : `, ${((100 * f.rps) / reference.agentsBody[c].rps).toFixed(1)} % of bare with the same body`;
        console.log(`${engine} ${label}, ${c} conn: ${f.rps.toFixed(0)} req/s (${share.toFixed(1)} % of bare${steps ? ' with the same body' : ''}`
          + `${sameBody}), p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms${f.bad ? `, ${f.bad} failed` : ''}`);
        const target = steps ? (sent === br ? 'report' : '≥ 50 % of bare, same body') : c === 1 ? '≥ 25 % of bare' : c === 16 ? '≥ 50 % of bare' : 'report';
        benchResult(`api: ${label} ${engine}, ${c} conn`, f.rps, 'req/s', `${target} (${share.toFixed(1)} %)`, ref.rps);
        benchResult(`api: ${label} ${engine}, ${c} conn p50`, f.p50, 'ms', 'report', ref.p50);
        benchResult(`api: ${label} ${engine}, ${c} conn p99`, f.p99, 'ms', 'report', ref.p99);
      }
    }
    // Issue 46: the agents list with a personal API token against the same with the session's access token, in turns.
    const apiToken = (await api(base, '/api/tokens', { token, body: { name: 'bench', scope: 'read', expires_in_days: 1 } })).token;
    const turns = { session: [], token: [] };
    for (let i = 0; i < 5; i++) {
      turns.session.push((await wrk(base + routes[0][1], 16, headers, 1)).rps);
      turns.token.push((await wrk(base + routes[0][1], 16, { Authorization: `Bearer ${apiToken}` }, 1)).rps);
    }
    const [bySession, byToken] = [median(turns.session), median(turns.token)];
    console.log(`${engine} GET /api/agents/, 16 conn, in turns: session token ${bySession.toFixed(0)} req/s, API token ${byToken.toFixed(0)} req/s`);
    benchResult(`api: GET /api/agents/ ${engine} with an API token, 16 conn`, byToken, 'req/s',
      `≥ the session token's (${((100 * byToken) / bySession).toFixed(1)} %)`, bySession);
    const added = p50[runs[2][0]] - p50[runs[1][0]];
    console.log(`${engine} steps page: Brotli adds ${added.toFixed(2)} ms to the p50 at 1 connection (compressed once per version)`);
    benchResult(`api: steps page ${engine}, p50 added by Brotli (1 conn)`, added, 'ms', 'report');
  } finally {
    await fixed.close();
    await api(base, '/api/health').catch(() => {}); // the backlog wrk left behind drains first
    await close();
  }
}

console.log('profile findings:');
for (const line of PROFILE) console.log(`  ${line}`);
// The price of Brotli itself on the steps page's bytes, where nothing is cached (each answer new).
{
  const { brotliCompressSync, constants } = await import('node:zlib');
  const { BROTLI_QUALITY } = await import('../server/http/compress.ts');
  const { percentile } = await import('./bench-result.mjs');
  const body = Buffer.from(JSON.stringify({ steps: Array.from({ length: 500 }, (_, i) => ({
    id: i + 1, thread_id: 1, sequence: i + 1, reasoning_text: '', assistant_text: i % 2 ? `Step ${i + 1}: I looked at the screen and clicked the button.` : '',
    user_text: i % 2 ? '' : `Please continue with item ${i + 1}`, user_files: [], created_at: new Date().toISOString(), updated_at: new Date().toISOString(),
    tool_calls: i % 2 ? [{ id: 't', name: 'computer', input: { action: 'left_click', coordinate: [100, 200] } }] : [],
  })), total_count: 500 }));
  const times = [];
  let out = 0;
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    out = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }).length;
    times.push(performance.now() - t);
  }
  const p = percentile(times, 50);
  console.log(`Brotli q${BROTLI_QUALITY} of a ${(body.length / 1024).toFixed(0)} KB steps page: p50 ${p.toFixed(2)} ms → ${(out / 1024).toFixed(1)} KB`);
  benchResult(`api: Brotli q${BROTLI_QUALITY} of the steps page body, p50`, p, 'ms', 'well under 1 ms for a typical page');
}

// The fixed-JSON reference is measured per engine, in turns with the agents list (pairedRuns).
const reference = {};
await engineBench('pglite', reference);
if (await pgAvailable()) await engineBench('postgres', reference);
else console.log(`api (postgres): skipped, no PostgreSQL at ${PG_URL}`);
process.exit(0);
