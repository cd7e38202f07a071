// Ctrl+C at the terminal of `npm start` (a SIGINT to its whole process group) stops the server as one: the desktops'
// programs are in groups of their own, so the signal reaches the server alone, which stops its desktops in order;
// nothing logs that it "exited (SIGINT)" or "crashed", and the server exits 0. A desktop's programs end as at a
// logout, before their display: its browser does not ask to restore its pages at the next start (issue 42).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary } from '../../server/desktop/host.ts';
import { removeDataDir, testXvnc } from './desktop-helpers.ts';
import { startMain } from './main-process.ts';

const ADMIN = { email: 'admin@stop.test', password: 'correct horse battery' };
const BASE = String(8_000_000 + (process.pid % 900) * 1000);

test('Ctrl+C with a desktop running: one orderly stop, no program dying of the signal', async (context) => {
  const server = startMain({
    AGENT_UID_BASE: BASE, DESKTOP_PROVIDER: 'xvnc', DESKTOP_APPS: 'terminal', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
  }, { group: true });
  try {
    const url = await server.listening;
    const call = async (path: string, token: string | null, body: object) => {
      const res = await fetch(url + path, {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    const { token } = (await call('/api/auth/sign-in', null, ADMIN)).body;
    const status = await (await fetch(`${url}/api/desktops/status`, { headers: { Authorization: `Bearer ${token}` } })).json();
    if (!status.available && !process.env.CI) return void console.log(`  (skipped: desktops are off here: ${status.reason})`);
    assert.ok(status.available, status.reason);
    const agent = (await call('/api/agents/', token, { name: 'Stopped cleanly' })).body;
    assert.is((await call('/api/agents/enter', token, { agent_id: agent.id })).status, 200, 'the desktop started');
    process.kill(-server.child.pid!, 'SIGINT'); // what the terminal does
    assert.is(await server.exited, 0, server.output());
    assert.not.match(server.output(), /exited \(SIG|crashed/);
    assert.match(server.output(), /SIGINT: shutting down/);
  } finally {
    await server.remove();
  }
});

test('a stopped desktop\'s browser ends as at a logout: its profile does not say that it crashed', async () => {
  const missing = ['Xvnc', 'chromium'].filter((b) => !findBinary(b, process.env.PATH ?? ''));
  if (missing.length && !process.env.CI) return void console.log(`  (skipped: ${missing.join(', ')} not installed)`);
  assert.equal(missing, [], 'CI installs the desktop');
  const dir = mkdtempSync(join(tmpdir(), 'aw-clean-stop-'));
  const provider = testXvnc({ dataDir: dir, log: { info: () => {}, error: () => {} }, apps: ['browser'], displayBase: 690, sound: false });
  const agentId = 9107; // a uid no other test's desktop has
  try {
    const desktop = await provider.start(agentId);
    // Chromium marks its profile "Crashed" while it runs (written within ~10 s of its start); a clean end rewrites it.
    const prefs = join(provider.homeOf(agentId), '.config/chromium/Default/Preferences');
    const exitType = () => (existsSync(prefs) ? JSON.parse(readFileSync(prefs, 'utf8')).profile?.exit_type : undefined);
    const deadline = Date.now() + 60_000;
    while (exitType() !== 'Crashed') {
      assert.ok(Date.now() < deadline, `the browser wrote no profile: ${exitType()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await desktop.stop();
    // "Normal": the stop closes the browser over DevTools first (so its cookies are on disk for the home's checkpoint);
    // "SessionEnded" is a SIGTERM's, should that not answer. Either asks for no restore; a SIGKILL leaves "Crashed".
    assert.ok(['Normal', 'SessionEnded'].includes(exitType()), `the profile says ${exitType()}`);
  } finally {
    removeDataDir(dir);
  }
});

test.run();
