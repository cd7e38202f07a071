// The credential vault end to end (issue 45), on a server of its own whose desktops run Chromium (the shared one's
// run only a terminal): a sign-in page served inside the agent's desktop (username, password, TOTP code; it
// answers "signed in as …" only for the right values, and knows only the password's hash and the codes) is signed
// into by the offline model with fill_credential. A page on another origin and a text field taking the password are
// refused; with "ask me before each use" the card shows in the thread, denial sends nothing and approval signs in.
// Then the data directory, the server's log and the traces are searched for the password and the TOTP secret.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { ADMIN, newUserWithAgent, screenshotBothThemes } from './fixtures.ts';
import { parseTotp, totpCode } from '../server/vault/totp.ts';

const PORT = Number(process.env.E2E_PORT || 8788) + 7;
const DATA_DIR = mkdtempSync(join(tmpdir(), 'aw-e2e-vault-'));
const PASSWORD = `Pw-${randomBytes(9).toString('base64url')}`;
const SECRET = Array.from(randomBytes(20), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32]).join('');
const TOTP = `otpauth://totp/Shop:ann?secret=${SECRET}&issuer=Shop`;
const SITE = 'http://127.0.0.1:8123';

test.use({ baseURL: `http://localhost:${PORT}` });

let server: ChildProcess;
let log = '';

