// Teaching by demonstration through /api/screenshare: who may record and upload (404 for others, 409 for
// audio twice, 413 for too much), the automatic stop at the maximum length, the summary in the thread with
// and without a transcription server (a local node:http server speaking OpenAI's transcription format),
// and the agent's next model call carrying the summary and keyframes (a local Anthropic-format server).
// Input reaches the service as the gateway emits it; recording-desktop.test.ts drives the real tunnel.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { keysymsForText } from '../../server/desktop/rfb/keysyms.ts';
import type { DesktopInput } from '../../server/desktop/index.ts';
import { filesDir } from '../../server/files/storage.ts';
import { createAnthropic } from '../../server/models/anthropic.ts';
import { Recordings, recordingDir, type RecordingsOptions } from '../../server/recording/recordings.ts';
import { createTranscriber } from '../../server/recording/transcriber.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { adminToken, call, newAgent, newUser, testS3, testServer } from './helpers.ts';
import { FakeDesktop, swapRunner, waitFor } from './runner-helpers.ts';

const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };

async function owner() {
  const user = await newUser('rec');
  const agent = await newAgent(user.id);
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'Watch me first' } })).body;
  return { user, agent, thread };
}

const start = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('/api/screenshare/start-recording', { token, body, headers });
const stop = (token: string, body: Record<string, unknown>) => call('/api/screenshare/stop-recording', { token, body });
const audio = (token: string, sessionId: string | null, body: BodyInit = 'OggS fake audio', type = 'audio/ogg;codecs=opus') =>
  call('/api/screenshare/audio-final', {
    method: 'POST', token, raw: body, headers: { ...(sessionId !== null ? { 'X-Session-Id': sessionId } : {}), 'Content-Type': type },
  });

async function summaryStep(token: string, threadId: number, ms = 10_000) {
  return waitFor(async () => {
    const steps = (await call(`/api/threads/${threadId}/steps?limit=100&offset=0`, { token })).body.steps as any[];
    return steps.find((s) => s.user_text.includes('<video_call_summary>'));
  }, ms, 'the summary step');
}

const numbered = (text: string) => text.split('\n').filter((l) => /^\d+\. /.test(l)).map((l) => l.replace(/^\d+\. \[\d+:\d\d\] /, ''));

