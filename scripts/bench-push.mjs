// Web Push benchmark (issue 47), printed, not asserted: "a push leaves ≤ 1 s after the help request". A real server (on a
// throwaway PostgreSQL schema; PGlite when none answers, said so) with WEBHOOK_ALLOW_PRIVATE, agents on the offline model
// and no desktops, and one device of the admin's subscribed to run.needs_help at a push service on loopback in this
// process (test/server/push-service.ts: it checks each push's VAPID JWT and decrypts it with the device's keys).
// BENCH_PUSH_REQUESTS (default 200) help requests, one after another, each a real run: a new agent's thread
// 'ask me for help with "…"' and run_all, until the runner pauses it. The figure is from the help request (the thread's
// needs_help.asked_at, which the runner stamps before the transaction that queues the notification) to the arrival of
// the push at the service, both this process's clock.
import { register } from 'node:module';
import { cpus, loadavg } from 'node:os';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median, percentile } = await import('./bench-result.mjs');
const { ADMIN, api, bootServer, pgAvailable } = await import('./bench-server.mjs');
const { startPushService } = await import('../test/server/push-service.ts');

const REQUESTS = Number(process.env.BENCH_PUSH_REQUESTS) || 200;
const engine = (await pgAvailable()) ? 'postgres' : 'pglite';
const load = () => loadavg().map((l) => l.toFixed(2)).join(', ');
console.log(`load average at the start: ${load()} on ${cpus().length} cores; engine ${engine}`);
if (engine !== 'postgres') console.log('PostgreSQL did not answer: measured on PGlite');

const { running, close } = await bootServer(engine, 'push', { webhookAllowPrivate: true }, { DESKTOP_PROVIDER: 'none', MODEL_PROVIDER: 'offline' });
const base = running.url;
const { token } = await api(base, '/api/auth/sign-in', { body: ADMIN });
const service = await startPushService((await api(base, '/api/push/key', { token })).public_key);
const device = service.device('/bench/phone');
await api(base, '/api/push/subscriptions', { token, body: { ...device.subscription, events: ['run.needs_help'], label: 'Bench phone' } });

const wait = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, ms, read) {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await read();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms / 1000} s`);
    await wait(5);
  }
}

const delays = [];
const failures = [];
const started = performance.now();
for (let i = 0; i < REQUESTS; i++) {
  const agent = await api(base, '/api/agents/', { token, body: { name: `Helpless ${i + 1}` } });
  const question = `Which of the two accounts should I use for filing number ${i + 1}, the one ending in 4411 or the shared one?`;
  const thread = await api(base, `/api/threads/${agent.id}/create-new-thread`, { token, body: { user_text: `ask me for help with "${question}"` } });
  await api(base, `/api/agents/${agent.id}/run-state`, { token, body: { state: 'run_all' } });
  const tag = `run.needs_help:${thread.id}`;
  const push = await until(`push for thread ${thread.id}`, 30_000, () => service.got.find((p) => p.note?.tag === tag || (p.error && !p.counted)));
  if (push.error) {
    push.counted = true;
    failures.push(push.error);
    continue;
  }
  const help = await until(`help request of thread ${thread.id}`, 10_000, async () => (await api(base, `/api/threads/${thread.id}`, { token })).needs_help);
  delays.push(push.at - Date.parse(help.asked_at));
  if (push.note.body !== question.slice(0, 100)) failures.push(`thread ${thread.id}: the push said "${push.note.body}"`);
}
const took = (performance.now() - started) / 1000;
console.log(`${REQUESTS} help requests in ${took.toFixed(1)} s; ${delays.length} pushes arrived and decrypted` +
  (failures.length ? `; ${failures.length} failed: ${failures.slice(0, 3).join('; ')}` : ''));
const list = [...delays].sort((a, b) => a - b);
console.log(`push after the help request: median ${median(delays).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms, ` +
  `min ${list[0]} ms, max ${list.at(-1)} ms`);
benchResult(`push after its help request, p99 of ${delays.length} (${engine})`, percentile(delays, 99), 'ms', '≤ 1000 ms',
  `median ${median(delays).toFixed(0)} ms`);
if (failures.length) benchResult('help requests whose push failed', failures.length, 'requests', '0');
console.log(`load average at the end: ${load()}`);
await service.close();
await close();
process.exit(0);
