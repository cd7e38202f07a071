// The agent's fill_credential (issue 45) through the real runner and database, on a fake desktop whose browser
// answers where the focus is (the real one is the e2e's): what is typed, and only then; refusals that send no
// keys; "ask me before each use" with its card, denial, approval and expiry; TOTP codes made at the fill; a fill
// into a window that is "not verified"; a focus that moves while typing; and no value in steps, traces or audit.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FocusedWindow } from '../../server/desktop/index.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { parseTotp, totpCode } from '../../server/vault/totp.ts';
import { Vault } from '../../server/vault/index.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { FakeDesktop, scripted, swapRunner, text, toolUse, waitFor } from './runner-helpers.ts';

const test = suite('vault fill');
const PASSWORD = `Pw!${randomBytes(6).toString('hex')}`;
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const TAB = 0xff09;
const RETURN = 0xff0d;
type Field = { origin: string; element: 'password' | 'text' | 'frame' | 'other' };

/** A desktop whose browser says which field has the focus; Tab moves it to the next field of `fields`. */
class BrowserDesktop extends FakeDesktop {
  fields: Field[] = [{ origin: 'https://shop.example.com', element: 'text' }, { origin: 'https://shop.example.com', element: 'password' }];
  at = 0;
  page = true;
  window: FocusedWindow | null = null;
  keys: number[] = [];
  /** Moves the focus away on the first key typed (a page script stealing the keys). */
  steal = false;
  private moves = 0;
  override key(keysym: number, down: boolean): void {
    if (!down) return;
    this.keys.push(keysym);
    if (keysym === TAB) (this.at = Math.min(this.at + 1, this.fields.length - 1), this.moves++);
  }
  override async typeText(text: string): Promise<void> {
    this.typed += text;
    if (this.steal) this.moves++;
  }
  focusedField = async () => {
    if (!this.page) return null;
    const field = this.fields[this.at];
    const moves = this.moves;
    return { ...field, stillFocused: async () => this.moves === moves, release: async () => {} };
  };
  focusedWindow = async () => this.window;
}

let runner: (Runner & { desktops: any }) | null = null;

async function fillRun(
  calls: Record<string, unknown>[], setup: (d: BrowserDesktop) => void, grant: { ask?: boolean; vault?: Vault; totp?: string } = {},
) {
  const server = await testServer();
  if (runner) await runner.stop();
  const provider = scripted([...calls.map((input, i) => [toolUse(`f${i}`, 'fill_credential', input)]), [text('Done.')]]);
  runner = await swapRunner({ provider, vault: () => grant.vault ?? server.parts.vault! });
  const user = await newUser('fill');
  const agent = await newAgent(user.id);
  const desktop = new BrowserDesktop(agent.id);
  setup(desktop);
  runner.desktops.all.set(agent.id, desktop);
  const made = await call('/api/credentials', {
    token: user.token,
    body: {
      name: 'Shop', username: 'ann@example.com', password: PASSWORD, totp: grant.totp ?? SECRET, targets: ['https://*.example.com', 'window:xterm:*Sign in*'],
    },
  });
  await call(`/api/credentials/${made.body.id}/grants`, { method: 'PUT', token: user.token, body: { agent_ids: [agent.id], ask_each_time: !!grant.ask } });
  const thread = await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'sign in' } });
  await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run' } });
  const ended = () => waitFor(async () => {
    const r = await call(`/api/threads/${thread.body.id}/runs`, { token: user.token });
    return r.body.length && r.body[0].ended_at ? r.body : null;
  }, 20_000, 'the run to end');
  const results = async () => {
    const steps = (await call(`/api/threads/${thread.body.id}/steps`, { token: user.token })).body;
    return (steps.steps ?? steps).flatMap((s: any) => s.tool_calls ?? []).filter((c: any) => c.name === 'fill_credential');
  };
  const fills = async () => (await call(`/api/credentials/${made.body.id}/fills`, { token: user.token })).body;
  return { server, user, agent, desktop, provider, threadId: thread.body.id, credentialId: made.body.id, ended, results, fills };
}