/** A stored object's text (in the test server's store: DATA_DIR/files, or the S3 stand-in), or null. */
async function stored(key: string): Promise<string | null> {
  const read = await (await testServer()).parts.blobs.get(key);
  return read && text(read.body);
}
/** The names of the objects in a folder of the store, relative to it. */
async function storedNames(folder: string): Promise<string[]> {
  const names: string[] = [];
  for await (const { key } of (await testServer()).parts.blobs.list(`${folder}/`)) names.push(key.slice(folder.length + 1));
  return names;
}
/** The files in a folder of this instance's DATA_DIR/files (partial audio is received there). */
async function localNames(folder: string): Promise<string[]> {
  const dir = join(filesDir((await testServer()).parts.config.dataDir), folder);
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Swaps the server's recordings service for one built with these options (restored by restore()). */
let original: Recordings | undefined;
async function swapRecordings(options: Partial<RecordingsOptions>): Promise<Recordings> {
  const { parts } = await testServer();
  original ??= parts.recordings;
  const swapped = new Recordings({
    db: parts.db, bus: parts.bus, log: quiet, filesDir: filesDir(parts.config.dataDir), blobs: parts.blobs,
    desktop: () => null, transcriber: null, ...options,
  });
  parts.recordings = swapped;
  return swapped;
}
async function restore() {
  const { parts } = await testServer();
  if (original) {
    await parts.recordings?.close();
    parts.recordings = original;
  }
}

/** The person's input as the gateway hands it over: mouse and keys of the viewer in control. */
function input(recordings: Recordings, agentId: number, userId: number, t0: number) {
  const send = (e: { kind: 'mouse'; x: number; y: number; mask: number } | { kind: 'key'; keysym: number; down: boolean }, at: number) =>
    recordings.input(agentId, { ...e, at: t0 + at, userId } as DesktopInput);
  return {
    click(x: number, y: number, at: number) {
      send({ kind: 'mouse', x, y, mask: 1 }, at);
      send({ kind: 'mouse', x, y, mask: 0 }, at + 50);
    },
    type(text: string, at: number) {
      keysymsForText(text).forEach((k, i) => {
        send({ kind: 'key', keysym: k, down: true }, at + i * 40);
        send({ kind: 'key', keysym: k, down: false }, at + i * 40 + 20);
      });
    },
    ctrl(key: string, at: number) {
      send({ kind: 'key', keysym: 0xffe3, down: true }, at);
      send({ kind: 'key', keysym: key.codePointAt(0)!, down: true }, at + 20);
      send({ kind: 'key', keysym: key.codePointAt(0)!, down: false }, at + 40);
      send({ kind: 'key', keysym: 0xffe3, down: false }, at + 60);
    },
  };
}

// ---

const access = suite('screenshare: sessions and who may use them');

access('start → stop → audio-final: the session is the caller\'s, the audio is stored, the summary lands in the thread', async () => {
  const { user, agent, thread } = await owner();
  const started = await start(user.token, { agent_id: agent.id, thread_id: thread.id });
  assert.is(started.status, 200, JSON.stringify(started.body));
  assert.match(started.body.session_id, /^[0-9a-f-]{36}$/);
  assert.is(started.body.is_recording, true);
  assert.is(started.body.thread_id, thread.id);

  const stopped = await stop(user.token, { agent_id: agent.id });
  assert.is(stopped.status, 200);
  assert.is(stopped.body.session_id, started.body.session_id);
  assert.is(stopped.body.is_recording, false);
  assert.is(stopped.body.auto_stopped, false);
  assert.is((await stop(user.token, { agent_id: agent.id })).status, 409, 'nothing is running any more');

  const sent = await audio(user.token, started.body.session_id, 'OggS fake audio', 'audio/ogg;codecs=opus');
  assert.is(sent.status, 202, JSON.stringify(sent.body));
  assert.equal(sent.body, { session_id: started.body.session_id, received_bytes: 15 });
  const { parts } = await testServer();
  const folder = recordingDir(agent.id, started.body.session_id);
  const dir = join(filesDir(parts.config.dataDir), folder);
  assert.is(await stored(`${folder}/audio.ogg`), 'OggS fake audio');
  assert.equal(JSON.parse((await stored(`${folder}/actions.json`))!).actions, []);
  if (parts.blobs.kind === 's3') assert.equal(await localNames(folder), [], 'nothing of it kept on this disk');

  const step = await summaryStep(user.token, thread.id);
  assert.match(step.user_text, 'The person did nothing on the desktop');
  assert.match(step.user_text, 'No transcript was made: no transcription server is configured.');
  assert.is((await audio(user.token, started.body.session_id)).status, 409, 'the audio comes once');
  // The summary also went to the agent's feed (what the browser waits for).
  const feed = (await call(`/api/messages/agent/${agent.id}?page=1&page_size=5`, { token: user.token })).body.messages;
  assert.ok(feed.some((m: any) => m.role === 'user' && m.user_data.text.includes('<video_call_summary>')));

  // Deleting the agent deletes what it recorded.
  assert.is((await call(`/api/agents/${agent.id}`, { method: 'DELETE', token: await adminToken() })).status, 204);
  assert.equal(await storedNames(folder), []);
  assert.is(existsSync(dir), false);
});

access('another user\'s agent, thread or session answers 404; an admin records for a user only by impersonating', async () => {
  const a = await owner();
  const b = await owner();
  assert.is((await start(b.user.token, { agent_id: a.agent.id })).status, 404);
  assert.is((await start(a.user.token, { agent_id: a.agent.id, thread_id: b.thread.id })).status, 404, 'a thread of another agent');
  assert.is((await start(a.user.token, {})).status, 422);
  const admin = await adminToken();
  assert.is((await start(admin, { agent_id: a.agent.id })).status, 404, 'an admin acting as themselves');
  const asOwner = await start(admin, { agent_id: a.agent.id }, { 'X-Impersonate-User-Id': String(a.user.id) });
  assert.is(asOwner.status, 200);

  const session = asOwner.body.session_id;
  assert.is((await stop(b.user.token, { agent_id: b.agent.id, session_id: session })).status, 404, 'a session of another user');
  const foreign = await audio(b.user.token, session);
  assert.is(foreign.status, 404);
  assert.equal(foreign.body, { detail: 'Recording session not found' });
  assert.is((await audio(a.user.token, '00000000-0000-4000-8000-000000000000')).status, 404, 'an unknown session');
  assert.is((await audio(a.user.token, 'not a session id')).status, 404);
  const missing = await audio(a.user.token, null);
  assert.is(missing.status, 422);
  assert.equal(missing.body.detail[0].loc, ['header', 'X-Session-Id']);
  assert.is((await audio(a.user.token, session, 'x', 'application/json')).status, 415);
  // Still recording: none of that touched it.
  const row = await (await testServer()).parts.db.one('SELECT stopped_at, audio_bytes FROM recordings WHERE session_id = $1', [session]);
  assert.equal(row, { stopped_at: null, audio_bytes: null });
  assert.is((await audio(a.user.token, session)).status, 202, 'the owner\'s audio also ends the recording');
});

access('an oversized body is 413, declared or streamed, and leaves nothing behind; the session can still take its audio', async () => {
  const { user, agent } = await owner();
  const { url, parts } = await testServer();
  const session = (await start(user.token, { agent_id: agent.id })).body.session_id;
  const send = (headers: Record<string, string>, chunks: number, size: number) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      // A connection of its own: the declared request never sends its 101 MB, so its connection is
      // still being drained by the server and must not be reused for the next request.
      const req = request(`${url}/api/screenshare/audio-final`, {
        agent: false, method: 'POST', headers: { Authorization: `Bearer ${user.token}`, 'X-Session-Id': session, 'Content-Type': 'audio/webm', ...headers },
      }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
      let n = 0;
      const pump = () => {
        while (n < chunks) {
          n++;
          if (!req.write(Buffer.alloc(size, 1))) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });

  const declared = await send({ 'Content-Length': String(101 * 1024 * 1024) }, 1, 1024);
  assert.is(declared.status, 413);
  assert.equal(JSON.parse(declared.body), { detail: 'Audio exceeds the 100MB limit' });

  parts.recordings!.maxAudioBytes = 64 * 1024;
  try {
    const streamed = await send({ 'Transfer-Encoding': 'chunked' }, 40, 4096);
    assert.is(streamed.status, 413);
  } finally {
    parts.recordings!.maxAudioBytes = 100 * 1024 * 1024;
  }
  const folder = recordingDir(agent.id, session);
  assert.equal((await localNames(folder)).filter((f) => f.startsWith('audio')), [], 'no partial audio left');
  assert.equal((await storedNames(folder)).filter((f) => f.startsWith('audio')), [], 'no audio stored');
  assert.is((await parts.db.one('SELECT audio_bytes FROM recordings WHERE session_id = $1', [session]))!.audio_bytes, null);
  assert.is((await audio(user.token, session, 'fine')).status, 202);
});

access('a new start ends the agent\'s recording that was left running (a closed tab); stop without a session stops the open one', async () => {
  const { user, agent } = await owner();
  const first = (await start(user.token, { agent_id: agent.id })).body.session_id;
  const second = (await start(user.token, { agent_id: agent.id })).body.session_id;
  assert.is.not(first, second);
  const { parts } = await testServer();
  const rows = await parts.db.query('SELECT session_id, stopped_at IS NOT NULL AS stopped FROM recordings WHERE agent_id = $1 ORDER BY id', [agent.id]);
  assert.equal(rows, [{ session_id: first, stopped: true }, { session_id: second, stopped: false }]);
  const stopped = await stop(user.token, { agent_id: agent.id });
  assert.is(stopped.body.session_id, second);
  assert.is((await audio(user.token, first, '')).status, 202, 'the first one still takes its audio');
});

// ---

const quota = suite('screenshare: audio and the agent\'s storage quota');
quota.before(restore); // the server's own service, which counts against the quota

quota('audio past what is left of the quota is 413 with nothing stored, declared or streamed; the remaining figure counts stored audio', async () => {
  const { url, parts } = await testServer();
  const { user, agent } = await owner();
  const KB = 1024;
  const saved = parts.config.agentStorageBytes;
  parts.config.agentStorageBytes = 1024 * KB;
  try {
    const first = (await start(user.token, { agent_id: agent.id })).body.session_id;
    assert.is((await audio(user.token, first, new Uint8Array(600 * KB))).status, 202);
    const second = (await start(user.token, { agent_id: agent.id })).body.session_id;
    const remain = 'Not enough storage left for this agent: 0.4 MB of its 1 MB remain';
    const declared = await audio(user.token, second, new Uint8Array(500 * KB));
    assert.is(declared.status, 413);
    assert.is(declared.body.detail, remain);
    const streamed = await fetch(`${url}/api/screenshare/audio-final`, {
      method: 'POST', duplex: 'half',
      headers: { Authorization: `Bearer ${user.token}`, 'X-Session-Id': second, 'Content-Type': 'audio/webm' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(50 * KB));
          c.close();
        },
      }),
    } as RequestInit);
    assert.is(streamed.status, 413);
    assert.is((await streamed.json()).detail, remain);
    assert.equal((await localNames(recordingDir(agent.id, second))).filter((f) => f.startsWith('audio')), [], 'no audio kept');
    assert.equal((await storedNames(recordingDir(agent.id, second))).filter((f) => f.startsWith('audio')), [], 'no audio stored');
    assert.is((await parts.db.one('SELECT audio_bytes FROM recordings WHERE session_id = $1', [second]))!.audio_bytes, null);
    // An upload sees the stored audio in what remains.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(500 * KB)]), 'doc.bin');
    const upload = await fetch(`${url}/api/agents/${agent.id}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${user.token}` }, body: form });
    assert.is(upload.status, 413);
    assert.is((await upload.json()).detail, remain);
    // What still fits is taken.
    assert.is((await audio(user.token, second, new Uint8Array(100 * KB))).status, 202);
  } finally {
    parts.config.agentStorageBytes = saved;
  }
});

