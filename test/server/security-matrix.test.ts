// The authorization matrix: every route of the server's route table (and every socket endpoint) called
// as anonymous, user A, another user B, an admin, an admin impersonating A, and B sending
// X-Impersonate-User-Id: A — each answers its expected status, and nothing of A's (email, agent, thread,
// message, trace names) reaches anyone but A and admins. A route without a matrix entry fails the suite.
// The table is test/server/fixtures/security-matrix.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket } from 'ws';
import { createApp } from '../../server/app.ts';
import { PUBSUB_PROTOCOL } from '../../server/realtime/pubsub-hub.ts';
import { createReport, addEntries } from '../../server/reports/reports.ts';
import { draftOutbound } from '../../server/mail/comm-messages.ts';
import { createSchedule } from '../../server/schedules/schedules.ts';
import type { Parts } from '../../server/parts.ts';
import { adminToken, call, newAgent, newUser, openSocket, testServer, uniqueEmail } from './helpers.ts';
import { fakeDesktops } from './runner-helpers.ts';
import { expected, MATRIX, ROLES, SOCKET_MATRIX_KEYS, type Fx, type Role } from './fixtures/security-matrix.ts';
import { TOPICS } from '../../server/realtime/topics.ts';
import { filesDir } from '../../server/files/storage.ts';
import { createShare } from '../../server/replay/shares.ts';
import { createHelpLink } from '../../server/push/index.ts';
import { createECDH, randomBytes } from 'node:crypto';

type User = Awaited<ReturnType<typeof newUser>>;
const s = {} as {
  parts: Parts;
  original: Parts['desktops'];
  a: User;
  b: User;
  admin: string;
  fx: Fx;
  secrets: string[];
  sharedSecrets: string[];
  bAgent: number;
  bThread: number;
  /** A credential's password and TOTP secret: no answer to anyone carries them, A's own included. */
  values: string[];
  /** A's personal API tokens. */
  readToken: string;
  writeToken: string;
};

const VALUE_TOTP = 'otpauth://totp/Matrix?secret=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPI';

/** Headers (or socket query parameters) of each caller. */
function auth(role: Role): { token?: string; impersonate?: number } {
  switch (role) {
    case 'anonymous': return {};
    case 'user': return { token: s.a.token };
    case 'other': return { token: s.b.token };
    case 'admin': return { token: s.admin };
    case 'adminAsUser': return { token: s.admin, impersonate: s.a.id };
    case 'userImpersonating': return { token: s.b.token, impersonate: s.a.id };
    case 'readToken': return { token: s.readToken };
    case 'writeToken': return { token: s.writeToken };
  }
}

const mayRead = (role: Role) => ['user', 'admin', 'adminAsUser', 'readToken', 'writeToken'].includes(role);

/** `shared`: what A shared by a link is shown (their email as who shared it, the agent's and thread's names). */
function noLeak(role: Role, what: string, text: string, shared = false) {
  if (mayRead(role)) return;
  for (const secret of s.secrets.filter((x) => !shared || !s.sharedSecrets.includes(x))) {
    assert.not.ok(text.includes(secret), `${what} as ${role} shows A's "${secret}": ${text.slice(0, 300)}`);
  }
}

const routes = suite('security: authorization matrix');

