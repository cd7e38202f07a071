// The recording flow of the live desktop (spec §4 "Recording"): start → control → stop → upload → the
// summary wait, and the automatic stop by an assistant message newer than the start, with its alert.
import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { configureHttp, DEFAULTS as HTTP_DEFAULTS } from '../../src/lib/http.ts';
import type { Recording } from '../../src/lib/recorder.ts';
import type { ChatMessage } from '../../src/lib/types.ts';
import { clearResourceCache } from '../../src/lib/use-resource.ts';
import { useRecording, type RecordingOptions, type RecordingState } from '../../src/screens/agent/live-desktop/use-recording.ts';
import { FakeSocket } from './helpers/fake-socket.ts';

const STARTED = '2026-03-10T12:00:00.000Z';
let nextId = 10;
const assistant = (text: string, at: string): ChatMessage => (
  { id: ++nextId, agent_id: 7, thread_id: 3, role: 'assistant', user_data: null, assistant_data: { text }, created_at: at });
const created = (m: ChatMessage) => ({ type: 'created', agent_id: 7, message_id: m.id, message: m });
const user = (text: string, at: string): ChatMessage => (
  { id: ++nextId, agent_id: 7, thread_id: 3, role: 'user', user_data: { text }, assistant_data: null, created_at: at });

type Call = { method: string; path: string; body: unknown; headers: Headers };
let calls: Call[] = [];
let alerts: string[] = [];
let failStart = false;
let state: RecordingState;
const control = { takes: 0, releases: 0 };
const mic = { stopped: 0 };
let root: Root | null = null;

const fakeMic = async (): Promise<Recording> => ({
  mimeType: 'audio/webm;codecs=opus',
  async stop() {
    mic.stopped++;
    return new Blob(['opus bytes'], { type: 'audio/webm;codecs=opus' });
  },
});

function Probe(props: Partial<RecordingOptions>) {
  state = useRecording({
    agentId: 7, threadId: 3, controlMode: false,
    takeControl: async () => void control.takes++, releaseControl: () => void control.releases++,
    record: fakeMic, socket: { WebSocket: FakeSocket as unknown as typeof WebSocket, getToken: async () => 'tok' },
    ...props,
  });
  return null;
}

const sleep = (ms: number) => act(() => new Promise<void>((resolve) => setTimeout(resolve, ms)));
const socket = () => FakeSocket.instances[FakeSocket.instances.length - 1];
const posted = (path: string) => calls.filter((c) => c.method === 'POST' && c.path === path);

async function mount(props: Partial<RecordingOptions> = {}) {
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render(<Probe {...props} />));
}

const rec = suite('recording: the browser flow');
rec.before.each(() => {
  reset();
  clearResourceCache();
  sessionStorage.clear();
  FakeSocket.instances = [];
  calls = [];
  alerts = [];
  failStart = false;
  control.takes = control.releases = 0;
  mic.stopped = 0;
  window.alert = (text?: string) => void alerts.push(String(text));
  configureHttp({
    ...HTTP_DEFAULTS,
    storage: null,
    debug: () => {},
    fetch: async (input, init = {}) => {
      const url = new URL(String(input), 'http://localhost');
      const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
      calls.push({ method: init.method ?? 'GET', path: url.pathname, body, headers: new Headers(init.headers) });
      const json = (status: number, value: unknown) => new Response(JSON.stringify(value), { status, headers: { 'Content-Type': 'application/json' } });
      if (url.pathname === '/api/screenshare/start-recording') {
        if (failStart) return json(503, { detail: 'down' });
        return json(200, { session_id: 'sess-1', agent_id: 7, thread_id: 3, is_recording: true, started_at: STARTED, stopped_at: null });
      }
      if (url.pathname === '/api/screenshare/stop-recording') {
        return json(200, { session_id: 'sess-1', is_recording: false, started_at: STARTED, stopped_at: STARTED });
      }
      if (url.pathname === '/api/screenshare/audio-final') return json(202, { session_id: 'sess-1', received_bytes: 10 });
      if (url.pathname === '/api/messages/agent/7') {
        return json(200, { messages: [assistant('Recording automatically stopped (an old one)', '2026-03-10T11:00:00Z')], total_count: 1 });
      }
      return json(404, { detail: 'Not found' });
    },
  });
});
rec.after.each(async () => {
  if (root) await act(async () => root!.unmount());
  root = null;
  configureHttp(HTTP_DEFAULTS);
});