quota('audio the bucket does not take (S3 pass only) is 503 with {detail}, nothing kept; sent again it is taken', async () => {
  if (!testS3) return; // the local store's full disk is write-errors.test.ts's
  const { parts } = await testServer();
  const { user, agent } = await owner();
  const session = (await start(user.token, { agent_id: agent.id })).body.session_id;
  assert.is((await stop(user.token, { agent_id: agent.id })).status, 200);
  const folder = recordingDir(agent.id, session);
  testS3.fault = { mode: 'error', when: (method, url) => method === 'PUT' && url.pathname.includes('/audio.') };
  try {
    const refused = await audio(user.token, session, 'OggS audio');
    assert.is(refused.status, 503);
    assert.is(refused.body.detail, 'File storage is not available right now; try again in a moment');
  } finally {
    testS3.fault = null;
  }
  assert.equal((await storedNames(folder)).filter((f) => f.startsWith('audio')), []);
  assert.equal(await localNames(folder), [], 'no partial audio left on this disk');
  assert.is((await parts.db.one('SELECT audio_bytes FROM recordings WHERE session_id = $1', [session]))!.audio_bytes, null);
  assert.is((await audio(user.token, session, 'OggS audio')).status, 202);
  assert.is(await stored(`${folder}/audio.ogg`), 'OggS audio');
});

