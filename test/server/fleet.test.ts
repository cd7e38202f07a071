// Several instances on one PostgreSQL (issue 18): two real server processes with real, contained Xvnc desktops
// serve one desktop per agent between them. A viewer, screenshots, control and the runner reach the desktop
// whichever instance they talk to; the holder killed -9 loses the desktop to the other within the stale window;
// and the internal relay opens for a valid INTERNAL_SECRET signature only.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { keysymsForText } from '../../server/desktop/rfb/keysyms.ts';
import { relayPath, soundPath } from '../../server/desktop/place/internal-call.ts';
import { signedHeaders } from '../../server/desktop/place/signature.ts';
import { diffPixels, type GuacTestClient } from './desktop-helpers.ts';
import { ADMIN } from './helpers.ts';
import {
  api, fleetUnavailable, homeFile, ok, screenshot, SECRET, STALE_SECONDS, startFleet, until, upgradeStatus, view, xvncOf, type Fleet,
} from './fleet-helpers.ts';

const fleet = suite('fleet: two instances, one desktop per agent');
const s = {} as { f: Fleet | null; token: string; agent: number; viewer: GuacTestClient; session: string };
// Where the fleet cannot run (the PGlite pass, no Xvnc), its tests are reported as skipped, not as passed.
const unavailable = await fleetUnavailable();
const test = unavailable ? fleet.skip : fleet;

fleet.before(async () => {
  if (unavailable) {
    console.log(`\n    SKIPPED: ${unavailable}; the fleet was not tested.`);
    return;
  }
  s.f = await startFleet();
  s.token = (await ok(s.f.a.url, '/api/auth/sign-in', { body: ADMIN })).token;
  s.agent = (await ok(s.f.a.url, '/api/agents/', { token: s.token, body: { name: 'Fleet agent' } })).id;
});

fleet.after(async () => {
  s.viewer?.close();
  await s.f?.close();
});

const lease = async () =>
  (await s.f!.db.query<{ instance_id: string; pid: number }>('SELECT instance_id, pid FROM desktop_leases WHERE agent_id = $1', [s.agent]))[0];

const takeovers = (metrics: string) => Number(/^aw_desktop_lease_takeovers_total (\d+)$/m.exec(metrics)?.[1]);

async function handled(client: GuacTestClient, tag: string) {
  client.send('', 'ping', tag);
  await client.until(() => client.log.some((i) => i.opcode === '' && i.args[0] === 'ping' && i.args[1] === tag), 5000, `ping ${tag}`);
}

async function finished(base: string, threadId: number) {
  return until(async () => {
    const t = await ok(base, `/api/threads/${threadId}`, { token: s.token });
    return !t.thread_running && (t.schedule_sequence === null || t.error_message) ? t : null;
  }, 90_000, `thread ${threadId} to finish`, 200);
}

test('live view on B shows what the runner types into the desktop A holds, and one Xvnc runs for the agent', async () => {
  const { a, b } = s.f!;
  // A starts the desktop (its viewer is the first); B's viewer gets it relayed.
  const first = await view(a.url, s.token, s.agent);
  first.viewer.close();
  assert.is((await lease()).pid, a.child.pid, 'A holds the lease');
  const { viewer, sessionId } = await view(b.url, s.token, s.agent);
  Object.assign(s, { viewer, session: sessionId });
  const before = Buffer.from(viewer.canvas);

  const tag = `fleet-${Date.now().toString(36)}`;
  const thread = await ok(a.url, `/api/threads/${s.agent}/create-new-thread`, {
    token: s.token, body: { user_text: `open a terminal, type "echo ${tag} > proof.txt" and press enter` },
  });
  await ok(a.url, `/api/agents/${s.agent}/run-state`, { token: s.token, body: { state: 'run_all' } });
  assert.is((await finished(a.url, thread.id)).error_message, '');
  await until(() => homeFile(a, s.agent, 'proof.txt')?.trim() === tag, 20_000, 'proof.txt in the home on A');

  // What B's viewer shows is the picture of A's desktop, typed text included.
  await until(async () => diffPixels((await screenshot(a.url, s.token, s.agent)).data, viewer.canvas) === 0, 20_000, "B's view to match A's desktop");
  assert.ok(diffPixels(before, viewer.canvas) > 0, "B's view changed while the runner typed");
  assert.equal(xvncOf([s.f!.a, s.f!.b], s.agent).length, 1, 'exactly one Xvnc for the agent');
  assert.is(homeFile(b, s.agent, 'proof.txt'), null, 'no second desktop (home) on B');
});