rec('start: microphone, start-recording for the thread, session storage, then control', async () => {
  await mount();
  assert.is(state.phase, 'idle');
  await act(() => state.start());
  assert.is(state.phase, 'recording');
  assert.equal(posted('/api/screenshare/start-recording').map((c) => c.body), [{ agent_id: 7, thread_id: 3 }]);
  assert.is(sessionStorage.getItem('is_recording_7'), 'true');
  assert.is(sessionStorage.getItem('demo_mode_7'), 'true');
  assert.is(sessionStorage.getItem('session_id_7'), 'sess-1');
  assert.is(control.takes, 1);
  await sleep(150);
  assert.match(socket().url, /\/api\/messages\/agent\/7\/ws\?token=tok$/);
});

rec('already in control: start does not take it again', async () => {
  await mount({ controlMode: true });
  await act(() => state.start());
  assert.is(control.takes, 0);
});

rec('a failed start is logged only: back to idle, the microphone let go, no flag', async () => {
  failStart = true;
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args);
  try {
    await mount();
    await act(() => state.start());
  } finally {
    console.error = original;
  }
  assert.is(state.phase, 'idle');
  assert.is(mic.stopped, 1);
  assert.is(sessionStorage.getItem('is_recording_7'), null);
  assert.is(errors.length, 1);
  assert.is(control.takes, 0);
});

rec('stop: stop-recording, control off, the audio uploaded, then the wait until the summary arrives', async () => {
  await mount();
  await act(() => state.start());
  await sleep(150);
  await act(() => state.stop());
  assert.equal(posted('/api/screenshare/stop-recording').map((c) => c.body), [{ agent_id: 7, session_id: 'sess-1' }]);
  assert.is(sessionStorage.getItem('is_recording_7'), 'false');
  assert.is(sessionStorage.getItem('demo_mode_7'), 'false');
  assert.is(control.releases, 1);
  assert.is(mic.stopped, 1);
  await sleep(10);
  const [upload] = posted('/api/screenshare/audio-final');
  assert.is(upload.headers.get('X-Session-Id'), 'sess-1');
  assert.is(upload.headers.get('Content-Type'), 'audio/webm;codecs=opus');
  assert.is(await (upload.body as Blob).text(), 'opus bytes');
  assert.is(state.phase, 'summarizing');
  await act(async () => socket().push(created(user('not it', '2026-03-10T12:00:05Z'))));
  assert.is(state.phase, 'summarizing');
  await act(async () => socket().push(created(user('<video_call_summary>\n1. [0:01] clicked at 1,2\n</video_call_summary>', '2026-03-10T12:00:06Z'))));
  assert.is(state.phase, 'idle');
  assert.equal(alerts, []);
});

rec('an assistant "Recording automatically stopped" newer than the start stops it with the alert; an older one does not', async () => {
  await mount();
  await act(() => state.start());
  await sleep(150);
  assert.is(state.phase, 'recording', 'the old message on the first page changes nothing');
  await act(async () => socket().push(created(user('Recording automatically stopped, said the user', '2026-03-10T12:00:30Z'))));
  assert.is(state.phase, 'recording', 'only an assistant message counts');
  const stopped = assistant('Recording automatically stopped after 10 minutes, the longest a recording may run.', '2026-03-10T12:10:00Z');
  await act(async () => socket().push(created(stopped)));
  await sleep(10);
  assert.equal(alerts, ['Max recording limit reached']);
  assert.is(state.phase, 'summarizing');
  assert.is(posted('/api/screenshare/stop-recording').length, 1);
  assert.is(posted('/api/screenshare/audio-final').length, 1);
  assert.is(control.releases, 1);
});

rec('after a reload the flag brings back Stop: it ends the session and sends empty audio', async () => {
  sessionStorage.setItem('is_recording_7', 'true');
  sessionStorage.setItem('session_id_7', 'sess-1');
  await mount();
  assert.is(state.phase, 'recording');
  await act(() => state.stop());
  await sleep(10);
  const [upload] = posted('/api/screenshare/audio-final');
  assert.is(upload.headers.get('Content-Type'), 'audio/ogg');
  assert.is((upload.body as Blob).size, 0);
  assert.is(sessionStorage.getItem('recording_started_at_7'), STARTED, 'the start, from the server');
  await sleep(150);
  await act(async () => socket().push(created(user('<video_call_summary>\nnothing\n</video_call_summary>', '2026-03-10T12:00:06Z'))));
  assert.is(state.phase, 'idle');
});

rec.run();
