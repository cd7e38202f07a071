// The OpenAPI document at /api/openapi.json (issue 46) on a real server: it lists every route of the route table with
// a described answer and nothing else, a third-party validator (@seriousme/openapi-schema-validator) finds it a valid
// OpenAPI 3.1 document, and real answers of a sample of routes across the wings, errors included, match the schema it
// gives for their route and status (checked with Ajv's JSON Schema 2020-12, every described object closed: a field
// the document does not name fails too).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createApp } from '../../server/app.ts';
import { openApiPath, routeKey, TABLES, type OpenApiDocument } from '../../server/openapi/index.ts';
import { addEntries, createReport } from '../../server/reports/reports.ts';
import { draftOutbound } from '../../server/mail/comm-messages.ts';
import type { Parts } from '../../server/parts.ts';
import { adminToken, call, newAgent, newUser, testServer, type Reply } from './helpers.ts';

type Doc = OpenApiDocument;
type Op = { tags: string[]; operationId: string; security: unknown[]; responses: Record<string, Answer> };
type Answer = { $ref?: string; description?: string; content?: Record<string, { schema: Record<string, unknown> }> };

// 302: single sign-on's browser navigations (issue 49), answered with a redirect.
const SUCCESS = /^(2\d\d|101|302)$/;
const WITHOUT_BODY = ['204', '101', '302'];

async function fetchDocument(): Promise<{ doc: Doc; reply: Reply<Doc> }> {
  const reply = await call<Doc>('/api/openapi.json');
  assert.is(reply.status, 200);
  return { doc: reply.body, reply };
}

function operationOf(doc: Doc, method: string, pattern: string): Op | undefined {
  return doc.paths[openApiPath(pattern)]?.[method === 'WS' ? 'get' : method.toLowerCase()] as Op | undefined;
}

/** The answer a status has, its `$ref` (an error answer) followed. */
function answerOf(doc: Doc, op: Op, status: number): Answer | undefined {
  const answer = op.responses[String(status)];
  if (!answer?.$ref) return answer;
  const name = answer.$ref.replace('#/components/responses/', '');
  return (doc.components.responses as Record<string, Answer>)[name];
}

// ---

const coverage = suite('openapi: every route, and only routes');

coverage('every route of the route table is in the document with a described success answer; nothing else is', async () => {
  const { parts } = await testServer();
  const { doc } = await fetchDocument();
  const routes = createApp(parts).routes();
  const missing: string[] = [];
  for (const route of routes) {
    const op = operationOf(doc, route.method, route.path);
    const successes = Object.entries(op?.responses ?? {}).filter(([status]) => SUCCESS.test(status));
    const described = successes.length > 0 && successes.every(([status, answer]) => {
      if (WITHOUT_BODY.includes(status)) return !answer.content;
      const media = Object.values(answer.content ?? {});
      return media.length > 0 && media.every((m) => Object.keys(m.schema ?? {}).length > 0);
    });
    if (!op || !described) missing.push(routeKey(route));
  }
  assert.equal(missing, [], `routes without a described success answer (add them to server/openapi/operations/<wing>.ts): ${missing.join(', ')}`);

  const routed = new Set(routes.map((r) => `${r.method === 'WS' ? 'get' : r.method.toLowerCase()} ${openApiPath(r.path)}`));
  const listed = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
  assert.equal(listed.filter((key) => !routed.has(key)), [], 'operations in the document that are no route');
  assert.is(listed.length, routes.length);

  const keys = new Set(routes.map(routeKey));
  const stale = TABLES.flatMap((t) => Object.keys(t.operations)).filter((key) => !keys.has(key));
  assert.equal(stale, [], `descriptions of routes that do not exist: ${stale.join(', ')}`);
});