test('a run recorded on one instance replays through the other: the same recording, ranges included (issue 44)', async () => {
  const { a, b, db } = s.f!;
  const [run] = await db.query<{ id: number; instance_id: string }>(
    'SELECT id, instance_id FROM runs WHERE agent_id = $1 AND recording_path IS NOT NULL AND recording_done ORDER BY id DESC LIMIT 1', [s.agent]);
  assert.ok(run, 'the run of the test before was recorded');
  // Instance ids are host:pid:random: the one that ran it keeps the file.
  const [holder, other] = run.instance_id.includes(`:${a.child.pid}:`) ? [a, b] : [b, a];
  assert.ok(existsSync(join(holder.dataDir, 'files', (await db.query<{ p: string }>('SELECT recording_path AS p FROM runs WHERE id = $1', [run.id]))[0].p)));
  const get = (base: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/runs/${run.id}/recording`, { headers: { Authorization: `Bearer ${s.token}`, ...headers } });
  const here = await get(holder.url);
  const there = await get(other.url);
  assert.is(there.status, 200);
  assert.is(there.headers.get('content-encoding'), 'gzip');
  const recording = await here.text();
  assert.ok(recording.startsWith('4.size,'), 'a Guacamole recording');
  assert.is(await there.text(), recording, 'the same recording through either instance');
  const part = await get(other.url, { Range: 'bytes=0-19', 'Accept-Encoding': 'identity' });
  assert.is(part.status, 206);
  assert.is(await part.text(), recording.slice(0, 20));
  const replay = await ok(other.url, `/api/runs/${run.id}/replay`, { token: s.token });
  assert.ok(replay.markers.some((m: { kind: string }) => m.kind === 'action'), 'its markers, read from the shared database');
});

test('screenshots from A and from B of the same moment are the same image', async () => {
  const { a, b } = s.f!;
  // The screen is still (the terminal's cursor does not blink in the test desktop): both see one picture.
  const same = await until(async () => {
    const [one, two] = await Promise.all([screenshot(a.url, s.token, s.agent), screenshot(b.url, s.token, s.agent)]);
    return one.png.equals(two.png) ? one : null;
  }, 20_000, 'equal screenshots');
  assert.ok(same.png.length > 1000);
});

test('take control on B and type: the text reaches the desktop on A; control is one across instances; the clipboard crosses', async () => {
  const { a, b } = s.f!;
  // A viewer on A holds control first.
  const onA = await view(a.url, s.token, s.agent);
  assert.ok((await ok(a.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: onA.sessionId, take: true } })).control);
  // B's viewer takes it, asked through A (behind a load balancer the call may land on either instance).
  const taken = await ok(a.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: s.session, take: true } });
  assert.equal(taken, { session_id: s.session, control: true });
  await onA.viewer.until(() => onA.viewer.log.some((i) => i.opcode === 'x-control' && i.args[0] === '0'), 5000, "A's viewer to lose control");
  for (const base of [a.url, b.url]) {
    const described = await until(async () => {
      const d = await ok(base, `/api/agents/${s.agent}/desktop`, { token: s.token });
      return d.control === s.session ? d : null;
    }, 5000, `${base} to know that B's viewer holds control`);
    assert.ok(described.running);
  }
  onA.viewer.close();
  const word = `ctl${Date.now().toString(36)}`;
  for (const ch of `echo ${word} > control.txt`) {
    s.viewer.send('key', ch.codePointAt(0)!, 1);
    s.viewer.send('key', ch.codePointAt(0)!, 0);
  }
  s.viewer.send('key', 0xff0d, 1);
  s.viewer.send('key', 0xff0d, 0);
  await until(() => homeFile(a, s.agent, 'control.txt')?.trim() === word, 20_000, 'control.txt in the home on A');

  // The clipboard crosses both ways: B's viewer sets it and a program on A's desktop reads it, then a program
  // there sets it and B's viewer receives it.
  const typeLine = (line: string) => {
    for (const k of keysymsForText(line)) {
      s.viewer.send('key', k, 1);
      s.viewer.send('key', k, 0);
    }
    s.viewer.send('key', 0xff0d, 1);
    s.viewer.send('key', 0xff0d, 0);
  };
  const clip = `clip-${Date.now().toString(36)}`;
  s.viewer.send('clipboard', 3, 'text/plain');
  s.viewer.send('blob', 3, Buffer.from(clip, 'utf8').toString('base64'));
  s.viewer.send('end', 3);
  await until(() => {
    typeLine('xclip -o -selection clipboard > clip.txt');
    return until(() => homeFile(a, s.agent, 'clip.txt')?.trim() === clip, 3000, 'clip.txt').catch(() => false);
  }, 20_000, "B's clipboard read on A's desktop", 0);
  typeLine(`printf back-${clip} | xclip -selection clipboard`);
  await s.viewer.until(() => s.viewer.clipboard.includes(`back-${clip}`), 10_000, "the desktop's clipboard at B's viewer");
  await ok(b.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: s.session, take: false } });
});