quota.run();

// ---

const limits = suite('screenshare: the maximum length');
limits.after(restore);

limits('past RECORDING_MAX_SECONDS the recording stops with the assistant message, then takes its audio as usual', async () => {
  const recordings = await swapRecordings({ maxSeconds: 1 });
  assert.is(recordings.maxSeconds, 1);
  const { user, agent, thread } = await owner();
  const started = (await start(user.token, { agent_id: agent.id, thread_id: thread.id })).body;
  const message = await waitFor(async () => {
    const feed = (await call(`/api/messages/agent/${agent.id}?page=1&page_size=10`, { token: user.token })).body.messages as any[];
    return feed.find((m) => m.role === 'assistant' && m.assistant_data.text.startsWith('Recording automatically stopped'));
  }, 5000, 'the automatic stop message');
  assert.is(message.assistant_data.text, 'Recording automatically stopped after 1 seconds, the longest a recording may run. ' +
    'What was recorded until then is being summarised.');
  assert.ok(Date.parse(message.created_at) > Date.parse(started.started_at), 'newer than the start');
  assert.is(message.thread_id, thread.id);

  // The browser's stop after the automatic one: the same session, stopped once, by the limit.
  const stopped = await stop(user.token, { agent_id: agent.id, session_id: started.session_id });
  assert.is(stopped.status, 200);
  assert.is(stopped.body.auto_stopped, true);
  assert.ok(stopped.body.duration_seconds >= 1 && stopped.body.duration_seconds <= 3, String(stopped.body.duration_seconds));
  assert.is((await audio(user.token, started.session_id, '')).status, 202);
  const step = await summaryStep(user.token, thread.id);
  assert.match(step.user_text, 'No transcript was made: no audio was recorded.');
});