coverage('each operation has its wing as tag, a unique id, and the security its auth level implies', async () => {
  const { parts } = await testServer();
  const { doc } = await fetchDocument();
  const ids = new Set<string>();
  for (const route of createApp(parts).routes()) {
    const op = operationOf(doc, route.method, route.path)!;
    assert.is(op.tags?.length, 1, `${routeKey(route)}: described, with its wing as its tag`);
    assert.not.ok(ids.has(op.operationId), `${routeKey(route)}: operationId ${op.operationId} is taken`);
    ids.add(op.operationId);
    if (route.auth === 'public' && route.path !== '/metrics') assert.equal(op.security, [], `${routeKey(route)} is public`);
    if (route.auth !== 'public') assert.ok(op.security.length > 0, `${routeKey(route)} needs a sign-in`);
    if (route.auth !== 'public' && route.method !== 'WS') assert.ok(op.responses['401'], `${routeKey(route)} answers 401`);
    if (route.method === 'WS') assert.ok(op.responses['101'], `${routeKey(route)} is a socket`);
  }
  assert.equal(doc.tags.map((t) => t.name).sort(), TABLES.map((t) => t.tag).sort());
});

coverage('the document is built once, cacheable, and answered 304 to its ETag', async () => {
  const first = (await fetchDocument()).reply;
  const etag = first.headers.get('etag');
  assert.ok(etag);
  assert.match(first.headers.get('cache-control') ?? '', /public, max-age=\d+/);
  const again = await call('/api/openapi.json', { headers: { 'If-None-Match': etag! } });
  assert.is(again.status, 304);
  assert.is((await fetchDocument()).reply.headers.get('etag'), etag);
});

coverage.run();

// ---

const validity = suite('openapi: a valid OpenAPI 3.1 document');

validity('@seriousme/openapi-schema-validator finds it valid, every $ref resolving', async () => {
  const { doc } = await fetchDocument();
  assert.is(doc.openapi, '3.1.0');
  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Record<string, unknown>);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  assert.is(validator.version, '3.1');
  validator.resolveRefs(); // throws on a $ref to nothing
});

validity.run();

// ---

const answers = suite('openapi: real answers match the document');

const s = {} as {
  parts: Parts;
  doc: Doc;
  ajv: Ajv2020;
  user: Awaited<ReturnType<typeof newUser>>;
  admin: string;
  agent: number;
  thread: number;
  checked: Set<string>;
};

const DOC_ID = 'https://agent-workspace.test/openapi.json';

/** Every object schema that names its properties, closed (`unevaluatedProperties: false`) unless it says otherwise. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)]));
  const open = 'additionalProperties' in out || 'unevaluatedProperties' in out;
  if (out.properties && typeof out.properties === 'object' && !open) out.unevaluatedProperties = false;
  return out;
}

answers.before(async () => {
  const running = await testServer();
  s.parts = running.parts;
  s.doc = (await fetchDocument()).doc;
  s.ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(s.ajv);
  const components = JSON.parse(JSON.stringify(closed(s.doc.components)).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
  s.ajv.addSchema({ $id: DOC_ID, components });
  s.user = await newUser('openapi');
  s.admin = await adminToken();
  s.agent = (await newAgent(s.user.id, 'OpenAPI agent')).id;
  s.thread = (await call('/api/threads/', { token: s.user.token, body: { agent_id: s.agent, name: 'OpenAPI thread' } })).body.id;
  s.checked = new Set();
});

type CallInit = { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; status?: number };

/**
 * Calls `path` as `key` ("METHOD /pattern") and checks the answer's status (the route's documented success unless
 * `status` says) and that its JSON body matches the document's schema for that route and status.
 */
