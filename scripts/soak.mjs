// `npm run soak`: a steady, realistic load for N minutes on one engine, and what grows meanwhile (issue 43).
// This process runs the real server and watches it: event-loop delay, RSS, the heap after a full GC, the time of
// every SQL statement, and at the end the live and dead rows of the busiest tables. A child process drives the
// load, so its own work does not show in the server's event loop: 20 users with 2 agents each poll the agents
// list and an open thread every 2 s, keep a hub socket (reconnected every minute), chat, answer what an agent
// asks, make and delete threads and upload files, and a mail arrives every 10 s. The agents run on the offline model.
//
// Usage: npm run soak -- [minutes, default 10] [pglite|postgres, default pglite]
//        SOAK_DESKTOPS=1 gives the agents real desktops (DESKTOP_PROVIDER=xvnc), DESKTOP_MAX of them at once.
// It fails (exit 1) when a figure passes its budget, comparing the first fifth of the run (after a minute's
// warm-up) with the last fifth: GET /api/agents/ p99 within ±20 %; no statement's median more than 1.5x; the
// heap after GC within ±5 MB.
import { fork } from 'node:child_process';
import { register } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { smtpClient } from './smtp-client.mjs';
import { randomUUID } from 'node:crypto';

const USERS = 20;
const AGENTS_PER_USER = 2;
const WINDOW_MS = 30_000;