test.beforeAll(async () => {
  server = spawn(process.execPath, ['--enable-source-maps', `${process.env.BUILD_DIR || 'dist'}/server.mjs`], {
    env: {
      ...process.env, PORT: String(PORT), DATA_DIR, STATIC_DIR: `${process.env.BUILD_DIR || 'dist'}/public`, DATABASE_URL: '',
      ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SMTP_PORT: String(PORT + 100), MAIL_DOMAIN: 'vault.e2e.test',
      AGENT_UID_BASE: String(4_000_000 + (PORT % 1000) * 1000), LOG_REQUESTS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  await expect.poll(async () => (await fetch(`http://localhost:${PORT}/api/health`).catch(() => null))?.status ?? 0, { timeout: 60_000 }).toBe(200);
});

test.afterAll(async () => {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

/** The sign-in page's server, run on the desktop: the password's SHA-256 and the codes of the next 20 minutes, no secret. */
function signInServer(): string {
  const spec = parseTotp(TOTP)!;
  const codes = Array.from({ length: 42 }, (_, i) => totpCode(spec, Date.now() + (i - 2) * 30_000));
  return `import hashlib, http.server, os, sys, urllib.parse
HASH = '${createHash('sha256').update(PASSWORD).digest('hex')}'
CODES = set('${codes.join(',')}'.split(','))
PAGE = b'<!doctype html><title>Sign in</title><form method=post><input name=user autofocus autocomplete=username>' \\
  b'<input type=password name=pass autocomplete=current-password><input name=code autocomplete=one-time-code><button>Sign in</button></form>'
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.reply(PAGE)
    def do_POST(self):
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get('Content-Length', 0))).decode())
        field = lambda name: form.get(name, [''])[0]
        ok = field('user') == 'ann' and hashlib.sha256(field('pass').encode()).hexdigest() == HASH and field('code') in CODES
        text = 'signed in as ann' if ok else 'wrong'
        with open(os.path.expanduser('~/sign-in-result.txt'), 'a') as out:
            out.write(text + '\\n')
        self.reply(('<!doctype html><title>%s</title><p>%s' % (text, text)).encode())
    def reply(self, body):
        self.send_response(200)
        self.send_header('Content-Type', 'text/html')
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Page).serve_forever()
`;
}

type Api = { get: (path: string) => Promise<any>; send: (path: string, body: unknown, method?: string) => Promise<any> };

function api(request: APIRequestContext, token: string): Api {
  const headers = { Authorization: `Bearer ${token}` };
  return {
    get: async (path) => (await request.get(`/api${path}`, { headers })).json(),
    send: async (path, data, method = 'POST') => {
      const res = await request.fetch(`/api${path}`, { method, data, headers });
      expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
      return res.status() === 204 ? null : res.json();
    },
  };
}

test('an agent signs in with a credential it never sees; refusals send nothing; approval asked, denied, given', async ({ page, request }) => {
  test.setTimeout(300_000);
  const status = await (await request.get('/api/desktops/status', {
    headers: { Authorization: `Bearer ${(await (await request.post('/api/auth/sign-in', { data: ADMIN })).json()).token}` },
  })).json();
  test.skip(!status.available && !process.env.CI, `desktops are off on this machine: ${status.reason}`);
  expect(status.available, status.reason).toBe(true);

  const { agent, token } = await newUserWithAgent(page, request, `Vault ${Date.now().toString(36)}`);
  const server = api(request, token);
  const credential = await server.send('/credentials', { name: 'Shop', username: 'ann', password: PASSWORD, totp: TOTP, targets: [SITE], notes: '' });
  await server.send(`/credentials/${credential.id}/grants`, { agent_ids: [agent.id], ask_each_time: false }, 'PUT');
  const upload = await request.post(`/api/agents/${agent.id}/upload_file`, {
    headers: { Authorization: `Bearer ${token}` }, multipart: { file: { name: 'signin.py', mimeType: 'text/x-python', buffer: Buffer.from(signInServer()) } },
  });
  expect(upload.status()).toBe(200);
  const result = join(DATA_DIR, 'desktops', `agent-${agent.id}`, 'sign-in-result.txt');
  const signedIn = () => (existsSync(result) ? readFileSync(result, 'utf8') : '');

  // Each instruction is a turn of one thread; the agent runs until it answers.
  const start = `open a terminal, type '/usr/bin/python3 ~/Desktop/signin.py 8123 &' and press enter`;
  const thread = await server.send(`/threads/${agent.id}/create-new-thread`, { user_text: start });
  await server.send(`/agents/${agent.id}/run-state`, { state: 'run' });
  const turns = async () => (await server.get(`/threads/${thread.id}/steps`)).steps ?? [];
  const answered = async (count: number) => {
    await expect.poll(async () => {
      const t = await server.get(`/threads/${thread.id}`);
      const steps = await turns();
      const last = steps[steps.length - 1];
      return !t.thread_running && t.schedule_sequence === null && steps.filter((s: any) => s.user_text).length === count && !!last?.assistant_text;
    }, { timeout: 90_000 }).toBe(true).catch(async (err) => {
      // What the thread did instead, for the failure's report.
      const steps = await turns();
      console.log(JSON.stringify({ thread: await server.get(`/threads/${thread.id}`), steps: steps.slice(-4) }, null, 1).slice(0, 6000));
      throw err;
    });
    const steps = await turns();
    return steps[steps.length - 1].assistant_text as string;
  };
  // On a surprise, the desktop as it was, for the failure's report.
  const desktopShot = async () => writeFileSync(test.info().outputPath('desktop.png'),
    await (await request.get(`/api/agents/${agent.id}/screenshot`, { headers: { Authorization: `Bearer ${token}` } })).body());
  const say = async (text: string, count: number) => {
    await server.send(`/threads/${thread.id}/set-user-input-and-schedule`, { user_text: text });
    await server.send(`/agents/${agent.id}/run-state`, { state: 'run' });
    const answer = await answered(count);
    if (/I stopped/.test(answer)) await desktopShot();
    return answer;
  };
  await answered(1);

  // Another origin, then the password into the username field: refused, and nothing reaches the page.
  expect(await say('sign in to http://localhost:8123/ with Shop', 2)).toMatch(/the focused page \(http:\/\/localhost:8123\) is not a target/);
  expect(await say(`go to ${SITE}/ and type the password of Shop`, 3)).toMatch(/the focused field is not a password field/);
  expect(signedIn()).toBe('');

  // The sign-in, typed by the server: username, Tab, password, Tab, the code of the moment, Enter.
  expect(await say(`sign in to ${SITE}/ with Shop`, 4)).not.toMatch(/stopped/);
  await expect.poll(signedIn, { timeout: 15_000 }).toBe('signed in as ann\n');
  await desktopShot(); // the page that answered, and no "Save password?" bubble (the desktop's Chromium policy)

  // Outside the browser: a window target (the terminal's class), typed but marked "field not verified".
  const terminal = await server.send('/credentials', { name: 'Terminal', username: 'ann-at-the-prompt', targets: ['window:xterm'] });
  await server.send(`/credentials/${terminal.id}/grants`, { agent_ids: [agent.id], ask_each_time: false }, 'PUT');
  expect(await say('open a terminal, then type the username of Terminal', 5)).not.toMatch(/stopped/);
  expect((await server.get(`/credentials/${terminal.id}/fills`)).map((f: any) => [f.field, f.target, f.outcome]))
    .toEqual([['username', 'window:xterm', 'filled (field not verified)']]);

  // Ask me before each use: the card, denied, then approved.
  await server.send(`/credentials/${credential.id}/grants`, { agent_ids: [agent.id], ask_each_time: true }, 'PUT');
  await page.goto(`/agent/${agent.id}`);
  for (const approve of [false, true]) {
    await server.send(`/threads/${thread.id}/set-user-input-and-schedule`, { user_text: `sign in to ${SITE}/ with Shop` });
    await server.send(`/agents/${agent.id}/run-state`, { state: 'run' });
    const card = page.getByRole('region', { name: 'Approve a sign-in?' });
    await expect(card).toBeVisible({ timeout: 60_000 });
    await expect(card).toContainText('Shop');
    await expect(card).toContainText(SITE);
    await expect(card.locator('img')).toBeVisible();
    if (!approve) await screenshotBothThemes(page, 'vault-approval-card');
    await card.getByRole('button', { name: approve ? 'Approve' : 'Deny' }).click();
    const answer = await answered(approve ? 7 : 6);
    if (!approve) {
      expect(answer).toMatch(/The owner denied this fill/);
      expect(signedIn()).toBe('signed in as ann\n');
    }
  }
  await expect.poll(signedIn, { timeout: 15_000 }).toBe('signed in as ann\nsigned in as ann\n');
  const fills = await server.get(`/credentials/${credential.id}/fills`);
  expect(fills.map((f: any) => `${f.field} ${f.outcome}`).reverse()).toEqual([
    'username refused: the focused page (http://localhost:8123) is not a target of this credential',
    'password refused: the focused field is not a password field',
    'username filled', 'password filled', 'totp filled', 'username denied', 'username filled', 'password filled', 'totp filled',
  ]);

  // The settings screen: dots, never the value; clean under axe in both themes.
  await page.goto('/settings/credentials');
  await expect(page.getByText('Shop', { exact: true })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(PASSWORD);
  await screenshotBothThemes(page, 'vault-credentials');
  expect(await axeFindings(page, 'credentials')).toEqual([]);

  // Nothing leaks: every file of the data directory (the database's among them; the vault keeps ciphertext only),
  // the server's log, and every trace of the thread as the API gives it.
  const { traces } = await server.get(`/llm_traces/thread/${thread.id}?verbose=true&limit=200`);
  const traceText = JSON.stringify(await Promise.all(traces.map((t: any) => server.get(`/llm_traces/${t.id}`))));
  expect(traceText).toContain('fill_credential');
  // The search finds what is there: the page's script, with the password's hash, was uploaded into the directory.
  expect(filesHolding(DATA_DIR, createHash('sha256').update(PASSWORD).digest('hex')).length).toBeGreaterThan(0);
  for (const secret of [PASSWORD, SECRET]) {
    expect(log.includes(secret), 'the server log').toBe(false);
    expect(traceText.includes(secret), 'the traces').toBe(false);
    expect(filesHolding(DATA_DIR, secret)).toEqual([]);
  }
});

/** Every file under `dir` whose bytes hold `needle`: GNU grep, which skips the holes of sparse files (the homes' 4 GB images). */
function filesHolding(dir: string, needle: string): string[] {
  const grep = spawnSync('grep', ['-rlF', '-D', 'skip', '--', needle, dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (grep.status !== 0 && grep.status !== 1) throw new Error(`grep failed: ${grep.stderr}`);
  return grep.stdout.split('\n').filter(Boolean);
}