test('a file dropped through B lands on the Desktop of the desktop A holds', async () => {
  const { a, b } = s.f!;
  const form = new FormData();
  form.append('file', new Blob(['dropped through B']), 'for the agent.txt');
  const res = await fetch(`${b.url}/api/agents/${s.agent}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}` }, body: form });
  assert.is(res.status, 200, await res.clone().text());
  await until(() => homeFile(a, s.agent, 'Desktop/for the agent.txt') === 'dropped through B', 10_000, 'the file on the Desktop on A');
  assert.is(homeFile(b, s.agent, 'Desktop/for the agent.txt'), null);
});

test("the desktop's sound reaches a viewer on B", async () => {
  if (!existsSync('/usr/bin/pulseaudio')) return console.log('    (sound over the relay needs PulseAudio: skipped)');
  const { b } = s.f!;
  await ok(b.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: s.session, take: true } });
  for (const k of keysymsForText('head -c 400000 /dev/urandom | pacat --raw --format=s16le --rate=44100 --channels=2\n')) {
    s.viewer.send('key', k, 1);
    s.viewer.send('key', k, 0);
  }
  await s.viewer.until(() => s.viewer.audio.reduce((n, chunk) => n + chunk.length, 0) > 10_000, 20_000, 'sound at the viewer on B');
  assert.ok(s.viewer.audioTypes.includes('audio/L16;rate=44100,channels=2'), JSON.stringify(s.viewer.audioTypes));
  await ok(b.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: s.session, take: false } });
});

test('a recording started on A and stopped on B keeps its keyframes and actions and produces its summary', async () => {
  const { a, b } = s.f!;
  const thread = await ok(a.url, `/api/threads/${s.agent}/create-new-thread`, { token: s.token, body: { user_text: 'I will show you' } });
  const started = await ok(a.url, '/api/screenshare/start-recording', { token: s.token, body: { agent_id: s.agent, thread_id: thread.id } });
  const folder = join(a.dataDir, 'files', `agent-${s.agent}`, 'recordings', started.session_id);
  await ok(b.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: s.session, take: true } });
  // The person works through B; the recording on A gets the input over the bus (clicked until B knows of it).
  const c = s.viewer;
  await until(() => {
    c.send('mouse', 320, 400, 1);
    c.send('mouse', 320, 400, 0);
    return existsSync(join(folder, 'keyframes', '0001.png'));
  }, 10_000, 'the first keyframe on A', 200);
  for (const k of keysymsForText('fleet demo')) {
    c.send('key', k, 1);
    c.send('key', k, 0);
  }
  await handled(c, 'after-the-demo');
  const stopped = await ok(b.url, '/api/screenshare/stop-recording', { token: s.token, body: { agent_id: s.agent, session_id: started.session_id } });
  assert.is(stopped.is_recording, false);
  await ok(b.url, `/api/agents/${s.agent}/control`, { token: s.token, body: { session_id: s.session, take: false } });
  const audio = await fetch(`${b.url}/api/screenshare/audio-final`, {
    method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'X-Session-Id': started.session_id, 'Content-Type': 'audio/ogg' }, body: '',
  });
  assert.is(audio.status, 202, await audio.text());
  const step = await until(async () => {
    const { steps } = await ok(b.url, `/api/threads/${thread.id}/steps?limit=100&offset=0`, { token: s.token });
    return (steps as any[]).find((st) => st.user_text.includes('<video_call_summary>'));
  }, 20_000, 'the summary');
  assert.match(step.user_text, "typed 'fleet demo'", step.user_text);
  assert.match(step.user_text, 'clicked at 320,400');
  const log = JSON.parse(readFileSync(join(folder, 'actions.json'), 'utf8'));
  assert.ok(log.actions.some((act: any) => act.kind === 'type'), JSON.stringify(log.actions));
});

