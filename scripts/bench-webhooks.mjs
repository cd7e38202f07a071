// Webhook delivery benchmark (issue 46), printed, not asserted: "an event's first delivery attempt leaves ≤ 1 s after
// the event (p99 at 100 events/s on PostgreSQL)". A real server on a throwaway PostgreSQL schema (PGlite when none
// answers, said so), one endpoint on a receiver in this process, and BENCH_WEBHOOK_SECONDS (default 20) of events at
// 100 a second, each queued as the runner queues a run's events (emitThreadEvent: the insert, then the wake on the
// bus). The figure is from the call that queues the event to the receiver's first byte of its request.
import { register } from 'node:module';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median, percentile } = await import('./bench-result.mjs');
const { ADMIN, api, bootServer, pgAvailable } = await import('./bench-server.mjs');
const { emitThreadEvent } = await import('../server/webhooks/index.ts');

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS) || 20;
const RATE = 100;
const engine = (await pgAvailable()) ? 'postgres' : 'pglite';
console.log(`load average at the start: ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cores; engine ${engine}`);
if (engine !== 'postgres') console.log('PostgreSQL did not answer: measured on PGlite, which the budget does not name');

const arrived = new Map();
const receiver = createServer((req, res) => {
  const at = performance.now();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const seq = JSON.parse(Buffer.concat(chunks).toString()).data.seq;
    if (!arrived.has(seq)) arrived.set(seq, at);
    res.writeHead(204).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));

const { running, close } = await bootServer(engine, 'webhooks', { webhookAllowPrivate: true });
const base = running.url;
const { token } = await api(base, '/api/auth/sign-in', { body: ADMIN });
const agent = await api(base, '/api/agents/', { token, body: { name: 'Bench' } });
const thread = await api(base, '/api/threads/', { token, body: { agent_id: agent.id, name: 'Bench thread' } });
await api(base, '/api/webhooks', { token, body: { url: `http://127.0.0.1:${receiver.address().port}/hook`, events: ['run.started'] } });

const { db, bus } = running.parts;
const total = SECONDS * RATE;
const queued = new Map();
const started = performance.now();
for (let seq = 0; seq < total; seq++) {
  const due = started + (seq * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  queued.set(seq, performance.now());
  void emitThreadEvent(db, bus, 'run.started', thread.id, null, { seq });
}
const sentIn = (performance.now() - started) / 1000;
const deadline = Date.now() + 60_000;
while (arrived.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
const delays = [...arrived].map(([seq, at]) => at - queued.get(seq));
console.log(`${total} events queued in ${sentIn.toFixed(1)} s (${(total / sentIn).toFixed(0)}/s); ${arrived.size} arrived`);
console.log(`first attempt after the event: median ${median(delays).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, ` +
  `max ${Math.max(...delays).toFixed(1)} ms`);
benchResult(`webhook first attempt after its event, p99 at ${RATE} events/s (${engine})`, percentile(delays, 99), 'ms', '<= 1000 ms',
  `median ${median(delays).toFixed(1)} ms`);
if (arrived.size < total) benchResult('webhook events never delivered within a minute', total - arrived.size, 'events', '0');
await close();
receiver.close();
