// A demonstration on a real TigerVNC Xvnc, driven through the real tunnel like a browser would: the person
// takes control, clicks, types and presses ctrl+s; the summary lists exactly those, and a keyframe of the
// real desktop is written (at most one a second). Another viewer without control is not recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary } from '../../server/desktop/host.ts';
import { keysymsForText } from '../../server/desktop/rfb/keysyms.ts';
import type { LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import { decodeOwnPng } from '../../server/desktop/rfb/png.ts';
import type { Desktops } from '../../server/desktop/index.ts';
import { testDesktops } from './desktop-helpers.ts';
import { filesDir } from '../../server/files/storage.ts';
import { recordingDir } from '../../server/recording/recordings.ts';
import { GuacTestClient } from './desktop-helpers.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { waitFor } from './runner-helpers.ts';

const HAVE_XVNC = !!findBinary('Xvnc', process.env.PATH ?? '');
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };

const take = suite('screenshare: a take-over on a real desktop');

/** Sends the tunnel's ping and waits for its echo: the server has handled everything sent before it. */
async function handled(client: GuacTestClient, tag: string) {
  client.send('', 'ping', tag);
  await client.until(() => client.log.some((i) => i.opcode === '' && i.args[0] === 'ping' && i.args[1] === tag), 5000, `ping ${tag}`);
}

if (!HAVE_XVNC) {
  console.log('\n  ⚠ recording on Xvnc skipped: the Xvnc binary is not installed (apt-get install tigervnc-standalone-server)\n');
  if (process.env.CI) take('Xvnc is installed', () => assert.unreachable('Xvnc is missing on CI'));
  else take.skip('needs Xvnc', () => {});
} else {
  let manager: LocalDesktops;
  let original: Desktops;
  let dir: string;

  take.before(async () => {
    const { parts } = await testServer();
    dir = mkdtempSync(join(tmpdir(), 'aw-recording-test-'));
    manager = testDesktops({ dataDir: dir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 610 } });
    original = parts.desktops;
    parts.desktops = manager;
  });

  take.after(async () => {
    const { parts } = await testServer();
    await manager.stopAll();
    parts.desktops = original;
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  take('click, type and ctrl+s through the tunnel become exactly those actions, with a keyframe', async () => {
    const { url, parts } = await testServer();
    const base = url.replace('http', 'ws');
    const user = await newUser('demo');
    const agent = await newAgent(user.id, 'Demo agent');
    const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'I will show you' } })).body;

    const enter = async () => {
      const res = await call('/api/agents/enter', { token: user.token, body: { agent_id: agent.id } });
      assert.is(res.status, 200, JSON.stringify(res.body));
      const client = await GuacTestClient.connect(base + res.body.guacamole_tunnel_url);
      await client.until(() => client.frames >= 1, 15_000, 'first frame');
      return { client, sessionId: res.body.session_id as string };
    };
    const person = await enter();
    const bystander = await enter();
    try {
      const started = await call('/api/screenshare/start-recording', { token: user.token, body: { agent_id: agent.id, thread_id: thread.id } });
      assert.is(started.status, 200, JSON.stringify(started.body));
      const control = await call(`/api/agents/${agent.id}/control`, { token: user.token, body: { session_id: person.sessionId, take: true } });
      assert.equal(control.body, { session_id: person.sessionId, control: true });

      const c = person.client;
      c.send('mouse', 300, 200, 0);
      c.send('mouse', 412, 230, 0);
      c.send('mouse', 412, 230, 1);
      c.send('mouse', 412, 230, 0);
      bystander.client.send('mouse', 900, 700, 1); // read-only: neither the desktop nor the recording gets it
      bystander.client.send('mouse', 900, 700, 0);
      for (const k of keysymsForText('quarterly report')) {
        c.send('key', k, 1);
        c.send('key', k, 0);
      }
      c.send('key', 0xffe3, 1);
      c.send('key', 's'.codePointAt(0)!, 1);
      c.send('key', 's'.codePointAt(0)!, 0);
      c.send('key', 0xffe3, 0);
      await handled(c, 'after-the-demo');
      await handled(bystander.client, 'bystander');

      assert.is((await call('/api/screenshare/stop-recording', { token: user.token, body: { agent_id: agent.id } })).status, 200);
      await call(`/api/agents/${agent.id}/control`, { token: user.token, body: { session_id: person.sessionId, take: false } });
      const sent = await call('/api/screenshare/audio-final', {
        method: 'POST', token: user.token, raw: '', headers: { 'X-Session-Id': started.body.session_id, 'Content-Type': 'audio/ogg' },
      });
      assert.is(sent.status, 202);

      const step = await waitFor(async () => {
        const steps = (await call(`/api/threads/${thread.id}/steps?limit=100&offset=0`, { token: user.token })).body.steps as any[];
        return steps.find((s) => s.user_text.includes('<video_call_summary>'));
      }, 10_000, 'the summary');
      const actions = step.user_text.split('\n').filter((l: string) => /^\d+\. /.test(l)).map((l: string) => l.replace(/^\d+\. \[\d+:\d\d\] /, ''));
      assert.equal(actions, ['clicked at 412,230', "typed 'quarterly report'", 'pressed ctrl+s']);
      assert.match(step.user_text, 'Demonstration recorded on the desktop (1280x800 pixels)');
      assert.match(step.user_text, 'No transcript was made: no audio was recorded.');

      // One keyframe: the three actions came within a second. It is the real desktop, as a PNG.
      const folder = join(filesDir(parts.config.dataDir), recordingDir(agent.id, started.body.session_id));
      assert.equal(readdirSync(join(folder, 'keyframes')), ['0001.png']);
      const png = decodeOwnPng(readFileSync(join(folder, 'keyframes', '0001.png')));
      assert.equal([png.width, png.height], [1280, 800]);
      const log = JSON.parse(readFileSync(join(folder, 'actions.json'), 'utf8'));
      assert.equal(log.screen, { width: 1280, height: 800 });
      assert.equal(log.actions.map((a: any) => [a.kind, a.keyframe ?? null]), [['click', 'keyframes/0001.png'], ['type', null], ['key', null]]);
      assert.match(step.user_text, 'Screenshots taken at action 1 come with this summary.');
    } finally {
      person.client.close();
      bystander.client.close();
    }
  });
}

take.run();