async function check<T = any>(key: string, path: string, init: CallInit = {}): Promise<T> {
  const [method, pattern] = key.split(' ');
  const op = operationOf(s.doc, method, pattern);
  assert.ok(op, `${key} is in the document`);
  const success = Object.keys(op!.responses).find((status) => SUCCESS.test(status));
  const reply = await call('/api' + path, { method, token: init.token ?? s.user.token, body: init.body, headers: init.headers });
  const want = init.status ?? Number(success);
  assert.is(reply.status, want, `${key} ${path}: ${JSON.stringify(reply.body).slice(0, 400)}`);
  const answer = answerOf(s.doc, op!, reply.status);
  assert.ok(answer, `${key}: status ${reply.status} is documented`);
  const schema = answer!.content?.['application/json']?.schema;
  assert.ok(schema, `${key}: a JSON answer for ${reply.status}`);
  const rebased = JSON.parse(JSON.stringify(closed(schema)).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
  const validate = s.ajv.compile(rebased);
  const ok = validate(reply.body);
  assert.ok(ok, `${key} ${reply.status} does not match its schema: ${s.ajv.errorsText(validate.errors)}\n${JSON.stringify(reply.body).slice(0, 600)}`);
  s.checked.add(key);
  return reply.body as T;
}

answers('users, agents, threads, steps and messages', async () => {
  const { user, admin, agent } = s;
  await check('GET /health', '/health');
  await check('GET /auth/first-start', '/auth/first-start');
  await check('POST /auth/sign-in', '/auth/sign-in', { body: { email: user.email, password: 'correct horse battery' } });
  await check('GET /users/auth-status', '/users/auth-status', { token: '' });
  await check('GET /users/auth-status', '/users/auth-status', { token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) } });
  await check('GET /users/me', '/users/me');
  await check('GET /users/me', '/users/me', { token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) } });
  await check('PUT /users/me', '/users/me', { body: { name: 'Open API' } });
  await check('PATCH /users/me/limit', '/users/me/limit', { body: { limit_cents: 5000 } });
  await check('GET /users/', '/users/?search=openapi', { token: admin });

  await check('POST /agents/', '/agents/', { token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) }, body: { name: 'Made here' } });
  await check('GET /agents/', '/agents/');
  await check('PUT /agents/:id/notes', `/agents/${agent}/notes`, { body: { notes: 'Remember the milk' } });
  await check('GET /agents/:id/system-prompt', `/agents/${agent}/system-prompt`);
  await check('GET /agents/:id/run-state', `/agents/${agent}/run-state`);
  await check('POST /agents/stop', '/agents/stop', { body: { agent_id: agent } });
  await check('GET /agents/:id/supervision', `/agents/${agent}/supervision`);
  await check('GET /agents/:id/email-settings', `/agents/${agent}/email-settings`, { token: admin });
  await check('GET /desktops/status', '/desktops/status');
  await check('GET /agents/:id/desktop', `/agents/${agent}/desktop`);

  const empty = await check('POST /threads/', '/threads/', { body: { agent_id: agent, name: 'Empty' } });
  await check('POST /threads/:id/run-state', `/threads/${empty.id}/run-state`, { body: { target_run_state: 'stop' } });
  const made = await check('POST /threads/:id/create-new-thread', `/threads/${agent}/create-new-thread`, { body: { user_text: 'Find the report' } });
  await check('POST /threads/:id/set-user-input', `/threads/${made.id}/set-user-input`, { body: { user_text: 'And mail it' } });
  await check('POST /threads/:id/set-user-input', `/threads/${s.thread}/set-user-input`, { body: { user_text: 'Start here' } });
  await check('GET /threads/:id', `/threads/${made.id}`);
  await check('GET /threads/:id/steps', `/threads/${made.id}/steps?limit=500`);
  await check('GET /threads/:id/run-state', `/threads/${made.id}/run-state`);
  await check('GET /agents/:id', `/agents/${agent}`);
  await check('GET /messages/agent/:id', `/messages/agent/${agent}`);
  await check('GET /messages/agent/:id/latest', `/messages/agent/${agent}/latest?limit=5`);
  await check('POST /realtime/negotiate', '/realtime/negotiate', { body: { thread_id: s.thread } });
});