// ---------------------------------------------------------------------------------------------- the server's side
async function host() {
  register('../test/setup/ts-loader.mjs', import.meta.url);
  const minutes = Number(process.argv[2]) || 10;
  const engine = process.argv[3] === 'postgres' ? 'postgres' : 'pglite';
  const desktops = process.env.SOAK_DESKTOPS === '1';
  if (!globalThis.gc) throw new Error('run with --expose-gc (npm run soak does)');
  const { ADMIN, PG_URL, bootServer, pgAvailable } = await import('./bench-server.mjs');
  const { createUser } = await import('../server/auth/users.ts');
  const { createAgent } = await import('../server/agents/agents.ts');
  if (engine === 'postgres' && !(await pgAvailable())) throw new Error(`no PostgreSQL at ${PG_URL}`);

  const timing = new StatementTimes();
  const { running, db, close } = await bootServer(engine, 'soak', {
    mailDomain: 'soak.test', mailAuth: 'off',
    mailLimits: { perIpPerMinute: 1e9, perSenderPerMinute: 1e9, runsPerAgentPerHour: 1e9, connectionsPerIp: 100, idleMs: 30_000 },
  }, { DESKTOP_PROVIDER: desktops ? 'xvnc' : 'none' }, (raw) => timing.wrap(raw));
  const cap = running.parts.config.desktop.max;
  console.log(`soak: ${minutes} min on ${engine}, ${USERS} users x ${AGENTS_PER_USER} agents, ` +
    (desktops
      ? `desktops on: at most ${cap} of the ${USERS * AGENTS_PER_USER} agents have one at once (DESKTOP_MAX); the others' runs wait for one`
      : 'desktops off'));

  const users = [];
  for (let u = 0; u < USERS; u++) {
    const email = `soak-${u}@example.test`;
    const user = await createUser(db, email, ADMIN.password);
    const agents = [];
    for (let a = 0; a < AGENTS_PER_USER; a++) {
      const agent = await createAgent(db, user.id, `Soak ${u}.${a}`);
      await db.query(`UPDATE agents SET email_prefix = $2, email_accept_from_addresses = '["@sender.test"]' WHERE id = $1`, [agent.id, `soak-${agent.id}`]);
      agents.push(agent.id);
    }
    users.push({ email, password: ADMIN.password, agents });
  }

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const windows = [];
  const planned = spans(Math.floor((minutes * 60_000) / WINDOW_MS));
  const started = Date.now();
  const load = fork(new URL(import.meta.url).pathname, ['--load', JSON.stringify({
    base: running.url.replace('localhost', '127.0.0.1'), smtpPort: running.parts.smtp?.port, users, windowMs: WINDOW_MS,
  })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const reports = [];
  load.on('message', (m) => reports.push(m));
  const exited = new Promise((resolve) => load.once('exit', resolve));

  while (Date.now() - started < minutes * 60_000) {
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const taken = timing.take();
    gc();
    const mem = process.memoryUsage();
    windows.push({
      at: (Date.now() - started) / 60_000, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6,
      // Each statement's times are kept only for the windows compared: kept for all, they grew the heap measured.
      rss: mem.rss / 2 ** 20, heap: mem.heapUsed / 2 ** 20, statements: planned.compared(windows.length) ? taken : [],
      calls: (await db.query('SELECT count(*)::int AS n FROM llm_traces'))[0].n,
    });
    loop.reset();
    const w = windows.at(-1);
    console.log(`  ${w.at.toFixed(1)} min: loop p99 ${w.loopP99.toFixed(0)} ms, rss ${w.rss.toFixed(0)} MB, ` +
      `heap after GC ${w.heap.toFixed(1)} MB, ${w.calls} model calls so far`);
  }
  if (load.exitCode !== null) throw new Error(`the load stopped early (exit ${load.exitCode})`);
  load.send('stop');
  await exited;
  const tables = await busiestTables(db);
  // Dead rows on PostgreSQL are autovacuum's to clear (the server vacuums PGlite itself): say when it is off.
  const autovacuum = engine === 'postgres' ? (await db.query('SHOW autovacuum'))[0]?.autovacuum : null;
  await close();

  // The load's windows, paired with ours by index.
  const byWindow = reports.filter((r) => r.window);
  const errors = reports.filter((r) => r.error).map((r) => r.error);
  const result = judge(windows, byWindow, minutes);
  console.log(`\nper window (${WINDOW_MS / 1000} s): route p50/p99 ms`);
  for (const [i, r] of byWindow.entries()) {
    const routes = Object.entries(r.routes).map(([name, s]) => `${name} ${s.p50.toFixed(1)}/${s.p99.toFixed(1)}`).join(', ');
    console.log(`  ${((i + 1) * WINDOW_MS / 60_000).toFixed(1)} min: ${routes}`);
  }
  console.log('\nstatements whose median grew most (first fifth → last fifth, ms):');
  for (const s of result.statements.slice(0, 10)) console.log(`  ${s.ratio.toFixed(2)}x  ${s.first.toFixed(2)} → ${s.last.toFixed(2)}  ${s.name}`);
  console.log(`\nbusiest tables (live / dead rows)${autovacuum === 'off' ? '; autovacuum is off on this PostgreSQL: nothing clears them' : ''}:`);
  for (const t of tables) console.log(`  ${t.table}: ${t.live} / ${t.dead}`);
  console.log(`\nslopes: GET /api/agents/ p99 ${fmt(result.agentsP99)}; heap after GC ${result.heap.first.toFixed(1)} → ${result.heap.last.toFixed(1)} MB; ` +
    `rss ${windows[0]?.rss.toFixed(0)} → ${windows.at(-1)?.rss.toFixed(0)} MB; event loop p99 median ${median(windows.map((w) => w.loopP99)).toFixed(0)} ms`);
  console.log(`errors: ${errors.length}${errors.length ? ` (first: ${errors.slice(0, 5).join('; ')})` : ''}`);
  if (result.failures.length) {
    console.log(`\nFAILED:\n  ${result.failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log('\nwithin budget');
  process.exit(0);
}

const fmt = (c) => (c ? `${c.first.toFixed(1)} → ${c.last.toFixed(1)} ms (${c.change >= 0 ? '+' : ''}${(c.change * 100).toFixed(0)} %)` : 'too few samples');
const median = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0);

/** The first and last fifth of the run (after the first minute), compared against the budgets. */
/** The windows compared: the first fifth after a minute's warm-up, and the last fifth. */
function spans(count) {
  const warm = Math.min(Math.ceil(60_000 / WINDOW_MS), Math.max(0, count - 2));
  const span = Math.max(1, Math.floor((count - warm) / 5));
  return { warm, span, compared: (i) => (i >= warm && i < warm + span) || i >= count - span };
}

function judge(windows, loadWindows, minutes) {
  const failures = [];
  const { warm, span } = spans(windows.length);
  const first = (xs) => xs.slice(warm, warm + span);
  const last = (xs) => xs.slice(-span);
  const p99s = loadWindows.map((w) => w.routes['GET /api/agents/']?.p99).filter((v) => v !== undefined);
  let agentsP99 = null;
  if (p99s.length >= 2) {
    const [a, b] = [median(first(p99s)), median(last(p99s))];
    agentsP99 = { first: a, last: b, change: a ? (b - a) / a : 0 };
    if (Math.abs(agentsP99.change) > 0.2) failures.push(`GET /api/agents/ p99 ${fmt(agentsP99)}: budget ±20 %`);
  }
  const heap = { first: median(first(windows).map((w) => w.heap)), last: median(last(windows).map((w) => w.heap)) };
  if (Math.abs(heap.last - heap.first) > 5) failures.push(`heap after GC ${heap.first.toFixed(1)} → ${heap.last.toFixed(1)} MB: budget ±5 MB`);
  const merge = (ws) => {
    const all = new Map();
    for (const w of ws) for (const [name, times] of w.statements) all.set(name, [...(all.get(name) ?? []), ...times]);
    return all;
  };
  const [a, b] = [merge(first(windows)), merge(last(windows))];
  const statements = [];
  for (const [name, times] of a) {
    const later = b.get(name);
    if (times.length < 20 || !later || later.length < 20) continue;
    const [m1, m2] = [median(times), median(later)];
    statements.push({ name, first: m1, last: m2, ratio: m2 / Math.max(m1, 0.01) });
  }
  statements.sort((x, y) => y.ratio - x.ratio);
  for (const s of statements) {
    // Below 0.05 ms a median is the timer's noise, not a statement's cost.
    if (s.ratio <= 1.5 || s.last <= 0.05) continue;
    failures.push(`${s.name}: median ${s.first.toFixed(2)} → ${s.last.toFixed(2)} ms (${s.ratio.toFixed(1)}x): budget 1.5x`);
  }
  if (minutes < 30) console.log(`\n(budgets are set for 30 minutes on an idle machine; this run is ${minutes})`);
  return { failures, agentsP99, heap, statements };
}

/** The time of every statement, by its name (a prepared one's) or its first words, gathered per window. */
class StatementTimes {
  current = new Map();
  wrap(db) {
    const time = async (sql, run) => {
      const t0 = performance.now();
      try {
        return await run();
      } finally {
        const name = typeof sql === 'string' ? sql.replace(/\s+/g, ' ').trim().slice(0, 90) : sql.name;
        const list = this.current.get(name) ?? [];
        list.push(performance.now() - t0);
        this.current.set(name, list);
      }
    };
    const timedQueryable = (q) => ({ query: (sql, params) => time(sql, () => q.query(sql, params)), context: q.context });
    // The same object but for these three (version and listen keep their identity: the read cache is keyed by it).
    return {
      ...db,
      query: (sql, params) => time(sql, () => db.query(sql, params)),
      one: (sql, params) => time(sql, () => db.one(sql, params)),
      tx: (fn) => db.tx((q) => fn(timedQueryable(q))),
    };
  }
  take() {
    const taken = [...this.current];
    this.current = new Map();
    return taken;
  }
}

async function busiestTables(db) {
  if (db.engine === 'pglite') await db.query('SELECT pg_stat_force_next_flush()');
  return db.query(`SELECT relname AS table, n_live_tup::int AS live, n_dead_tup::int AS dead FROM pg_stat_user_tables
    WHERE schemaname = current_schema() ORDER BY n_tup_ins + n_tup_upd + n_tup_del DESC LIMIT 8`);
}

// ---------------------------------------------------------------------------------------------- the load's side
async function drive({ base, smtpPort, users, windowMs }) {
  const { WebSocket } = await import('ws');
  let stopping = false;
  process.on('message', (m) => m === 'stop' && (stopping = true));
  let times = new Map();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const jitter = (ms) => ms * (0.5 + Math.random());
  const call = (route, path, init = {}) => attempt(route, path, init).catch((err) => {
    process.send({ error: `${route}: ${err.message}` });
    return null;
  });
  const attempt = async (route, path, init) => {
    const t0 = performance.now();
    const res = await fetch(base + path, {
      method: init.method ?? (init.body || init.form ? 'POST' : 'GET'),
      headers: { ...(init.form ? {} : { 'content-type': 'application/json' }), ...(init.session ? { authorization: `Bearer ${init.session.token}` } : {}) },
      body: init.form ?? (init.body ? JSON.stringify(init.body) : undefined),
    });
    const text = await res.text();
    const list = times.get(route) ?? [];
    list.push(performance.now() - t0);
    times.set(route, list);
    // A session's token lasts minutes: signed in again, as the app does, and asked again.
    if (res.status === 401 && init.session && !init.again) {
      await init.session.signIn();
      return attempt(route, path, { ...init, again: true });
    }
    if (!res.ok) {
      process.send({ error: `${res.status} ${route}: ${text.slice(0, 200)}` });
      return null;
    }
    return text ? JSON.parse(text) : null;
  };
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
  const reporter = setInterval(() => {
    const routes = Object.fromEntries([...times].map(([name, xs]) => [name, { p50: pct(xs, 50), p99: pct(xs, 99), n: xs.length }]));
    process.send({ window: true, routes });
    times = new Map();
  }, windowMs);

  const user = async ({ email, password, agents }) => {
    const session = {
      token: '',
      async signIn() {
        this.token = (await call('POST /api/auth/sign-in', '/api/auth/sign-in', { body: { email, password } }))?.token ?? '';
      },
    };
    await session.signIn();
    for (const id of agents) await call('POST run-state', `/api/agents/${id}/run-state`, { session, body: { state: 'run_all' } });
    let socket = null;
    const reconnect = () => {
      socket?.close();
      socket = new WebSocket(`${base.replace('http', 'ws')}/api/messages/agent/${agents[0]}/ws?token=${encodeURIComponent(session.token)}`);
      socket.on('error', () => {});
      socket.on('message', () => {});
    };
    reconnect();
    let open = null;
    let tick = 0;
    while (!stopping) {
      await sleep(jitter(2000));
      tick++;
      const list = await call('GET /api/agents/', '/api/agents/', { session });
      // A person answers what an agent asked (the runaway guard pauses a long thread and asks), as people do.
      if (tick % 15 === 7) {
        for (const waiting of (list ?? []).filter((a) => a.number_threads_needing_help > 0)) {
          const agent = await call('GET /api/agents/{id}', `/api/agents/${waiting.id}`, { session });
          for (const t of (agent?.threads ?? []).filter((x) => x.needs_help)) {
            await call('POST set-user-input-and-schedule', `/api/threads/${t.id}/set-user-input-and-schedule`, { session, body: { user_text: 'Go on.' } });
          }
        }
      }
      if (open) await call('GET steps', `/api/threads/${open}/steps?limit=100`, { session });
      const agentId = agents[tick % agents.length];
      if (tick % 15 === 0) {
        // Chat: a new thread, or more on the open one; the agent runs it.
        const text = `Please look at item ${tick}`;
        if (!open || tick % 45 === 0) {
          const made = await call('POST create-new-thread', `/api/threads/${agentId}/create-new-thread`, { session, body: { user_text: text } });
          open = made?.id ?? open;
        }
        else await call('POST set-user-input-and-schedule', `/api/threads/${open}/set-user-input-and-schedule`, { session, body: { user_text: text } });
      }
      if (tick % 30 === 0) reconnect();
      if (tick % 40 === 0) {
        const form = new FormData();
        form.append('file', new Blob([`soak ${tick} `.repeat(200)]), `soak-${tick}.txt`);
        await call('POST upload_file', `/api/agents/${agentId}/upload_file`, { session, form });
      }
      if (tick % 50 === 0) {
        // Threads made and deleted: an agent keeps its newest five.
        const agent = await call('GET /api/agents/{id}', `/api/agents/${agentId}`, { session });
        const threads = (agent?.threads ?? []).filter((t) => !t.thread_running).sort((a, b) => a.id - b.id);
        for (const t of threads.slice(0, Math.max(0, threads.length - 5))) {
          if (t.id === open) open = null;
          await call('DELETE /api/threads/{id}', `/api/threads/${t.id}`, { session, method: 'DELETE' });
        }
      }
    }
    socket.close();
  };

  const mail = async () => {
    const agentIds = users.flatMap((u) => u.agents);
    for (let i = 0; !stopping && smtpPort; i++) {
      await sleep(10_000);
      const to = `soak-${agentIds[i % agentIds.length]}@soak.test`;
      const t0 = performance.now();
      try {
        await sendMail(smtpPort, 'load@sender.test', to, `Subject: soak ${i}\r\nMessage-ID: <${randomUUID()}@sender.test>\r\n\r\nPlease reply ${i}.\r\n`);
      } catch (err) {
        process.send({ error: `mail: ${err.message}` });
      }
      const list = times.get('SMTP message') ?? [];
      list.push(performance.now() - t0);
      times.set('SMTP message', list);
    }
  };
  await Promise.all([...users.map(user), mail()]);
  clearInterval(reporter);
  process.exit(0);
}

/** One message over SMTP, each command waiting for its reply. */
async function sendMail(port, from, to, message) {
  const client = await smtpClient(port, 'soak.client');
  await client.send(`MAIL FROM:<${from}>\r\n`, 250);
  await client.send(`RCPT TO:<${to}>\r\n`, 250);
  await client.send('DATA\r\n', 354);
  await client.send(`From: ${from}\r\nTo: ${to}\r\n${message}.\r\n`, 250);
  client.close();
}

// Last: the functions and classes above are defined by now.
if (process.argv[2] === '--load') await drive(JSON.parse(process.argv[3]));
else await host();