routes.before(async () => {
  const running = await testServer();
  s.parts = running.parts;
  // Desktops that need no Xvnc: enter, screenshot and the tunnel answer as with a real one.
  s.original = s.parts.desktops;
  s.parts.desktops = fakeDesktops();
  const tag = Math.random().toString(36).slice(2, 8);
  s.a = await newUser('matrix-a');
  s.b = await newUser('matrix-b');
  s.admin = await adminToken();
  const apiToken = async (scope: string) =>
    (await call('/api/tokens', { token: s.a.token, body: { name: `Matrix ${scope}`, scope, expires_in_days: 1 } })).body.token;
  [s.readToken, s.writeToken] = [await apiToken('read'), await apiToken('write')];
  const agentName = `Secret agent ${tag}`;
  const threadName = `Secret thread ${tag}`;
  const messageText = `Secret message ${tag}`;
  const agent = (await newAgent(s.a.id, agentName)).id;
  const idleAgent = (await newAgent(s.a.id, `Secret idle ${tag}`)).id;
  s.bAgent = (await newAgent(s.b.id, `B agent ${tag}`)).id;
  const thread = (await call('/api/threads/', { token: s.a.token, body: { agent_id: agent, name: threadName } })).body.id;
  s.bThread = (await call('/api/threads/', { token: s.b.token, body: { agent_id: s.bAgent, name: 'B thread' } })).body.id;
  assert.is((await call(`/api/threads/${thread}/set-user-input`, { token: s.a.token, body: { user_text: messageText } })).status, 200);
  const { db, bus } = s.parts;
  const [trace] = await db.query<{ id: number }>(
    `INSERT INTO llm_traces (owner_id, agent_id, thread_id, thread_name, model, estimated_cost) VALUES ($1, $2, $3, $4, 'matrix-model', 0.01) RETURNING id`,
    [s.a.id, agent, thread, threadName]);
  const report = await createReport(db, { ownerId: s.a.id, agentId: agent, threadId: thread, title: `Secret report ${tag}`, description: 'd' });
  await addEntries(db, report, [{ title: `Secret entry ${tag}`, description: 'd', completion_rate: 0.5 }]);
  const [entry] = await db.query<{ id: number }>('SELECT id FROM report_entries WHERE report_id = $1', [report]);
  const freshDraft = async () => (await draftOutbound(db, bus, {
    threadId: thread, agentId: agent, from: 'a@localhost', to: 'x@example.test', subject: 's', text: 't', mailDomain: 'localhost',
  })).id;
  await s.parts.desktops.acquire(agent);
  // A's upload, and a file A's desktop wrote (GET /agents/:id/files/…).
  const form = new FormData();
  form.append('file', new Blob(['matrix upload']), 'matrix-upload.txt');
  await call(`/api/agents/${agent}/upload_file`, { token: s.a.token, raw: form });
  const [upload] = await db.query<{ id: number }>('SELECT id FROM uploaded_files WHERE agent_id = $1 ORDER BY id DESC LIMIT 1', [agent]);
  const desktopFile = join(s.parts.config.dataDir, 'desktops', `agent-${agent}`, 'Desktop', 'matrix-desktop.txt');
  mkdirSync(dirname(desktopFile), { recursive: true });
  writeFileSync(desktopFile, 'matrix desktop file');
  // A's run, recorded (a one-frame recording on disk) and with its model call as a marker.
  const [run] = await db.query<{ id: number }>(
    `INSERT INTO runs (thread_id, agent_id, owner_id, instance_id, ended_at, outcome, recording_path, recording_done, recording_started_at)
     VALUES ($1, $2, $3, $4, now(), 'done', $5, true, now()) RETURNING id`,
    [thread, agent, s.a.id, s.parts.runner!.id, `agent-${agent}/runs/thread-${thread}/run-matrix.guac.gz`]);
  await db.query('UPDATE llm_traces SET run_id = $1 WHERE id = $2', [run.id, trace.id]);
  const recording = join(filesDir(s.parts.config.dataDir), `agent-${agent}/runs/thread-${thread}/run-matrix.guac.gz`);
  mkdirSync(dirname(recording), { recursive: true });
  writeFileSync(recording, gzipSync('4.size,1.0,1.8,1.8;4.sync,13.1700000000000;'));
  const freshShare = async () => {
    const share = await createShare(db, run.id, s.a.id, 3600);
    return { id: share.id, token: share.token };
  };
  // A's credential, granted, and a fill of it waiting for A's approval (with the screen the agent saw).
  const credentialBody = { name: `Matrix ${tag}`, username: `user-${tag}`, password: `Matrix-pw-${tag}`, totp: VALUE_TOTP, targets: ['https://example.test'] };
  const credential = (await call('/api/credentials', { token: s.a.token, body: credentialBody })).body.id;
  const [approval] = await db.query<{ id: number }>(
    `INSERT INTO credential_approvals (credential_id, agent_id, thread_id, field, target, screenshot, expires_at)
     VALUES ($1, $2, $3, 'password', 'https://example.test', $4, now() + interval '1 hour') RETURNING id`,
    [credential, agent, thread, Buffer.from('\x89PNG matrix')]);
  s.values = [credentialBody.password, VALUE_TOTP.slice(-20)];
  // A's webhook endpoint on a closed port of this machine (its deliveries fail at once) and one delivery of it.
  s.parts.config.webhookAllowPrivate = true;
  const freshWebhook = async () =>
    (await call('/api/webhooks', { token: s.a.token, body: { url: 'http://127.0.0.1:9/matrix', events: ['run.started'] } })).body.id as number;
  const webhook = await freshWebhook();
  const delivery = (await call(`/api/webhooks/${webhook}/test`, { token: s.a.token, body: {} })).body.id as number;
  // A's push device (its push service a closed port of this machine) and help links of A's thread.
  const freshPushDevice = async () => {
    const browser = createECDH('prime256v1');
    browser.generateKeys();
    const keys = { p256dh: browser.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
    const body = { endpoint: `http://127.0.0.1:9/matrix-push/${randomBytes(8).toString('hex')}`, keys, events: ['run.failed'] };
    return (await call('/api/push/subscriptions', { token: s.a.token, body })).body.id as number;
  };
  const pushDevice = await freshPushDevice();
  const freshHelpLink = async () => (await createHelpLink(db, s.parts.secrets!, thread))!.slice('/help/'.length);
  const signIn = await newUser('matrix-signin');
  s.sharedSecrets = [s.a.email, agentName, threadName];
  s.secrets = [s.a.email, agentName, threadName, messageText, `Secret idle ${tag}`, `Secret report ${tag}`, `Secret entry ${tag}`];
  s.fx = {
    agent, idleAgent, thread, trace: trace.id, report, entry: entry.id, draft: await freshDraft(), signInEmail: signIn.email,
    run: run.id, shareToken: (await freshShare()).token, freshShare, credential, approval: approval.id, webhook, delivery, freshWebhook,
    pushDevice, freshPushDevice, freshHelpLink, upload: upload.id,
    freshToken: async () => (await call('/api/tokens', { token: s.a.token, body: { name: 'Doomed', scope: 'read', expires_in_days: 1 } })).body.id,
    freshCredential: async () => (await call('/api/credentials', { token: s.a.token, body: { name: `Doomed ${Math.random()}` } })).body.id,
    freshAgent: async () => (await newAgent(s.a.id, `Secret doomed ${tag}`)).id,
    freshThread: async () => (await call('/api/threads/', { token: s.a.token, body: { agent_id: agent, name: threadName } })).body.id,
    freshDraft,
    freshSchedule: async () => (await createSchedule(db, agent, {
      frequency: 'daily', schedule_time: '09:30', weekdays: null, week_interval: null, day_of_month: null, interval: null,
      message: 'Matrix schedule',
    })).id,
    uniqueEmail: () => uniqueEmail('matrix-signup'),
  };
});

routes.after(() => {
  s.parts.desktops = s.original;
});

routes('every route in the route table has a matrix entry, and every entry a route', () => {
  // WebSocket routes (api.ws) are in the same table, listed with the method WS.
  const table = createApp(s.parts).routes().map((r) => `${r.method} ${r.path}`);
  const missing = table.filter((k) => !(k in MATRIX) && !SOCKET_MATRIX_KEYS.includes(k));
  const stale = [...Object.keys(MATRIX), ...SOCKET_MATRIX_KEYS].filter((k) => !table.includes(k));
  assert.equal(missing, [], `routes without an authorization entry: ${missing.join(', ')}`);
  assert.equal(stale, [], `matrix entries for routes that no longer exist: ${stale.join(', ')}`);
});

for (const [key, entry] of Object.entries(MATRIX)) {
  routes(`${key}: ${entry.kind}`, async () => {
    const method = key.split(' ')[0];
    for (const role of ROLES) {
      const c = await entry.call(s.fx);
      const { token, impersonate } = auth(role);
      const raw = c.raw?.();
      const headers: Record<string, string> = { ...c.headers, ...raw?.headers, ...(impersonate ? { 'X-Impersonate-User-Id': String(impersonate) } : {}) };
      const res = await call(`/api${c.path}`, { method, token, headers, body: c.body, raw: raw?.body });
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      const want = expected(entry, role, method);
      assert.is(res.status, want, `${key} as ${role}: ${res.status} ${text.slice(0, 300)}`);
      if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json')) {
        assert.ok(res.body?.detail, `${key} as ${role}: an error without {detail}`);
      }
      noLeak(role, key, text, entry.shared);
      for (const value of s.values) assert.not.ok(text.includes(value), `${key} as ${role} shows a credential's value`);
      if (c.survives && res.status >= 400) {
        assert.is((await call(`/api${c.survives}`, { token: s.a.token })).status, 200, `${key} refused as ${role} still removed it`);
      }
    }
  });
}

