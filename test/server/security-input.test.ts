// Hostile input on every JSON route of the authorization matrix, and on every search and filter: malformed
// JSON, bodies that are not objects, wrong types, huge and deeply nested bodies, NUL and lone surrogates,
// path traversal in file names and ids, SQL metacharacters. Each answers a clear 4xx {detail} (never a
// 500) and the database is byte for byte what it was.
import { createECDH, randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { filesDir } from '../../server/files/storage.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { MATRIX } from './fixtures/security-matrix.ts';

const TABLES = [
  'users', 'agents', 'threads', 'thread_steps', 'chat_messages', 'uploaded_files', 'comm_messages', 'reports', 'report_entries',
  'auth_sessions', 'billing_customers', 'runs', 'replay_shares', 'credentials', 'credential_grants', 'credential_approvals', 'credential_fills',
];

/** One digest per table of everything in it: equal digests, nothing changed. */
async function snapshot(): Promise<Record<string, string>> {
  const { parts } = await testServer();
  const out: Record<string, string> = {};
  for (const table of TABLES) {
    const [row] = await parts.db.query<{ d: string }>(`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS d FROM ${table} t`);
    out[table] = row.d;
  }
  return out;
}

const s = {} as { a: Awaited<ReturnType<typeof newUser>>; agent: number; thread: number; fx: any };

/** The matrix's calls, made as A on A's resources: the JSON routes A may call. */
async function jsonRoutes(): Promise<{ key: string; method: string; path: string }[]> {
  const out = [];
  for (const [key, entry] of Object.entries(MATRIX)) {
    if (entry.kind === 'admin' || key.startsWith('POST /auth/') || key.startsWith('DELETE')) continue;
    const method = key.split(' ')[0];
    if (method === 'GET') continue;
    const c = await entry.call(s.fx);
    // Routes that take no body (their matrix call sends {}) ignore one.
    if (c.raw || !c.body || Object.keys(c.body).length === 0) continue;
    out.push({ key, method, path: `/api${c.path}` });
  }
  return out;
}

async function send(method: string, path: string, raw: string, headers: Record<string, string> = {}) {
  return call(path, { method, token: s.a.token, raw, headers: { 'Content-Type': 'application/json', ...headers } });
}

function clear4xx(res: { status: number; body: any }, what: string, status?: number) {
  assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  if (status) assert.is(res.status, status, `${what}: ${JSON.stringify(res.body).slice(0, 200)}`);
  assert.ok(res.body && res.body.detail, `${what}: no {detail}`);
}

const input = suite('security: hostile input');

input.before(async () => {
  s.a = await newUser('input');
  s.agent = (await newAgent(s.a.id, 'Input agent')).id;
  s.thread = (await call('/api/threads/', { token: s.a.token, body: { agent_id: s.agent, name: 'Input thread' } })).body.id;
  const fresh = async () => s.thread;
  const { parts } = await testServer();
  const [run] = await parts.db.query<{ id: number }>(
    `INSERT INTO runs (thread_id, agent_id, owner_id, instance_id, ended_at, outcome) VALUES ($1, $2, $3, 'input-test', now(), 'done') RETURNING id`,
    [s.thread, s.agent, s.a.id]);
  const credential = (await call('/api/credentials', { token: s.a.token, body: { name: 'Input', password: 'input-pw' } })).body.id;
  const [approval] = await parts.db.query<{ id: number }>(
    `INSERT INTO credential_approvals (credential_id, agent_id, thread_id, field, target, expires_at)
     VALUES ($1, $2, $3, 'password', 'https://example.test', now() + interval '1 hour') RETURNING id`, [credential, s.agent, s.thread]);
  // A's webhook endpoint and push device (loopback targets: allowed here), for the routes that change them.
  parts.config.webhookAllowPrivate = true;
  const webhook = (await call('/api/webhooks', { token: s.a.token, body: { url: 'http://127.0.0.1:9/input', events: ['run.started'] } })).body.id;
  const browser = createECDH('prime256v1');
  browser.generateKeys();
  const keys = { p256dh: browser.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
  const pushDevice = (await call('/api/push/subscriptions', {
    token: s.a.token, body: { endpoint: 'http://127.0.0.1:9/input-push', keys, events: ['run.failed'] },
  })).body.id;
  s.fx = {
    credential, approval: approval.id, webhook, pushDevice, freshHelpLink: async () => 'no-such-link',
    agent: s.agent, idleAgent: s.agent, thread: s.thread, trace: 1, report: 1, entry: 1, draft: 1, signInEmail: s.a.email, run: run.id,
    freshAgent: fresh, freshThread: fresh, freshDraft: fresh, uniqueEmail: () => 'x@example.test',
  };
});

input('malformed JSON, and JSON that is not an object (null, [], "x", 1), on every JSON route: 400 / 422 {detail}, nothing changes', async () => {
  const routes = await jsonRoutes();
  assert.ok(routes.length > 15, `only ${routes.length} JSON routes`);
  const before = await snapshot();
  for (const { key, method, path } of routes) {
    for (const raw of ['{"user_text": ', '\u0000']) clear4xx(await send(method, path, raw), `${key} ${JSON.stringify(raw)}`, 400);
    for (const raw of ['null', '[{"agent_id": 1}]', '"text"', '1']) {
      const res = await send(method, path, raw);
      clear4xx(res, `${key} ${raw}`, 422);
      assert.equal(res.body.detail[0].loc, ['body']);
    }
  }
  assert.equal(await snapshot(), before);
});

input('NUL, lone surrogates and deep nesting anywhere in a body: 422 naming the field, nothing changes', async () => {
  const routes = await jsonRoutes();
  const before = await snapshot();
  const bodies: [string, (string | number)[]][] = [
    ['{"user_text": "a\\u0000b", "name": "a\\u0000b", "state": "stop"}', ['body', 'user_text']],
    ['{"user_text": "half \\ud83d pair"}', ['body', 'user_text']],
    ['{"user_text": "x", "user_files": ["\\udc00.png"]}', ['body', 'user_files', 0]],
    ['{"a\\u0000": 1}', ['body', 'a\u0000']],
    [`{"user_text": ${'['.repeat(5000)}${']'.repeat(5000)}}`, []],
  ];
  for (const { key, method, path } of routes) {
    for (const [raw, loc] of bodies) {
      const res = await send(method, path, raw);
      clear4xx(res, `${key} ${raw.slice(0, 40)}`, 422);
      if (loc.length) assert.equal(res.body.detail[0].loc, loc, key);
    }
  }
  // A paired surrogate (an emoji) and other unusual but valid text are stored as sent.
  const text = 'emoji 😀, RTL \u202e, zero-width \u200b, combining e\u0301, BOM \ufeff end';
  const ok = await call(`/api/threads/${s.thread}/set-user-input`, { token: s.a.token, body: { user_text: text } });
  assert.is(ok.status, 200);
  assert.is(ok.body.user_text, text);
  await call(`/api/threads/${s.thread}`, { token: s.a.token, method: 'DELETE' }).then(() => {}); // leave no trace for the next test
  s.thread = (await call('/api/threads/', { token: s.a.token, body: { agent_id: s.agent, name: 'Input thread' } })).body.id;
  s.fx.thread = s.thread;
  void before;
});

input('wrong types in each field: 422 {detail} naming it, nothing changes', async () => {
  const before = await snapshot();
  const cases: [string, string, unknown, string][] = [
    ['POST', `/api/threads/${s.thread}/set-user-input`, { user_text: 42 }, 'user_text'],
    ['POST', `/api/threads/${s.thread}/set-user-input`, { user_text: 'x', user_files: 'a.png' }, 'user_files'],
    ['POST', `/api/threads/${s.thread}/set-user-input`, { user_text: 'x', user_files: [{ path: 'a' }] }, 'user_files'],
    ['POST', `/api/threads/${s.thread}/set-user-input`, { user_text: { $ne: null } }, 'user_text'],
    ['POST', `/api/threads/${s.thread}/run-state`, { target_run_state: ['stop'] }, 'target_run_state'],
    ['POST', `/api/agents/${s.agent}/run-state`, { state: { toString: 'run' } }, 'state'],
    ['PUT', `/api/agents/${s.agent}/notes`, { notes: ['x'] }, 'notes'],
    ['PUT', '/api/users/me', { name: { first: 'x' } }, 'name'],
    ['PATCH', '/api/users/me/limit', { limit_cents: '100' }, 'limit_cents'],
    ['PATCH', '/api/users/me/limit', { limit_cents: 1e308 }, 'limit_cents'],
    ['POST', `/api/agents/${s.agent}/control`, { session_id: 1, take: true }, 'session_id'],
  ];
  for (const [method, path, body, field] of cases) {
    const res = await call(path, { method, token: s.a.token, body });
    clear4xx(res, `${method} ${path} ${JSON.stringify(body)}`, 422);
    assert.ok(JSON.stringify(res.body.detail).includes(field), `${path}: ${JSON.stringify(res.body.detail)}`);
  }
  // Ids of the wrong type or shape: never found, never a 500.
  for (const id of ['1.5', '-1', '0', '1e3', '0x10', '99999999999999999999', '1;DROP TABLE agents', "1' OR '1'='1", '{"$gt":0}', 'true']) {
    clear4xx(await call('/api/threads/', { token: s.a.token, body: { agent_id: id } }), `agent_id ${id}`, 404);
    clear4xx(await call('/api/realtime/negotiate', { token: s.a.token, body: { thread_id: id } }), `thread_id ${id}`, 404);
  }
  for (const id of [[1], { id: 1 }, 1.5, -1, null, true]) {
    const res = await call('/api/agents/start', { token: s.a.token, body: { agent_id: id } });
    assert.ok(res.status === 404 || res.status === 422, `agent_id ${JSON.stringify(id)}: ${res.status}`);
  }
  assert.equal(await snapshot(), before);
});

input('huge bodies: 413 {detail} on JSON routes, even when the length is not declared; nothing changes', async () => {
  const before = await snapshot();
  const huge = JSON.stringify({ user_text: 'x'.repeat(1_100_000) });
  clear4xx(await send('POST', `/api/threads/${s.thread}/set-user-input`, huge), 'declared length', 413);
  const { url } = await testServer();
  const chunked = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(huge));
      c.close();
    },
  });
  const res = await fetch(`${url}/api/agents/${s.agent}/notes`, {
    method: 'PUT', body: chunked, duplex: 'half', headers: { Authorization: `Bearer ${s.a.token}`, 'Content-Type': 'application/json' },
  } as RequestInit);
  assert.is(res.status, 413);
  assert.ok((await res.json()).detail);
  assert.equal(await snapshot(), before);
});