limits('autoStopText reads in minutes for whole minutes', async () => {
  const { autoStopText } = await import('../../server/recording/recordings.ts');
  assert.is(autoStopText(600), 'Recording automatically stopped after 10 minutes, the longest a recording may run. ' +
    'What was recorded until then is being summarised.');
  assert.ok(autoStopText(60).startsWith('Recording automatically stopped after 1 minute,'));
});

// ---

type Heard = { url: string; headers: IncomingMessage['headers']; form: FormData };

/** An OpenAI-compatible transcription server on port 0 answering `reply`. */
async function transcriptionServer(reply: { status: number; body: unknown }) {
  const heard: Heard[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const form = await new Request('http://local' + req.url,
        { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }).formData();
      heard.push({ url: req.url!, headers: req.headers, form });
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, heard, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const segment = (id: number, start: number, end: number, text: string) => ({
  id, seek: 0, start, end, text, tokens: [50364, 1000], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01,
});

const summaries = suite('screenshare: the summary');
summaries.after(restore);

summaries('with a transcription server: what was said is interleaved with what was done', async () => {
  const whisper = await transcriptionServer({
    status: 200,
    body: {
      task: 'transcribe', language: 'english', duration: 9.5, text: 'First I open it. Then the title. And save.',
      segments: [segment(0, 0.0, 1.2, ' First I open it.'), segment(1, 5.5, 6.0, ' Then the title.'), segment(2, 9.0, 9.5, ' And save.')],
    },
  });
  try {
    const recordings = await swapRecordings({ transcriber: createTranscriber({ baseUrl: whisper.url + '/v1', apiKey: 'tk-1' }) });
    const { user, agent, thread } = await owner();
    const started = (await start(user.token, { agent_id: agent.id, thread_id: thread.id })).body;
    const person = input(recordings, agent.id, user.id, Date.parse(started.started_at));
    person.click(412, 230, 5000);
    person.type('quarterly report', 6000);
    person.ctrl('s', 8000);
    // Someone else's input (another viewer of the same agent) is not the demonstration.
    recordings.input(agent.id, { kind: 'mouse', x: 1, y: 1, mask: 1, at: Date.parse(started.started_at) + 8500, userId: user.id + 1000 });
    await stop(user.token, { agent_id: agent.id });
    assert.is((await audio(user.token, started.session_id, 'webm audio bytes', 'audio/webm;codecs=opus')).status, 202);
    const step = await summaryStep(user.token, thread.id);

    assert.is(whisper.heard.length, 1);
    const [heard] = whisper.heard;
    assert.is(heard.url, '/v1/audio/transcriptions');
    assert.is(heard.headers.authorization, 'Bearer tk-1');
    assert.is(heard.form.get('model'), 'whisper-1');
    assert.is(heard.form.get('response_format'), 'verbose_json');
    const file = heard.form.get('file') as File;
    assert.is(file.name, 'audio.webm');
    assert.is(file.type, 'audio/webm');
    assert.is(await file.text(), 'webm audio bytes');

    const timeline = step.user_text.split('\n').filter((l: string) => /^(\d+\. )?\[\d+:\d\d\]/.test(l));
    assert.equal(timeline, [
      '[0:00] said: "First I open it."',
      '1. [0:05] clicked at 412,230',
      '[0:05] said: "Then the title."',
      "2. [0:06] typed 'quarterly report'",
      '3. [0:08] pressed ctrl+s',
      '[0:09] said: "And save."',
    ]);
    assert.not.match(step.user_text, 'No transcript');
  } finally {
    await whisper.close();
  }
});

summaries('a transcription server that fails: the summary says so and still lists the actions and dropped files', async () => {
  const whisper = await transcriptionServer({ status: 500, body: { error: { message: 'model overloaded', type: 'server_error' } } });
  try {
    await swapRecordings({ transcriber: createTranscriber({ baseUrl: whisper.url }) });
    const { user, agent, thread } = await owner();
    const started = (await start(user.token, { agent_id: agent.id, thread_id: thread.id })).body;
    const { url } = await testServer();
    const form = new FormData();
    form.append('file', new Blob(['%PDF-1.4']), 'report.pdf');
    const upload = await fetch(`${url}/api/agents/${agent.id}/upload_file`,
      { method: 'POST', headers: { Authorization: `Bearer ${user.token}` }, body: form });
    assert.is(upload.status, 200);
    await stop(user.token, { agent_id: agent.id });
    await audio(user.token, started.session_id, 'some audio');
    const step = await summaryStep(user.token, thread.id);
    assert.equal(numbered(step.user_text), ['dropped file report.pdf']);
    assert.match(step.user_text, 'No transcript was made: the transcription server answered HTTP 500: model overloaded.');
    assert.is(whisper.heard.length, 1);
  } finally {
    await whisper.close();
  }
});

summaries('without a thread the summary starts a new \'Demonstration\' thread', async () => {
  await restore();
  const user = await newUser('rec');
  const agent = await newAgent(user.id);
  const started = (await start(user.token, { agent_id: agent.id })).body;
  assert.is(started.thread_id, null);
  await audio(user.token, started.session_id, '');
  const thread = await waitFor(async () => (await call(`/api/agents/${agent.id}`, { token: user.token })).body.threads
    .find((t: any) => t.name === 'Demonstration'), 10_000, 'the new thread');
  await summaryStep(user.token, thread.id);
  assert.is(thread.schedule_sequence, null, 'the summary waits for the person\'s next words: it does not start a run');
});

// ---

const model = suite('screenshare: the agent\'s next model call');
let runner: Runner | undefined;
model.after(async () => {
  await runner?.stop();
  await restore();
});

model('"do what I just showed you": the call carries the summary and its keyframes as images', async () => {
  const requests: any[] = [];
  const api = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      requests.push(JSON.parse(raw));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'Done as shown.' }],
        stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      }));
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  try {
    const { parts } = await testServer();
    const desktops = new Map<number, FakeDesktop>();
    const recordings = await swapRecordings({ desktop: (id) => desktops.get(id) ?? null });
    const { user, agent, thread } = await owner();
    desktops.set(agent.id, new FakeDesktop(agent.id));
    const started = (await start(user.token, { agent_id: agent.id, thread_id: thread.id })).body;
    const person = input(recordings, agent.id, user.id, Date.parse(started.started_at));
    person.click(100, 100, 1000);
    person.type('abc', 2500);
    person.click(200, 200, 4000);
    person.ctrl('s', 5500);
    person.click(300, 300, 7000);
    await stop(user.token, { agent_id: agent.id });
    const keyframes = (await storedNames(recordingDir(agent.id, started.session_id))).filter((f) => f.startsWith('keyframes/'));
    assert.equal(keyframes, ['keyframes/0001.png', 'keyframes/0002.png', 'keyframes/0003.png', 'keyframes/0004.png', 'keyframes/0005.png']);
    await audio(user.token, started.session_id, '');
    const summary = await summaryStep(user.token, thread.id);
    assert.match(summary.user_text, 'Screenshots taken at actions 1, 3 and 5 come with this summary.');

    runner = await swapRunner({
      provider: createAnthropic({ apiKey: 'k', baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, model: 'claude-sonnet-4-5-20250929' }),
      filesDir: filesDir(parts.config.dataDir), blobs: parts.blobs,
    });
    await call(`/api/threads/${thread.id}/set-user-input-and-schedule`, { token: user.token, body: { user_text: 'Do what I just showed you' } });
    await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run_all' } });
    await waitFor(() => requests.length > 0, 10_000, 'the model call');

    const [first] = requests[0].messages;
    assert.is(requests[0].messages.length, 1, 'the thread so far is one user turn');
    const texts = first.content.filter((b: any) => b.type === 'text').map((b: any) => b.text);
    assert.is(texts[0], 'Watch me first');
    assert.ok(texts.some((t: string) => t.startsWith('<video_call_summary>') && t.includes("2. [0:02] typed 'abc'")), JSON.stringify(texts).slice(0, 800));
    assert.ok(texts.includes('Screenshot at action 1 (clicked at 100,100), taken as it began:'));
    assert.ok(texts.includes('Screenshot at action 5 (clicked at 300,300), taken as it began:'));
    assert.is(texts.at(-1), 'Do what I just showed you');
    const images = first.content.filter((b: any) => b.type === 'image');
    assert.is(images.length, 3);
    for (const image of images) {
      assert.is(image.source.media_type, 'image/png');
      assert.is(Buffer.from(image.source.data, 'base64').subarray(1, 4).toString(), 'PNG');
    }
  } finally {
    await new Promise<void>((r) => api.close(() => r()));
  }
});

access.run();
limits.run();
summaries.run();
model.run();