// --- sockets

const feedUrl = (kind: 'messages' | 'actions', role: Role) => {
  const { token, impersonate } = auth(role);
  const q = new URLSearchParams({ ...(token ? { token } : {}), ...(impersonate ? { impersonate: String(impersonate) } : {}) });
  return `/api/${kind}/agent/${s.fx.agent}/ws?${q}`;
};
const REFUSED: Partial<Record<Role, number>> = { anonymous: 4401, other: 4404, userImpersonating: 4403 };

for (const kind of ['messages', 'actions'] as const) {
  routes(`WS /${kind}/agent/:id/ws: A's feed reaches A and admins only`, async () => {
    const sockets = await Promise.all(ROLES.map(async (role) => ({ role, socket: await openSocket(feedUrl(kind, role)) })));
    for (const { role, socket } of sockets) {
      if (!REFUSED[role]) continue;
      assert.is((await socket.closedWith())?.code, REFUSED[role], `${kind} feed as ${role}`);
    }
    // What A's feed carries now reaches every socket that was let in.
    const marker = `${kind} marker ${Date.now()}`;
    if (kind === 'messages') {
      assert.is((await call(`/api/threads/${s.fx.thread}/set-user-input`, { token: s.a.token, body: { user_text: marker } })).status, 200);
    } else {
      s.parts.bus.publish(TOPICS.agentActions(s.fx.agent), { kind: marker, x: 0, y: 0, source: 'agent' });
    }
    for (const { role, socket } of sockets) {
      if (REFUSED[role]) {
        assert.equal(socket.frames, [], `${kind} feed as ${role} got frames`);
        continue;
      }
      await socket.next((f) => JSON.stringify(f).includes(marker));
      socket.ws.close();
    }
  });
}