test('a web tier instance (DESKTOP_HOST=0) serves viewers and screenshots but starts no desktop', async () => {
  const { a, b } = s.f!;
  const web = await s.f!.spawn('web', 500, 250, { DESKTOP_HOST: '0' });
  // The agent whose desktop A holds: relayed through the web tier.
  const watched = await view(web.url, s.token, s.agent);
  try {
    assert.is((await lease()).pid, a.child.pid);
    await until(async () => {
      const [one, two] = await Promise.all([screenshot(a.url, s.token, s.agent), screenshot(web.url, s.token, s.agent)]);
      return one.png.equals(two.png);
    }, 20_000, 'equal screenshots from A and the web tier');
    const metrics = (await api(web.url, '/api/metrics', { token: s.token })).body.toString();
    assert.match(metrics, /aw_desktop_relayed_viewers 1\b/);
    assert.match(metrics, /aw_desktops_running 0\b/);
    // A new agent's desktop, asked for through the web tier, starts on a desktop host.
    const other = (await ok(web.url, '/api/agents/', { token: s.token, body: { name: 'Web tier agent' } })).id;
    const fresh = await view(web.url, s.token, other);
    fresh.viewer.close();
    const [placed] = await s.f!.db.query<{ pid: number }>('SELECT pid FROM desktop_leases WHERE agent_id = $1', [other]);
    assert.ok([a.child.pid, b.child.pid].includes(placed.pid), `placed on a desktop host, not ${placed.pid}`);
    assert.is(homeFile(web, other, '.bashrc'), null, 'no desktop home on the web tier');
    const desktops = await ok(web.url, '/api/admin/desktops', { token: s.token });
    assert.is(desktops.instances.length, 3);
    assert.ok(desktops.instances.some((i: any) => !i.desktop_host && i.id === desktops.instance_id));
    assert.ok(desktops.placements.some((p: any) => p.agent_id === s.agent && typeof p.agent_name === 'string' && p.agent_name !== ''));
    // Deleting that agent through the web tier ends its desktop on the host that ran it.
    assert.is(xvncOf([s.f!.a, s.f!.b], other).length, 1);
    assert.is((await api(web.url, `/api/agents/${other}`, { token: s.token, method: 'DELETE' })).status, 204);
    await until(() => xvncOf([s.f!.a, s.f!.b], other).length === 0, 15_000, "the deleted agent's Xvnc to end");
  } finally {
    watched.viewer.close();
    web.child.kill('SIGTERM');
    await until(() => web.child.exitCode !== null, 15_000, 'the web tier to stop');
  }
});

