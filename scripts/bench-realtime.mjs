// Realtime (issue 12): 1,000 message sockets (/api/messages/agent/{id}/ws) held by a client
// process of their own; for each of 20 messages, the time from its commit (the insert starts) to
// its arrival on every socket (p50/p99 over all arrivals), and the server's memory per idle
// socket. Targets: p99 < 50 ms, < 50 KB per socket. PGlite, in this process.
import { register } from 'node:module';
import { spawn } from 'node:child_process';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { ADMIN, api, bootServer } = await import('./bench-server.mjs');
const { benchResult, percentile } = await import('./bench-result.mjs');
const { addMessage } = await import('../server/threads/messages.ts');

const SOCKETS = 1000;
const MESSAGES = 20;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now(); // comparable across processes on one machine

// The clients: open SOCKETS sockets, say READY, then print each arrival time per message id.
const CLIENT = `
const { WebSocket } = await import(process.argv[1]);
const [url, count, expected] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map();
let open = 0, done = 0;
for (let i = 0; i < count; i++) {
  const ws = new WebSocket(url);
  ws.on('open', () => ++open === count && console.log('READY'));
  ws.on('close', (code, reason) => { console.error('socket closed', code, String(reason)); process.exit(1); });
  ws.on('error', (e) => { console.error('socket error', e.message); process.exit(1); });
  ws.on('message', (data) => {
    const t = now();
    const event = JSON.parse(data);
    if (event.type !== 'created') return;
    const list = arrivals.get(event.message_id) ?? [];
    list.push(t);
    arrivals.set(event.message_id, list);
    if (list.length === count && ++done === expected) {
      process.stdout.write('ARRIVALS ' + JSON.stringify([...arrivals]) + '\\n', () => process.exit(0));
    }
  });
}
`;

const { running, db, close } = await bootServer('pglite', 'realtime');
await running.parts.runner?.stop();
let clients, warmup;
try {
  const base = running.url.replace('localhost', '127.0.0.1');
  const token = (await api(base, '/api/auth/sign-in', { body: ADMIN })).token;
  const agent = await api(base, '/api/agents/', { token, body: { name: 'Realtime' } });
  const thread = await api(base, '/api/threads/', { token, body: { agent_id: agent.id } });

  const memory = async () => {
    for (let i = 0; i < 3; i++) (globalThis.gc?.(), await sleep(300));
    const m = process.memoryUsage();
    return { rss: m.rss, js: m.heapUsed + m.external };
  };
  const url = `${base.replace('http', 'ws')}/api/messages/agent/${agent.id}/ws?token=${encodeURIComponent(token)}`;
  const until = async (cond, what, ms = 60_000) => {
    for (const t0 = Date.now(); !cond(); await sleep(20)) if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
  };
  const clientsOf = (count) => {
    const child = spawn(process.execPath,
      ['--input-type=module', '-e', CLIENT, import.meta.resolve('ws'), url, String(count), String(MESSAGES)],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    const state = { child, out: '' };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => (state.out += d));
    return state;
  };
  // A first 100 sockets warm every path up, so the difference below is what 1,000 more cost.
  warmup = clientsOf(100);
  await until(() => warmup.out.includes('READY'), '100 warm-up sockets');
  const before = await memory();
  const connectStarted = performance.now();
  clients = clientsOf(SOCKETS);
  await until(() => clients.out.includes('READY'), `${SOCKETS} sockets`);
  const connectMs = performance.now() - connectStarted;
  const after = await memory();
  const rssPer = (after.rss - before.rss) / SOCKETS / 1024;
  const jsPer = (after.js - before.js) / SOCKETS / 1024;
  console.log(`${SOCKETS} sockets open in ${(connectMs / 1000).toFixed(1)} s; server memory per idle socket: ` +
    `${rssPer.toFixed(1)} KB RSS, ${jsPer.toFixed(1)} KB JS heap + external${globalThis.gc ? '' : ' (no --expose-gc: rough)'}`);

  const commits = new Map();
  for (let i = 0; i < MESSAGES; i++) {
    const t = now();
    const message = await addMessage(db, running.parts.bus, {
      agent_id: agent.id, thread_id: thread.id, role: 'user', user_data: { text: `bench message ${i}`, files: [] },
    });
    commits.set(message.id, t);
    await sleep(100);
  }
  await until(() => /ARRIVALS .*\n/.test(clients.out), 'every message on every socket');
  const arrivals = new Map(JSON.parse(clients.out.slice(clients.out.indexOf('ARRIVALS ') + 9).split('\n')[0]));
  const delays = [];
  for (const [id, times] of arrivals) for (const t of times) delays.push(t - commits.get(id));
  const lastPerMessage = [...arrivals].map(([id, times]) => Math.max(...times) - commits.get(id));
  console.log(`commit → arrival over ${delays.length} arrivals: p50 ${percentile(delays, 50).toFixed(1)} ms, ` +
    `p99 ${percentile(delays, 99).toFixed(1)} ms; until the last socket has it: median ${percentile(lastPerMessage, 50).toFixed(1)} ms`);
  benchResult(`realtime: commit → arrival, ${SOCKETS} sockets, p50`, percentile(delays, 50), 'ms', 'report');
  benchResult(`realtime: commit → arrival, ${SOCKETS} sockets, p99`, percentile(delays, 99), 'ms', '< 50 ms');
  benchResult('realtime: server memory per idle socket (RSS)', rssPer, 'KB', '< 50 KB');
  benchResult('realtime: server JS heap + external per idle socket', jsPer, 'KB', 'report');
} finally {
  clients?.child.kill();
  warmup?.child.kill();
  await close();
}
process.exit(0);