answers('traces, runs and replays, reports, billing', async () => {
  const { db } = s.parts;
  const { user, agent, thread } = s;
  const [trace] = await db.query<{ id: number }>(
    `INSERT INTO llm_traces (owner_id, agent_id, thread_id, thread_name, model, input_tokens, estimated_cost, latency, parameters, request, response)
     VALUES ($1, $2, $3, 'Main', 'openapi-model', 12, 0.02, 1.5, '{"max_tokens": 10}', '{"messages": []}', '{"content": [{"type": "text", "text": "ok"}]}')
     RETURNING id`, [user.id, agent, thread]);
  await check('GET /llm_traces/', '/llm_traces/?page_size=5');
  await check('GET /llm_traces/owners', '/llm_traces/owners');
  await check('GET /llm_traces/thread_names', '/llm_traces/thread_names');
  await check('GET /llm_traces/cost_by_day', '/llm_traces/cost_by_day');
  await check('GET /llm_traces/thread/:threadId', `/llm_traces/thread/${thread}?verbose=true`);
  await check('GET /llm_traces/:id', `/llm_traces/${trace.id}`);
  await check('GET /models/status', '/models/status');

  const [run] = await db.query<{ id: number }>(
    `INSERT INTO runs (thread_id, agent_id, owner_id, instance_id, ended_at, outcome) VALUES ($1, $2, $3, $4, now(), 'done') RETURNING id`,
    [thread, agent, user.id, s.parts.runner!.id]);
  await db.query('UPDATE llm_traces SET run_id = $1 WHERE id = $2', [run.id, trace.id]);
  await check('GET /threads/:id/runs', `/threads/${thread}/runs`);
  const replay = await check('GET /runs/:id/replay', `/runs/${run.id}/replay`);
  assert.ok(replay.markers.length > 0, 'the model call is a marker');
  await check('GET /runs/:id/replay/markers/:index', `/runs/${run.id}/replay/markers/0`);
  await check('POST /runs/:id/replay/share', `/runs/${run.id}/replay/share`, { body: { expires_in_s: 3600 } });
  await check('GET /runs/:id/replay/shares', `/runs/${run.id}/replay/shares`);

  const report = await createReport(db, { ownerId: user.id, agentId: agent, threadId: thread, title: 'Weekly', description: 'What happened' });
  await addEntries(db, report, [{ title: 'Half done', description: 'd', completion_rate: 0.5 }, { title: 'Unknown', description: 'd', completion_rate: null }]);
  const review = await check<{ id: number }[]>('GET /reports/entries_to_review', '/reports/entries_to_review');
  await check('POST /reports/entries/:id/reviewed', `/reports/entries/${review[0].id}/reviewed`, { body: {} });
  await check('GET /reports/', '/reports/?sort_order=asc');
  await check('GET /reports/:id', `/reports/${report}`);

  await check('GET /billing/prices', '/billing/prices');
  await check('GET /billing/customer', '/billing/customer');
  await check('PATCH /billing/customer', '/billing/customer', { body: { name: 'Open API Ltd', country: 'DE' } });
  await check('GET /billing/payment-method', '/billing/payment-method');
  await check('GET /billing/usage-detail', '/billing/usage-detail');
  await check('POST /billing/portal-session', '/billing/portal-session', { body: {} });
});