test('sign_in types the username, Tab, the password and Enter into the checked fields; the model sees names, never values', async () => {
  const run = await fillRun([{ name: 'Shop', field: 'sign_in' }], () => {});
  await run.ended();
  assert.is(run.desktop.typed, `ann@example.com${PASSWORD}`);
  assert.equal(run.desktop.keys, [TAB, RETURN]);
  const [result] = await run.results();
  assert.match(JSON.stringify(result), /Typed the username, Tab, the password and Enter of “Shop” into https:\/\/\*\.example\.com/);
  const offered = run.provider.requests[0].tools.find((t) => t.name === 'fill_credential')!;
  assert.match(offered.description, /"Shop": fields username, password, totp, sign_in; may be typed into https:\/\/\*\.example\.com/);
  assert.equal((await run.fills()).map((f: any) => [f.field, f.outcome, f.agent_id, f.thread_id]), [['sign_in', 'filled', run.agent.id, run.threadId]]);
  // No value in any table of the database, each row as text (the credentials' own rows hold ciphertext only).
  const db = run.server.parts.db;
  const tables = await db.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`);
  assert.ok(tables.length > 30);
  for (const { name } of tables) {
    const rows = await db.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
    for (const { row } of rows) for (const value of [PASSWORD, SECRET]) assert.not.ok(row.includes(value), `${name} holds a value`);
  }
  // And in particular where the run wrote: steps, messages, traces, audit.
  for (const sql of ['SELECT * FROM thread_steps WHERE thread_id = $1', 'SELECT * FROM chat_messages WHERE thread_id = $1',
    'SELECT * FROM llm_traces WHERE thread_id = $1', `SELECT * FROM audit_events WHERE detail->>'thread_id' = $1::text`]) {
    const rows = await db.query(sql, [run.threadId]);
    assert.not.ok(JSON.stringify(rows).includes(PASSWORD), sql);
    if (sql.includes('audit')) assert.ok(rows.some((r: any) => r.action === 'credential.fill'));
  }
});

test('refused, no key sent: a page outside the targets, a text field for the password, a frame, an unknown credential, a field it lacks', async () => {
  const cases: [Record<string, unknown>, (d: BrowserDesktop) => void, RegExp][] = [
    [{ name: 'Shop', field: 'sign_in' }, (d) => (d.fields[0].origin = 'https://evil.test'), /the focused page \(https:\/\/evil\.test\) is not a target/],
    [{ name: 'Shop', field: 'password' }, () => {}, /the focused field is not a password field/],
    [{ name: 'Shop', field: 'username' }, (d) => (d.fields[0].element = 'frame'), /inside a frame/],
    [{ name: 'Bank', field: 'password' }, () => {}, /no credential named “Bank” is granted to you/],
    [{ name: 'Shop', field: 'totp' }, (d) => (d.at = 1), /the credential has no totp/],
  ];
  for (const [input, setup, reason] of cases) {
    const run = await fillRun([input], setup, { totp: input.field === 'totp' ? '' : undefined });
    await run.ended();
    assert.is(run.desktop.typed, '', JSON.stringify(input));
    assert.equal(run.desktop.keys, []);
    const [result] = await run.results();
    assert.match(JSON.stringify(result), reason);
    const fills = await run.fills();
    if (input.name === 'Shop') assert.match(fills[0].outcome, /^refused: /);
    else assert.equal(fills, []);
  }
});

test('a TOTP code is made at the moment of the fill', async () => {
  const run = await fillRun([{ name: 'Shop', field: 'totp' }], (d) => (d.at = 1));
  await run.ended();
  const spec = parseTotp(SECRET)!;
  const now = Date.now();
  assert.ok([totpCode(spec, now), totpCode(spec, now - 30_000)].includes(run.desktop.typed), run.desktop.typed);
});

test('outside the browser: a window matching a window target is filled, marked "field not verified"', async () => {
  const run = await fillRun([{ name: 'Shop', field: 'password' }], (d) => {
    d.page = false;
    d.window = { id: '0x1', instance: 'xterm', className: 'XTerm', title: 'Sign in to the VPN' };
  });
  await run.ended();
  assert.is(run.desktop.typed, PASSWORD);
  assert.is((await run.fills())[0].outcome, 'filled (field not verified)');
  const other = await fillRun([{ name: 'Shop', field: 'password' }], (d) => {
    d.page = false;
    d.window = { id: '0x2', instance: 'gedit', className: 'Gedit', title: 'Sign in' };
  });
  await other.ended();
  assert.is(other.desktop.typed, '');
});

test('the focus moves while typing: recorded as a possible leak, the owner told in the thread, the password not sent', async () => {
  const run = await fillRun([{ name: 'Shop', field: 'sign_in' }], (d) => (d.steal = true));
  await run.ended();
  assert.is(run.desktop.typed, 'ann@example.com', 'the password was not typed after the username went astray');
  assert.is((await run.fills())[0].outcome, 'possible leak: the focus moved');
  const messages = await run.server.parts.db.query<{ role: string; text: string }>(
    `SELECT role, assistant_data->>'text' AS text FROM chat_messages WHERE thread_id = $1`, [run.threadId]);
  assert.ok(messages.some((m) => m.role === 'warning' && /Possible leak/.test(m.text)));
});

test('ask me before each use: the card is on the thread; denial sends no keys, approval types', async () => {
  for (const approve of [false, true]) {
    const run = await fillRun([{ name: 'Shop', field: 'sign_in' }], () => {}, { ask: true });
    const card = await waitFor(async () => {
      const agent = (await call(`/api/agents/${run.agent.id}`, { token: run.user.token })).body;
      return agent.threads.find((t: any) => t.id === run.threadId)?.credential_approval;
    }, 10_000, 'the approval card');
    assert.equal([card.credential, card.field, card.target], ['Shop', 'sign_in', 'https://*.example.com']);
    const listed = (await call('/api/agents/', { token: run.user.token })).body;
    assert.is((listed.agents ?? listed).find((a: any) => a.id === run.agent.id).number_threads_needing_help, 1, 'the agents list says it waits for a person');
    const shot = await call(`/api/credential_approvals/${card.id}/screenshot`, { token: run.user.token });
    assert.is(shot.status, 200);
    const stranger = await newUser('fill-stranger');
    assert.is((await call(`/api/credential_approvals/${card.id}`, { token: stranger.token, body: { approve: true } })).status, 404);
    assert.is(run.desktop.typed, '', 'nothing is typed while the owner looks');
    const answer = await call(`/api/credential_approvals/${card.id}`, { token: run.user.token, body: { approve } });
    assert.equal(answer.body, { state: approve ? 'approved' : 'denied' });
    await run.ended();
    assert.is(run.desktop.typed, approve ? `ann@example.com${PASSWORD}` : '');
    assert.is((await run.fills())[0].outcome, approve ? 'filled' : 'denied');
    assert.is((await call(`/api/credential_approvals/${card.id}`, { token: run.user.token, body: { approve: true } })).status, 409);
  }
});

test('one approval covers the fields of one sign-in: the username, then the password, asked once', async () => {
  const run = await fillRun([{ name: 'Shop', field: 'username' }, { name: 'Shop', field: 'password' }], (d) => {
    // As after the agent's Tab: the password field has the focus once the username is in.
    const type = d.typeText.bind(d);
    d.typeText = async (text) => {
      await type(text);
      d.at = 1;
    };
  }, { ask: true });
  const card = await waitFor(async () => (await call(`/api/agents/${run.agent.id}`, { token: run.user.token })).body
    .threads.find((t: any) => t.id === run.threadId)?.credential_approval, 10_000, 'the approval card');
  await call(`/api/credential_approvals/${card.id}`, { token: run.user.token, body: { approve: true } });
  await run.ended();
  assert.is(run.desktop.typed, `ann@example.com${PASSWORD}`);
  const [{ n }] = await run.server.parts.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM credential_approvals WHERE thread_id = $1', [run.threadId]);
  assert.is(n, 1);
  assert.equal((await run.fills()).map((f: any) => f.outcome), ['filled', 'filled']);
});

test('no answer in time counts as denied', async () => {
  const server = await testServer();
  const quick = await Vault.open(server.parts.config.vault, server.parts.config.dataDir, {
    db: server.parts.db, bus: server.parts.bus, tell: async () => {}, approvalMs: 300,
  }, () => {});
  const run = await fillRun([{ name: 'Shop', field: 'sign_in' }], () => {}, { ask: true, vault: quick });
  await run.ended();
  assert.is(run.desktop.typed, '');
  assert.is((await run.fills())[0].outcome, 'denied: no answer within 10 minutes');
  const [result] = await run.results();
  assert.match(JSON.stringify(result), /did not answer within 10 minutes/);
});

test.after(async () => {
  await runner?.stop();
});

test.run();
