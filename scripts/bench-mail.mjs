// SMTP intake benchmark (issue 10 budget; figures are printed, not asserted): 1,000 messages of
// 10 KB from 10 concurrent SMTP clients into the real server, one agent per client. Per message it
// times the final "." to the 250 and to the thread being visible through the API (the agent's
// newest chat message is this mail's), and prints messages/s with p50/p99; PGlite, then PostgreSQL
// when reachable. The clients speak raw SMTP so the clock starts exactly at the final ".".
// Usage: node scripts/bench-mail.mjs — BENCH_DATABASE_URL or TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test) names the PostgreSQL to use.
import { register } from 'node:module';
import { randomUUID } from 'node:crypto';
import { smtpClient } from './smtp-client.mjs';

register('../test/setup/ts-loader.mjs', import.meta.url);

const { ADMIN, PG_URL, api, bootServer, pgAvailable } = await import('./bench-server.mjs');
const { benchResult } = await import('./bench-result.mjs');

const CLIENTS = 10;
const MESSAGES = 1000;
const BODY = ('x'.repeat(78) + '\r\n').repeat(Math.ceil(10 * 1024 / 80)).slice(0, 10 * 1024 - 2) + '\r\n';

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const ms = (n) => `${n.toFixed(1)} ms`;

async function bench(engine) {
  // The intake's own throughput: its limits on one sender (issue 24) lifted, and no sender checks (sender.test
  // has no DNS here, and a check would wait on the resolver).
  const lifted = { perIpPerMinute: 1e9, perSenderPerMinute: 1e9, runsPerAgentPerHour: 1e9, connectionsPerIp: CLIENTS, idleMs: 30_000 };
  const { running, close } = await bootServer(engine, 'mail', { mailDomain: 'bench.test', mailLimits: lifted, mailAuth: 'off' }, { DESKTOP_PROVIDER: 'none' });
  const base = running.url;
  const port = running.parts.smtp.port;
  const admin = (await api(base, '/api/auth/sign-in', { body: ADMIN })).token;
  const agents = [];
  for (let c = 0; c < CLIENTS; c++) {
    const agent = await api(base, '/api/agents/', { token: admin, body: { name: `Mail bench ${c}` } });
    await api(base, `/api/agents/${agent.id}/email-settings`, {
      method: 'PUT', token: admin, body: { email_prefix: `bench-${c}`, email_accept_from_addresses: ['@sender.test'] },
    });
    agents.push(agent.id);
  }
  const toAccepted = [];
  const toVisible = [];
  const started = performance.now();
  await Promise.all(agents.map(async (agentId, c) => {
    const client = await smtpClient(port);
    for (let i = 0; i < MESSAGES / CLIENTS; i++) {
      const marker = `bench ${c}-${i}`;
      await client.send('MAIL FROM:<load@sender.test>\r\n', 250);
      await client.send(`RCPT TO:<bench-${c}@bench.test>\r\n`, 250);
      await client.send('DATA\r\n', 354);
      const data = `From: load@sender.test\r\nTo: bench-${c}@bench.test\r\nSubject: ${marker}\r\n` +
        `Message-ID: <${randomUUID()}@sender.test>\r\n\r\n${marker}\r\n${BODY}`;
      const t0 = performance.now();
      await client.send(`${data}.\r\n`, 250);
      toAccepted.push(performance.now() - t0);
      for (;;) {
        const [latest] = await api(base, `/api/messages/agent/${agentId}/latest?limit=1`, { token: admin });
        if (latest?.user_data?.text.includes(`Subject: ${marker}\n`)) break;
      }
      toVisible.push(performance.now() - t0);
    }
    client.close();
  }));
  const seconds = (performance.now() - started) / 1000;
  const threads = (await Promise.all(agents.map((id) => api(base, `/api/agents/${id}`, { token: admin })))).reduce((n, a) => n + a.threads.length, 0);
  benchResult(`mail: SMTP intake (${engine})`, MESSAGES / seconds, 'msg/s', 'report');
  benchResult(`mail: "." → thread visible (${engine}, p99)`, pct(toVisible, 99), 'ms', 'report');
  console.log(`SMTP intake (${engine}): ${MESSAGES} messages of 10 KB from ${CLIENTS} clients in ${seconds.toFixed(1)} s = ` +
    `${(MESSAGES / seconds).toFixed(0)} messages/s; ${threads} threads`);
  console.log(`  final "." → 250: p50 ${ms(pct(toAccepted, 50))}, p99 ${ms(pct(toAccepted, 99))}`);
  console.log(`  final "." → thread visible through the API: p50 ${ms(pct(toVisible, 50))}, p99 ${ms(pct(toVisible, 99))}`);
  await close();
}

await bench('pglite');
if (await pgAvailable()) await bench('postgres');
else console.log(`SMTP intake (postgres): skipped, no PostgreSQL at ${PG_URL}`);
process.exit(0);