answers('tokens, credentials, webhooks, schedules, mail, admin views and the audit trail', async () => {
  const { admin, agent, thread } = s;
  await check('POST /tokens', '/tokens', { body: { name: 'OpenAPI', scope: 'read', expires_in_days: 1 } });
  await check('GET /tokens', '/tokens');
  await check('GET /admin/tokens', '/admin/tokens', { token: admin });

  const credential = await check('POST /credentials', '/credentials', {
    body: { name: 'Mail account', username: 'me', password: 'secret-pw', targets: ['https://mail.example.test'] },
  });
  await check('PUT /credentials/:id/grants', `/credentials/${credential.id}/grants`, { body: { agent_ids: [agent], ask_each_time: true } });
  await check('GET /credentials', '/credentials');
  await check('GET /credentials/:id/fills', `/credentials/${credential.id}/fills`);

  const allowed = s.parts.config.webhookAllowPrivate;
  s.parts.config.webhookAllowPrivate = true; // the endpoint is a closed port of this machine: its deliveries fail at once
  try {
    const endpoint = await check('POST /webhooks', '/webhooks', { body: { url: 'http://127.0.0.1:9/openapi', events: ['run.finished'], agent_id: agent } });
    await check('PATCH /webhooks/:id', `/webhooks/${endpoint.id}`, { body: { events: ['run.finished', 'run.failed'] } });
    await check('GET /webhooks', '/webhooks');
    const delivery = await check('POST /webhooks/:id/test', `/webhooks/${endpoint.id}/test`, { body: {} });
    await check('POST /webhooks/deliveries/:id/redeliver', `/webhooks/deliveries/${delivery.id}/redeliver`, { body: {} });
    await check('GET /webhooks/:id/deliveries', `/webhooks/${endpoint.id}/deliveries`);
  } finally {
    s.parts.config.webhookAllowPrivate = allowed;
  }

  await check('POST /scheduler/:id', `/scheduler/${agent}`, { token: admin, body: { frequency: 'daily', schedule_time: '09:30', message: 'Check' } });
  await check('GET /scheduler/:id', `/scheduler/${agent}`, { token: admin });

  const { db, bus } = s.parts;
  const draft = await draftOutbound(db, bus, {
    threadId: thread, agentId: agent, from: 'openapi@localhost', to: 'x@example.test', subject: 'Report', text: 'Here it is', mailDomain: 'localhost',
  });
  await check('GET /admin/comm-messages', `/admin/comm-messages?thread_id=${thread}`, { token: admin });
  await check('POST /admin/comm-messages/:id/update-text', `/admin/comm-messages/${draft.id}/update-text`, { token: admin, body: { text: 'Here it is!' } });

  await check('GET /admin/agents', '/admin/agents', { token: admin });
  await check('GET /admin/threads', `/admin/threads?agent_id=${agent}`, { token: admin });
  await check('GET /admin/threads/:id', `/admin/threads/${thread}`, { token: admin });
  await check('GET /admin/threads-requiring-approval', '/admin/threads-requiring-approval', { token: admin });
  await check('GET /admin/storage', '/admin/storage', { token: admin });
  await check('GET /admin/desktops', '/admin/desktops', { token: admin });
  await check('GET /admin/spend', '/admin/spend', { token: admin });
  await check('GET /admin/audit', '/admin/audit?action=agent.', { token: admin });
  await check('GET /admin/audit/verify', '/admin/audit/verify', { token: admin });
});

answers('error answers match the Error schema', async () => {
  const { admin, agent } = s;
  const missing = await check('GET /agents/:id', '/agents/2147483647', { status: 404 });
  assert.is(missing.detail, 'Agent not found');
  const invalid = await check('POST /agents/', '/agents/', { token: admin, body: { name: '' }, status: 422 });
  assert.equal(invalid.detail[0].loc, ['body', 'name']);
  await check('GET /threads/:id/steps', `/threads/${s.thread}/steps?limit=0`, { status: 422 });
  await check('POST /threads/:id/set-user-input', `/threads/${s.thread}/set-user-input`, { body: { user_text: '' }, status: 422 });
  await check('GET /users/me', '/users/me', { token: '', status: 401 });
  await check('GET /admin/agents', '/admin/agents', { status: 403 });
  await check('PUT /agents/:id/email-settings', `/agents/${agent}/email-settings`, { token: admin, body: { email_prefix: 42 }, status: 422 });
  await check('DELETE /tokens/:id', '/tokens/2147483647', { status: 404 });
});

answers('the sample spans at least 15 routes across the wings', () => {
  const tags = new Set([...s.checked].map((key) => {
    const [method, pattern] = key.split(' ');
    return operationOf(s.doc, method, pattern)!.tags[0];
  }));
  assert.ok(s.checked.size >= 15, `${s.checked.size} routes`);
  for (const tag of ['auth', 'agents', 'threads', 'traces', 'replay', 'reports', 'billing', 'tokens', 'webhooks', 'admin', 'audit']) {
    assert.ok(tags.has(tag), `a route of ${tag} was called`);
  }
});

answers.run();