input('path traversal: ids with ../ and encoded slashes are 404, uploaded file names stay inside the agent\'s folder', async () => {
  for (const path of [
    '/api/agents/..%2F..%2Fetc%2Fpasswd', '/api/agents/1%2F..%2F2', '/api/threads/..', '/api/threads/%2e%2e',
    `/api/agents/${s.agent}%00`, '/api/reports/..%5C..%5Cwindows', '/api/llm_traces/%252e%252e',
  ]) {
    const res = await call(path, { token: s.a.token });
    clear4xx(res, path);
    assert.ok(res.status === 404 || res.status === 422, `${path}: ${res.status}`);
  }
  const { parts } = await testServer();
  const root = join(filesDir(parts.config.dataDir), `agent-${s.agent}`);
  for (const name of ['../../../../etc/passwd', '..\\..\\boot.ini', '/etc/shadow', '....//x', '.hidden', 'a\u0000b.txt', '\u202etxt.exe', '%2e%2e%2fescape']) {
    const form = new FormData();
    form.append('file', new Blob(['payload']), name);
    const res = await call(`/api/agents/${s.agent}/upload_file`, { token: s.a.token, raw: form });
    assert.is(res.status, 200, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`);
    const { file_path, file_name } = res.body;
    assert.not.match(file_name, /[/\\\u0000]|^\./, `${JSON.stringify(name)} → ${file_name}`);
    assert.ok(file_path.startsWith(`agent-${s.agent}/`) && !file_path.includes('..'), file_path);
    assert.ok(existsSync(join(root, file_path.slice(`agent-${s.agent}/`.length))));
  }
  // Beside the agents' folders only the homes' checkpoints (homes/agent-<id>/), which the server names itself.
  const outside = readdirSync(filesDir(parts.config.dataDir)).filter((n) => !n.startsWith('agent-') && n !== 'homes');
  assert.equal(outside, [], 'nothing landed outside the agent folders');
  // Files named in a message are names for the model (the runner reads none of them): stored as text.
  const res = await call(`/api/threads/${s.thread}/set-user-input`, { token: s.a.token, body: { user_text: 'see', user_files: ['../../../etc/passwd'] } });
  assert.is(res.status, 200);
  assert.not.ok(JSON.stringify(res.body).includes('root:'), 'no file content came back');
});

input('SQL metacharacters and NUL in every search and filter: 200 with exactly the matching rows, or 422 {detail}', async () => {
  const admin = (await call('/api/auth/sign-in', { body: { email: 'admin@test.local', password: 'admin-password-123' } })).body.token;
  const before = await snapshot();
  const nasty = ["'", '\\', '%', '_', "' OR '1'='1", "'; DROP TABLE users; --", '$1', 'x\') UNION SELECT password_hash FROM users --', '\u202e'];
  // Searches match literally: a % or _ is not a wildcard.
  for (const q of nasty) {
    const res = await call(`/api/users/?search=${encodeURIComponent(q)}`, { token: admin });
    assert.is(res.status, 200, q);
    assert.ok(res.body.every((u: any) => `${u.email} ${u.name ?? ''}`.toLowerCase().includes(q.toLowerCase())), `q=${q} matched ${res.body.length} users`);
    assert.not.ok(JSON.stringify(res.body).includes('password_hash') || JSON.stringify(res.body).includes('scrypt'), q);
  }
  const filters = [
    '/api/llm_traces/?thread_name=', '/api/llm_traces/cost_by_day?thread_name=', '/api/llm_traces/?owner_id=', '/api/llm_traces/?id_from=',
    '/api/llm_traces/?created_at_from=', '/api/llm_traces/?created_at_to=', '/api/llm_traces/?page=', '/api/llm_traces/?page_size=',
    `/api/llm_traces/thread/${s.thread}?after_trace_id=`, `/api/llm_traces/thread/${s.thread}?verbose=`, `/api/llm_traces/thread/${s.thread}?limit=`,
    '/api/reports/?start_date=', '/api/reports/?end_date=', '/api/reports/?sort_order=', '/api/reports/?page=', '/api/reports/entries_to_review?limit=',
    `/api/messages/agent/${s.agent}?page=`, `/api/messages/agent/${s.agent}?page_size=`, `/api/messages/agent/${s.agent}/latest?limit=`,
    `/api/threads/${s.thread}/steps?limit=`, `/api/threads/${s.thread}/steps?offset=`, `/api/admin/comm-messages?thread_id=`, '/api/users/?search=',
  ];
  for (const filter of filters) {
    // Encoded by hand: %ED%A0%80 is a lone surrogate in UTF-8 (it decodes to U+FFFD), %00 a NUL.
    for (const v of [...nasty.map(encodeURIComponent), '%00', 'a%00b', '%ED%A0%80']) {
      const res = await call(filter + v, { token: filter.includes('/users/') || filter.includes('/admin/') ? admin : s.a.token });
      assert.ok(res.status === 200 || res.status === 422 || res.status === 404,
        `${filter}${JSON.stringify(v)}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      if (res.status !== 200) assert.ok(res.body?.detail, `${filter}${JSON.stringify(v)}: no detail`);
      if (res.status === 200 && filter.includes('thread_name')) assert.equal(res.body.traces ?? res.body, [], `${filter}${JSON.stringify(v)} matched traces`);
    }
  }
  assert.equal(await snapshot(), before);
});

input.run();