routes('WS /realtime/client/hubs/:hub: only a hub token for that thread joins its group', async () => {
  const hub = (url: string) => openSocket(url, PUBSUB_PROTOCOL);
  const { url: base } = await testServer();
  const hubBase = `${base.replace('http', 'ws')}/api/realtime/client/hubs/thread_hub`;
  const join = async (socket: Awaited<ReturnType<typeof hub>>, group: string, ackId: number) => {
    socket.ws.send(JSON.stringify({ type: 'joinGroup', group, ackId }));
    return socket.next((f) => f.type === 'ack' && f.ackId === ackId);
  };
  // No token, or an API access token (another audience): refused before anything else.
  assert.is((await (await hub(hubBase)).closedWith())?.code, 4401);
  assert.is((await (await hub(`${hubBase}?access_token=${s.a.token}`)).closedWith())?.code, 4401);
  // A and the admins (as themselves or as A) get a token for A's thread and join its group.
  for (const role of ['user', 'admin', 'adminAsUser'] as Role[]) {
    const { token, impersonate } = auth(role);
    const headers: Record<string, string> = impersonate ? { 'X-Impersonate-User-Id': String(impersonate) } : {};
    const n = await call('/api/realtime/negotiate', { token, headers, body: { thread_id: s.fx.thread } });
    assert.is(n.status, 200, role);
    const socket = await hub(n.body.url);
    assert.ok((await join(socket, n.body.group, 1)).success, `${role} joins A's thread group`);
    socket.ws.close();
  }
  // B's token for B's own thread does not open A's thread group.
  const nb = await call('/api/realtime/negotiate', { token: s.b.token, body: { thread_id: s.bThread } });
  const socket = await hub(nb.body.url);
  const ack = await join(socket, `thread:${s.fx.thread}`, 1);
  assert.is(ack.success, false);
  s.parts.bus.publish(TOPICS.threadSteps(s.fx.thread), { secret: s.secrets[2] });
  assert.ok((await join(socket, nb.body.group, 2)).success);
  assert.not.ok(JSON.stringify(socket.frames).includes(s.secrets[2]), 'nothing of A\'s thread reached B');
  socket.ws.close();
});

routes('WS /desktop/tunnel/:ticket: only a ticket from entering opens it, once', async () => {
  const { url } = await testServer();
  const tunnel = (path: string) => new Promise<{ code: number | null; frames: number }>((resolve, reject) => {
    const ws = new WebSocket(url.replace('http', 'ws') + path, 'guacamole');
    let frames = 0;
    ws.on('message', () => {
      if (++frames === 1) ws.close();
    });
    ws.on('close', (code) => resolve({ code, frames }));
    ws.on('error', reject);
  });
  assert.is((await tunnel('/api/desktop/tunnel/made-up-ticket-0123456789')).code, 4403);
  for (const role of ROLES) {
    const { token, impersonate } = auth(role);
    const headers: Record<string, string> = impersonate ? { 'X-Impersonate-User-Id': String(impersonate) } : {};
    const enter = await call('/api/agents/enter', { token, headers, body: { agent_id: s.fx.agent } });
    if (!mayRead(role)) {
      assert.is(enter.status, REFUSED[role] === 4404 ? 404 : REFUSED[role]! - 4000, role);
      continue;
    }
    // Entering is a POST: a read token may not (it could take control of the desktop).
    if (role === 'readToken') {
      assert.is(enter.status, 403, role);
      continue;
    }
    const first = await tunnel(enter.body.guacamole_tunnel_url);
    assert.ok(first.frames > 0, `${role}: the tunnel served the desktop`);
    assert.is((await tunnel(enter.body.guacamole_tunnel_url)).code, 4403, `${role}: a ticket opens one tunnel only`);
  }
});

routes.run();
