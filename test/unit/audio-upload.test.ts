// The recording's audio upload (spec §7, §9): raw body with X-Session-Id through http.ts, retried 2 s,
// 4 s, then every 8 s until 30 s have gone by, 120 s per attempt, all on a fake clock.
import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULTS, HttpError, NetworkError, TimeoutError, configureHttp } from '../../src/lib/http.ts';
import { uploadAudio, type UploadTimers } from '../../src/lib/audio-upload.ts';

/** A clock that moves only when told; timers fire in order of their due time. */
function fakeClock(): UploadTimers & { advance: (ms: number) => Promise<void>; pending: () => number } {
  let now = 0;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const flush = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(++nextId, { at: now + ms, fn });
      return nextId;
    },
    clearTimeout: (id) => void timers.delete(id as number),
    pending: () => timers.size,
    async advance(ms) {
      const end = now + ms;
      await flush();
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        await flush();
      }
      now = end;
      await flush();
    },
  };
}

type Seen = { at: number; url: string; method: string; headers: Headers; body: unknown };

/** fetch that records each call (on the fake clock) and answers from `reply`; 'hang' waits for the abort. */
function fakeServer(clock: { now: () => number }, reply: (n: number) => Response | 'network' | 'hang') {
  const seen: Seen[] = [];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    seen.push({ at: clock.now(), url: String(input), method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body });
    const r = reply(seen.length);
    if (r === 'network') throw new TypeError('Failed to fetch');
    if (r === 'hang') {
      return new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
    }
    return r;
  }) as typeof globalThis.fetch;
  configureHttp({ ...DEFAULTS, fetch, storage: { getItem: () => null }, debug: () => {}, getToken: async () => 'tok' });
  return seen;
}

const ok = () => new Response(JSON.stringify({ session_id: 's-1', received_bytes: 5 }), { status: 202, headers: { 'Content-Type': 'application/json' } });
const status = (code: number) => new Response(JSON.stringify({ detail: `status ${code}` }), { status: code, headers: { 'Content-Type': 'application/json' } });

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; done: boolean }> {
  const state: { value?: T; error?: unknown; done: boolean } = { done: false };
  promise.then((value) => Object.assign(state, { value, done: true }), (error) => Object.assign(state, { error, done: true }));
  return state;
}

const upload = suite('audio upload');
upload.before.each(() => reset());
upload.after(() => configureHttp(DEFAULTS));

upload('one POST of the raw audio with X-Session-Id and its content type, auth included', async () => {
  const clock = fakeClock();
  const seen = fakeServer(clock, () => ok());
  const audio = new Blob(['abcde'], { type: 'audio/webm;codecs=opus' });
  const receipt = await uploadAudio('s-1', audio, { timers: clock });
  assert.equal(receipt, { session_id: 's-1', received_bytes: 5 });
  assert.is(seen.length, 1);
  assert.is(seen[0].method, 'POST');
  assert.is(seen[0].url, '/api/screenshare/audio-final');
  assert.is(seen[0].headers.get('X-Session-Id'), 's-1');
  assert.is(seen[0].headers.get('Content-Type'), 'audio/webm;codecs=opus');
  assert.is(seen[0].headers.get('Authorization'), 'Bearer tok');
  assert.is(seen[0].body, audio);
  assert.is(clock.pending(), 0, 'the attempt timer is cleared');
});

upload('a recording without a type goes as audio/ogg', async () => {
  const clock = fakeClock();
  const seen = fakeServer(clock, () => ok());
  await uploadAudio('s-1', new Blob([]), { timers: clock });
  assert.is(seen[0].headers.get('Content-Type'), 'audio/ogg');
});

upload('failures are retried after 2, 4, 8, 8, 8 s; at 30 s it gives up with the last error', async () => {
  const clock = fakeClock();
  const seen = fakeServer(clock, () => 'network');
  const retries: number[] = [];
  const result = await settle(uploadAudio('s-1', new Blob(['x']), { timers: clock, onRetry: (_n, delay) => retries.push(delay) }));
  await clock.advance(29_999);
  assert.equal(seen.map((s) => s.at), [0, 2000, 6000, 14_000, 22_000], 'not yet the attempt at 30 s');
  assert.is(result.done, false);
  await clock.advance(1);
  assert.equal(seen.map((s) => s.at), [0, 2000, 6000, 14_000, 22_000, 30_000]);
  assert.equal(retries, [2000, 4000, 8000, 8000, 8000]);
  assert.is(result.done, true);
  assert.instance(result.error, NetworkError);
  await clock.advance(60_000);
  assert.is(seen.length, 6, 'nothing after giving up');
});

upload('5xx, 408 and 429 are retried until one goes through', async () => {
  const clock = fakeClock();
  const seen = fakeServer(clock, (n) => (n === 1 ? status(503) : n === 2 ? status(429) : n === 3 ? status(408) : ok()));
  const result = await settle(uploadAudio('s-1', new Blob(['x']), { timers: clock }));
  await clock.advance(14_000);
  assert.equal(seen.map((s) => s.at), [0, 2000, 6000, 14_000]);
  assert.equal(result.value, { session_id: 's-1', received_bytes: 5 });
});

upload('other 4xx answers (bad session, too large, already received) are final', async () => {
  for (const code of [404, 409, 413, 422]) {
    const clock = fakeClock();
    const seen = fakeServer(clock, () => status(code));
    const result = await settle(uploadAudio('s-1', new Blob(['x']), { timers: clock }));
    await clock.advance(60_000);
    assert.is(seen.length, 1, `HTTP ${code} is not retried`);
    assert.instance(result.error, HttpError);
    assert.is((result.error as HttpError).status, code);
  }
});

upload('an attempt that hangs is cut off at 120 s: past 30 s there is no retry', async () => {
  const clock = fakeClock();
  const seen = fakeServer(clock, () => 'hang');
  const result = await settle(uploadAudio('s-1', new Blob(['x']), { timers: clock }));
  await clock.advance(119_999);
  assert.is(result.done, false);
  await clock.advance(1);
  assert.is(result.done, true);
  assert.instance(result.error, TimeoutError);
  assert.match((result.error as Error).message, 'Request timed out after 120000 ms: POST /api/screenshare/audio-final');
  assert.is(seen.length, 1);
});

upload('a quick timeout is retried like any failure (the timeout is per attempt)', async () => {
  const clock = fakeClock();
  const seen = fakeServer(clock, (n) => (n === 1 ? 'hang' : ok()));
  const result = await settle(uploadAudio('s-1', new Blob(['x']), { timers: clock, timeout: 5000 }));
  await clock.advance(7000);
  assert.equal(seen.map((s) => s.at), [0, 7000]);
  assert.equal(result.value, { session_id: 's-1', received_bytes: 5 });
});

upload.run();
