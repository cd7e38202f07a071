// Homes that follow the desktop across instances (issue 50), on PostgreSQL with two real server processes sharing
// the database and one store folder (A's DATA_DIR/files/homes, which B's links to: the stand-in for a shared
// bucket). The desktop starts on A; the agent signs in to a page served on its desktop, which sets a cookie in its
// Chromium a few seconds before the desktop falls asleep (Chromium writes cookies up to 30 s late: the sleep must
// make it write them), which checkpoints its home. B, which has no copy of the home, lists and serves the desktop's
// files from A's home through signed calls to A while A holds the desktop; then A is killed with -9 (it checkpoints
// nothing then), and the desktop B starts restores the home A last checkpointed before any of its programs runs:
// the file is there, and B's Chromium sends the cookie to the page.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { agentTurn, api, fleetUnavailable, homeFile, ok, STALE_SECONDS, startFleet, until, view, type Fleet } from './fleet-helpers.ts';
import { ADMIN } from './helpers.ts';

const failover = suite('home failover');
const unavailable = await fleetUnavailable();
const test = unavailable ? failover.skip : failover;
const s = {} as { f?: Fleet; token: string; agent: number };
const COOKIE = 'aw_signed_in=kept-across-failover';

/**
 * A page server the agent runs on its desktop (python3 ~/Desktop/cookie_page.py PORT NAME): /set answers with a
 * persistent cookie and a picture the browser fetches next (with the cookie, once it holds it); every request is
 * noted in ~/pages-NAME.log with the Cookie header it carried.
 */
const PAGE_SERVER = `import http.server, os, sys
port, name = int(sys.argv[1]), sys.argv[2]
log = os.path.expanduser('~/pages-%s.log' % name)
def note(line):
    with open(log, 'a') as f:
        f.write(line + '\\n')
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        note('%s %s' % (self.path, self.headers.get('Cookie', '-')))
        self.send_response(200)
        self.send_header('Content-Type', 'text/html')
        if self.path == '/set':
            self.send_header('Set-Cookie', '${COOKIE}; Max-Age=86400; Path=/')
        self.end_headers()
        self.wfile.write(b'<p>signed in</p><img src="/ack">' if self.path == '/set' else b'<p>hello</p>')
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(('127.0.0.1', port), Page)
note('listening')
server.serve_forever()
`;

failover.before(async () => {
  if (unavailable) return void console.log(`\n    SKIPPED: ${unavailable}; homes across instances were not tested.`);
  // B starts once A's desktop slept: the agent's runs before are A's (one B ran would hold A's desktop through its
  // relay, awake, for minutes).
  s.f = await startFleet({ DESKTOP_IDLE_SLEEP_S: '1', DESKTOP_APPS: 'terminal,browser' }, { b: false });
  s.token = (await ok(s.f.a.url, '/api/auth/sign-in', { body: ADMIN })).token;
  s.agent = (await ok(s.f.a.url, '/api/agents/', { token: s.token, body: { name: 'Home failover agent' } })).id;
});

failover.after(async () => {
  await s.f?.close();
});

/** Drops a file on the agent's desktop through `base`. */
async function drop(base: string, name: string, text: string) {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  const res = await fetch(`${base}/api/agents/${s.agent}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}` }, body: form });
  assert.is(res.status, 200, await res.text());
}

/** The requests the page server named `name` saw on the instance's copy of the home, once it has seen `path`. */
const pageLog = (i: Fleet['a'], name: string, path: string) => () => {
  const log = homeFile(i, s.agent, `pages-${name}.log`);
  return log?.split('\n').some((line) => line.startsWith(`${path} `) || line === path) ? log : null;
};