test('the relay and every internal route refuse a person\'s token, a forged, an expired, a replayed signature and another body (401)', async () => {
  const { a } = s.f!;
  // Signatures name the instance they are for: A's announced INTERNAL_URL.
  const [{ address: to }] = await s.f!.db.query<{ address: string }>('SELECT address FROM instances WHERE pid = $1', [a.child.pid]);
  const path = relayPath(s.agent);
  const get = { method: 'GET', to, path };
  const ws = a.url.replace(/^http/, 'ws') + path;
  const forger = 'another-secret-0123456789abcdef0123456789';
  assert.is(await upgradeStatus(ws, { Authorization: `Bearer ${s.token}` }), 401, 'bearer token');
  assert.is(await upgradeStatus(`${ws}?token=${s.token}`, {}), 401, 'token in the query');
  assert.is(await upgradeStatus(ws, signedHeaders(forger, get)), 401, 'forged');
  assert.is(await upgradeStatus(ws, signedHeaders(SECRET, get, undefined, Date.now() - 5 * 60_000)), 401, 'expired');
  assert.is(await upgradeStatus(ws, signedHeaders(SECRET, { ...get, path: relayPath(s.agent + 1) })), 401, 'signed for another path');
  assert.is(await upgradeStatus(ws, signedHeaders(SECRET, { ...get, to: 'http://127.0.0.1:1' })), 401, 'signed for another instance');
  assert.is(await upgradeStatus(ws, {}), 401, 'nothing');
  const files = await fetch(`${a.url}/internal/desktops/${s.agent}/files?name=x.txt`, {
    method: 'POST', headers: { Authorization: `Bearer ${s.token}` }, body: 'x',
  });
  assert.is(files.status, 401, 'file drop with a bearer token');
  assert.is(await upgradeStatus(a.url.replace(/^http/, 'ws') + soundPath(s.agent), { Authorization: `Bearer ${s.token}` }), 401, 'sound');
  const session = '00000000-0000-4000-8000-000000000000';
  const stop = { method: 'POST', to, path: `/internal/recordings/${session}/stop` };
  for (const [what, headers] of [
    ['bearer token', { Authorization: `Bearer ${s.token}` }],
    ['expired', signedHeaders(SECRET, stop, undefined, Date.now() - 5 * 60_000)],
    ['forged', signedHeaders(forger, stop)],
  ] as const) {
    assert.is((await fetch(a.url + stop.path, { method: 'POST', headers })).status, 401, `recording stop: ${what}`);
  }
  assert.is((await fetch(`${a.url}/internal/desktops/${s.agent}`, { method: 'DELETE', headers: { Authorization: `Bearer ${s.token}` } })).status, 401);
  // A file drop signed for one body: that body lands once; the same call again, or with another body, does not.
  const drop = { method: 'POST', to, path: `/internal/desktops/${s.agent}/files?name=signed.txt` };
  const signed = signedHeaders(SECRET, drop, createHash('sha256').update('signed').digest('hex'));
  assert.is((await fetch(a.url + drop.path, { method: 'POST', headers: signed, body: 'signed' })).status, 200, 'the signed body');
  assert.is((await fetch(a.url + drop.path, { method: 'POST', headers: signed, body: 'replayed' })).status, 401, 'replayed with another body');
  const again = signedHeaders(SECRET, drop, createHash('sha256').update('signed').digest('hex'));
  assert.is((await fetch(a.url + drop.path, { method: 'POST', headers: again, body: 'swapped' })).status, 401, 'another body');
  assert.is(homeFile(a, s.agent, 'Desktop/signed.txt'), 'signed');
  // A valid signature opens it (the holder relays its desktop), once.
  const relay = signedHeaders(SECRET, get);
  assert.is(await upgradeStatus(ws, relay), 101, 'signed');
  assert.is(await upgradeStatus(ws, relay), 401, 'replayed');
});

