// A full disk during a run's recording (issue 44): the recordings go to a 3 MB tmpfs while the agent's desktop shows
// noise that no compression shrinks. The disk fills mid-run: the recording stops cleanly (ENOSPC), the run goes on to
// its end, the thread says the recording stopped, and what was recorded until then still plays. Root only (mount).
import { randomFillSync } from 'node:crypto';
import { gunzipSync, constants } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentStorage } from '../../server/agents/storage.ts';
import { DiskSpace } from '../../server/files/disk-space.ts';
import { RunRecordings } from '../../server/replay/index.ts';
import { GuacParser } from '../../server/desktop/view/codec.ts';
import { IS_ROOT, smallDisk } from './fault-helpers.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { scripted, swapRunner, text, toolUse, waitFor, type FakeDesktop } from './runner-helpers.ts';
import { LocalStore } from '../../server/storage/index.ts';

const full = suite('replay: a full disk during a recording');
const quiet = { info: () => {}, error: () => {} };
let runner: Awaited<ReturnType<typeof swapRunner>> | undefined;

full('the recording stops cleanly, the run goes on, the thread says so, and what was recorded still plays', async () => {
  if (!IS_ROOT) throw new Error('this test mounts a tmpfs: run it as root (CI does)');
  const disk = await smallDisk(3);
  const server = await testServer();
  const { db, bus } = server.parts;
  // Room for the database is not this disk's business here: no reserve, so only ENOSPC stops the recording.
  const storage = new AgentStorage({ db, config: { agentStorageBytes: 1e12 }, disk: new DiskSpace({ dir: disk.dir, reserveBytes: 0, log: quiet }) });
  const recordings = new RunRecordings({
    db, bus, log: quiet, filesDir: disk.dir, blobs: new LocalStore(disk.dir), storage, instanceId: server.parts.runner!.id,
  });
  // Each action fills the screen with fresh noise: ~4 MB of raw pixels, a PNG of about the same size.
  const actions = Array.from({ length: 6 }, (_, i) => [toolUse(`n${i}`, 'computer', { action: 'key', text: 'abcdef'[i] })]);
  runner = await swapRunner({
    provider: scripted([...actions, [text('Done.')]]), instanceId: server.parts.runner!.id,
    recordRun: (run, desktop) => recordings.start(run, desktop),
  });
  const user = await newUser('replay-disk');
  const agent = await newAgent(user.id);
  const desktop = (await runner.desktops.acquire(agent.id)) as FakeDesktop;
  const fb = { width: desktop.width, height: desktop.height, data: Buffer.alloc(desktop.width * desktop.height * 4, 255) };
  desktop.framebuffer = () => fb;
  desktop.on('action', () => {
    randomFillSync(fb.data);
    desktop.emit('update', [{ x: 0, y: 0, w: fb.width, h: fb.height }], []);
  });
  try {
    const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'noise' } })).body;
    await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run' } });
    const run = await waitFor(async () => (await call(`/api/threads/${thread.id}/runs`, { token: user.token })).body.find((r: any) => r.ended_at),
      30_000, 'the run to end');
    assert.is(run.outcome, 'done', 'the run went on to its end');
    assert.is(desktop.actions.length, 6, 'every action ran');
    const [row] = await db.query<{ recording_stopped: string; recording_path: string }>(
      'SELECT recording_stopped, recording_path FROM runs WHERE id = $1', [run.id]);
    assert.match(row.recording_stopped, /The recording of this run stopped: the server's disk is full/);
    const said = await db.query<{ text: string }>(`SELECT assistant_data->>'text' AS text FROM chat_messages WHERE run_id = $1 AND role = 'warning'`, [run.id]);
    assert.ok(said.some((m) => m.text === row.recording_stopped), 'the thread says the recording stopped');
    // What was written before the disk filled gunzips to whole frames, the first one at least.
    const recording = gunzipSync(readFileSync(join(disk.dir, row.recording_path)), { finishFlush: constants.Z_SYNC_FLUSH }).toString();
    const instructions = new GuacParser({ maxBuffer: 1 << 24 }).feed(recording.slice(0, recording.lastIndexOf(';') + 1));
    assert.is(instructions[0].opcode, 'size');
    assert.ok(instructions.some((i) => i.opcode === 'sync'), 'a whole frame');
  } finally {
    await runner.stop();
    recordings.close();
    await disk.close();
  }
});

full.run();