test('kill -9 of A: the desktop starts on B with the home A checkpointed when it fell asleep, and its browser\'s cookie', async () => {
  const { a, db } = s.f!;
  // A file the user drops lands on the desktop's ~/Desktop (written there as the agent), and the page server too.
  await drop(a.url, 'kept.txt', 'written before the failover');
  await drop(a.url, 'cookie_page.py', PAGE_SERVER);
  // The desktop starts on A for a viewer, who stays while the agent signs in (a watched desktop does not sleep).
  const watching = await view(a.url, s.token, s.agent);
  await until(() => homeFile(a, s.agent, 'Desktop/kept.txt'), 20_000, 'the file on the desktop on A');
  const thread = await agentTurn(a.url, s.token, s.agent, null, "open a terminal, type '/usr/bin/python3 ~/Desktop/cookie_page.py 8123 a &' and press enter");
  await until(pageLog(a, 'a', 'listening'), 30_000, 'the page server on A');
  await agentTurn(a.url, s.token, s.agent, thread, 'go to http://127.0.0.1:8123/set');
  // The picture of the page was fetched with the cookie: A's Chromium holds it.
  const onA = await until(pageLog(a, 'a', '/ack'), 30_000, 'the page\'s picture fetched on A');
  assert.ok(onA.includes(`/ack ${COOKIE}`), onA);
  const before = (await db.query('SELECT generation FROM home_checkpoints WHERE agent_id = $1', [s.agent]))[0]?.generation ?? 0;

  // Left alone, it falls asleep within seconds of the cookie (Chromium's own commit would come 30 s later), and its
  // home is checkpointed.
  watching.viewer.close();
  const row = await until(async () => (await db.query(
    'SELECT generation, home_bytes::int AS home_bytes FROM home_checkpoints WHERE agent_id = $1 AND generation > $2', [s.agent, before]))[0], 30_000,
  'a checkpoint of the sleeping desktop\'s home', 200);
  assert.ok(row.home_bytes >= 'written before the failover'.length);

  // B has no copy of the home: it lists and serves the desktop's files (asking A, which holds the desktop).
  const b = await s.f!.startB();
  // One store for both, as a bucket would be: B's homes folder is A's (B stores nothing before it runs the desktop).
  mkdirSync(join(b.dataDir, 'files'), { recursive: true });
  symlinkSync(join(a.dataDir, 'files', 'homes'), join(b.dataDir, 'files', 'homes'));
  const files = (await ok(b.url, `/api/agents/${s.agent}/files`, { token: s.token })) as any[];
  const kept = files.find((f) => f.source === 'desktop' && f.name === 'kept.txt');
  assert.ok(kept, JSON.stringify(files));
  const fromB = await fetch(b.url + kept.url, { headers: { Authorization: `Bearer ${s.token}` } });
  assert.is(await fromB.text(), 'written before the failover');

  // While A holds the desktop, B asks A for its home's files: one A's home got after the checkpoint is listed and served.
  const live = join(a.dataDir, 'desktops', `agent-${s.agent}`, 'Downloads', 'live-on-a.txt');
  mkdirSync(join(live, '..'), { recursive: true });
  writeFileSync(live, 'only in the home on A');
  execFileSync('chown', ['-R', `${a.uidBase + s.agent}:${a.uidBase + s.agent}`, join(live, '..')]);
  const listed = (await ok(b.url, `/api/agents/${s.agent}/files`, { token: s.token })) as any[];
  const liveOnA = listed.find((f) => f.name === 'live-on-a.txt');
  assert.ok(liveOnA, JSON.stringify(listed));
  const throughA = await fetch(b.url + liveOnA.url, { headers: { Authorization: `Bearer ${s.token}` } });
  assert.is(throughA.status, 200);
  assert.is(throughA.headers.get('content-disposition'), `attachment; filename="live-on-a.txt"; filename*=UTF-8''live-on-a.txt`);
  assert.is(await throughA.text(), 'only in the home on A');

  const [newest] = await db.query<{ generation: number }>('SELECT generation FROM home_checkpoints WHERE agent_id = $1', [s.agent]);
  a.child.kill('SIGKILL');
  await until(() => a.child.exitCode !== null || a.child.signalCode !== null, 10_000, 'A to die');
  const onB = await until(() => view(b.url, s.token, s.agent).catch(() => null), (STALE_SECONDS + 30) * 1000, 'the desktop through B', 500);
  const [lease] = await db.query<{ pid: number }>('SELECT pid FROM desktop_leases WHERE agent_id = $1', [s.agent]);
  assert.is(lease.pid, b.child.pid, 'B runs the desktop now');
  assert.is(homeFile(b, s.agent, 'Desktop/kept.txt'), 'written before the failover', 'the home A checkpointed, on B');
  assert.is(readFileSync(join(b.dataDir, 'desktops', `agent-${s.agent}.generation`), 'utf8'), String(newest.generation));
  // And B serves it from its own copy now.
  const again = await api(b.url, `/api/agents/${s.agent}/files`, { token: s.token });
  assert.ok(again.body.some((f: any) => f.source === 'desktop' && f.name === 'kept.txt'));

  // B's Chromium, started on the restored profile, sends the cookie A's got: the agent is still signed in.
  await agentTurn(b.url, s.token, s.agent, thread, "open a terminal, type '/usr/bin/python3 ~/Desktop/cookie_page.py 8123 b &' and press enter");
  await until(pageLog(b, 'b', 'listening'), 30_000, 'the page server on B');
  await agentTurn(b.url, s.token, s.agent, thread, 'go to http://127.0.0.1:8123/read');
  const seen = await until(pageLog(b, 'b', '/read'), 30_000, 'the page read on B');
  assert.ok(seen.includes(`/read ${COOKIE}`), `B's browser sent the cookie A's got: ${seen}`);
  assert.not.ok(seen.includes('/set'), `B's browser did not set it again: ${seen}`);
  onB.viewer.close();
});

failover.run();