test('a holder that stops answering (SIGSTOP) loses the desktop after the stale window; back, it lets its copy go', async () => {
  const { a, b } = s.f!;
  const agent = (await ok(a.url, '/api/agents/', { token: s.token, body: { name: 'Paused holder' } })).id;
  const leaseOf = async () => (await s.f!.db.query<{ pid: number }>('SELECT pid FROM desktop_leases WHERE agent_id = $1', [agent]))[0];
  (await view(a.url, s.token, agent)).viewer.close();
  const watching = await view(b.url, s.token, agent);
  assert.is((await leaseOf()).pid, a.child.pid);
  const stoppedAt = Date.now();
  a.child.kill('SIGSTOP');
  let again: Awaited<ReturnType<typeof view>>;
  try {
    await watching.viewer.until(() => watching.viewer.closed !== null, (STALE_SECONDS + 20) * 1000, "B's viewer to lose the stalled relay");
    assert.ok(Date.now() - stoppedAt >= STALE_SECONDS * 1000 - 500, 'not before the stale window');
    again = await until(() => view(b.url, s.token, agent).catch(() => null), 30_000, 'a desktop through B', 500);
    assert.is((await leaseOf()).pid, b.child.pid, 'B took the lease over');
  } finally {
    a.child.kill('SIGCONT');
  }
  // A is back: its next heartbeats find the lease gone, and its copy (if any is left) must not come back.
  const resumed = new Date();
  const beats = async () => (await s.f!.db.query<{ heartbeat_at: Date }>('SELECT heartbeat_at FROM instances WHERE pid = $1', [a.child.pid]))[0];
  await until(async () => (await beats()).heartbeat_at > resumed, 20_000, "A's heartbeat after SIGCONT");
  const first = (await beats()).heartbeat_at;
  await until(async () => (await beats()).heartbeat_at > first, 20_000, "A's second heartbeat");
  await until(() => xvncOf([s.f!.a, s.f!.b], agent).length === 1, 10_000, 'one Xvnc for the agent');
  assert.is((await leaseOf()).pid, b.child.pid, 'B still holds it');
  assert.is(again.viewer.closed, null, "B's viewer still has its desktop");
  await screenshot(a.url, s.token, agent); // A, back, serves it relayed from B
  again.viewer.close();
});

test('kill -9 the holder: B takes the lease within the stale window, a reconnecting viewer gets a desktop, a queued run continues', async () => {
  const { a, b } = s.f!;
  assert.is((await lease()).pid, a.child.pid);
  const takenBefore = takeovers((await api(b.url, '/api/metrics', { token: s.token })).body.toString());
  // A run waits in the queue (the agent is stopped) when the holder dies.
  await ok(a.url, `/api/agents/${s.agent}/run-state`, { token: s.token, body: { state: 'stop' } });
  const tag = `after-${Date.now().toString(36)}`;
  const thread = await ok(a.url, `/api/threads/${s.agent}/create-new-thread`, {
    token: s.token, body: { user_text: `open a terminal, type "echo ${tag} > after.txt" and press enter` },
  });
  assert.is((await ok(a.url, `/api/threads/${thread.id}`, { token: s.token })).schedule_sequence, 1, 'queued');
  const killedAt = Date.now();
  a.child.kill('SIGKILL');
  await until(() => a.child.exitCode !== null || a.child.signalCode !== null, 10_000, 'A to die');
  await s.viewer.until(() => s.viewer.closed !== null, 20_000, "B's viewer to lose the relayed desktop");

  // The viewer reconnects (through /agents/enter again, as the page does).
  const again = await until(() => view(b.url, s.token, s.agent).catch(() => null), (STALE_SECONDS + 20) * 1000, 'a desktop through B', 500);
  s.viewer = again.viewer;
  assert.is((await lease()).pid, b.child.pid, 'B holds the lease now');
  const [{ taken }] = await s.f!.db.query<{ taken: number }>(
    'SELECT extract(epoch FROM taken_at) * 1000 AS taken FROM desktop_leases WHERE agent_id = $1', [s.agent]);
  assert.ok(Number(taken) - killedAt < STALE_SECONDS * 1000, `taken over ${Number(taken) - killedAt} ms after the kill`);
  const metrics = await api(b.url, '/api/metrics', { token: s.token });
  assert.is(takeovers(metrics.body.toString()), takenBefore + 1);
  await until(() => xvncOf([s.f!.a, s.f!.b], s.agent).length === 1, 10_000, 'one Xvnc for the agent');

  // The queued run goes on through B, on the desktop B took over.
  await ok(b.url, `/api/agents/${s.agent}/run-state`, { token: s.token, body: { state: 'run_all' } });
  assert.is((await finished(b.url, thread.id)).error_message, '');
  await until(() => homeFile(b, s.agent, 'after.txt')?.trim() === tag, 20_000, 'after.txt in the home on B');
  assert.equal(xvncOf([s.f!.a, s.f!.b], s.agent).length, 1);
});

fleet.run();
