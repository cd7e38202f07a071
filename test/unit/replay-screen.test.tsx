import {
  byRole, cleanup, click, FakeApi, getRole, json, renderScreen, settle, text, USER, waitFor,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { configureHttp, DEFAULTS as HTTP_DEFAULTS } from '../../src/lib/http.ts';
import type { Replay } from '../../src/lib/replay-api.ts';
import { clearResourceCache } from '../../src/lib/use-resource.ts';
import ReplayScreen, { LINK_EXPIRED, LINK_GONE, RUN_NOT_FOUND, SharedReplayScreen } from '../../src/screens/replay/replay-screen.tsx';
import { NO_RECORDING, STILL_GOING } from '../../src/screens/replay/replay-view.tsx';
import { DETAILS, fakePlayers, manualFrames, REPLAY } from './helpers/replay-fakes.ts';

// --- a fake server for one run's replay, recording the Authorization header of each call

type Seen = { method: string; path: string; auth: string | null };

function replayApi(replay: Replay = REPLAY, base = '/api/runs/17') {
  const api = new FakeApi(USER);
  const seen: Seen[] = [];
  const inner = api.fetch;
  api.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost/');
    seen.push({ method: init?.method ?? 'GET', path: url.pathname, auth: new Headers(init?.headers).get('Authorization') });
    return inner(input, init);
  };
  const state = { replay };
  api.on(`GET ${base}/replay`, () => state.replay);
  api.on(`GET ${base}/recording`, () => new Response(new Blob(['4.size,1.0,4.1280,3.800;4.sync,1.0;'])));
  DETAILS.forEach((detail, index) => api.on(`GET ${base}/replay/markers/${index}`, () => detail));
  const calls = (path: string) => seen.filter((s) => s.path === path);
  return { api, seen, state, calls };
}

async function open(replay: Replay = REPLAY) {
  const server = replayApi(replay);
  const players = fakePlayers();
  const clock = manualFrames();
  await renderScreen(server.api, <ReplayScreen runId={17} createPlayer={players.create} frames={clock.frames} />);
  await waitFor(() => text().includes(replay.thread_name ?? 'New chat'), 'the replay');
  await settle();
  return { ...server, players, clock };
}

const markerButtons = () => [...document.querySelectorAll<HTMLButtonElement>('.marker-item')];
const currentMarker = () => markerButtons().findIndex((b) => b.getAttribute('aria-current') === 'step');
const key = (k: string, target: Element = document.body) =>
  act(async () => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
  });
const position = () => document.querySelector('.replay-time time')!.textContent;

// ---

const screen = suite('replay screen: signed in');
screen.after.each(cleanup);

screen('shows the run: thread, agent, start, duration, outcome, cost, and its actions', async () => {
  const { calls } = await open();
  const header = document.querySelector('.replay-header')!.textContent!;
  for (const part of ['Write a note', 'Alice', 'Started', 'Duration 1:00', 'Done', 'Cost $0.01']) assert.ok(header.includes(part), part);
  assert.is(document.querySelector('.replay-meta a')!.getAttribute('href'), '/agent/7');
  for (const name of [/Share/, /Download recording/, /Download video/]) assert.is(byRole('button', name).length, 1, String(name));
  // The recording came with the session's token, once.
  assert.equal(calls('/api/runs/17/recording').map((c) => c.auth?.startsWith('Bearer ')), [true]);
  assert.is(document.title, 'Replay: Write a note · Agent Workspace');
  // The first frame shows: no spinner over the stage.
  assert.is(document.querySelector('.replay-stage')!.getAttribute('data-state'), 'ready');
  assert.is(byRole('status', 'Loading recording').length, 0);
});

screen('the marker list highlights the marker playing, and the player follows the clock less the recording offset', async () => {
  const { players, clock } = await open();
  assert.equal(markerButtons().map((b) => b.querySelector('.marker-time')!.textContent), ['0:01', '0:05', '0:06', '0:20', '0:58']);
  assert.is(currentMarker(), -1);
  assert.is(players.last(), 0, 'before the recording starts, its first frame');
  await click(getRole('button', 'Play'));
  await clock.tick(1_600);
  assert.is(currentMarker(), 0);
  await clock.tick(4_000);
  assert.is(currentMarker(), 1);
  assert.ok(players.last()! > 3_000 && players.last()! < 4_000, `shown ${players.last()}`);
  await click(getRole('button', 'Pause'));
  const paused = position();
  await clock.tick(2_000);
  assert.is(position(), paused);
});

screen('speed and skip idle change how the clock moves', async () => {
  const { clock } = await open();
  const speed = document.querySelector<HTMLSelectElement>('.replay-speed select')!;
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(speed, '8');
    speed.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await click(getRole('button', 'Skip idle'));
  assert.is(getRole('button', 'Skip idle').getAttribute('aria-pressed'), 'true');
  await click(getRole('button', 'Play'));
  // 8× for 5 s of real time: 0:40 is reached, the idle stretch to 0:55 is skipped.
  await clock.tick(5_050);
  assert.is(position(), '0:55');
  assert.is(currentMarker(), 3);
});

screen('clicking a marker seeks there and opens its detail: a model call shows its trace', async () => {
  const { players } = await open();
  await click(markerButtons()[1]);
  await waitFor(() => text().includes('Trace parts') || byRole('tablist').length > 0, 'the trace view');
  assert.is(position(), '0:05');
  assert.is(players.last(), 3_000);
  const detail = document.querySelector('.marker-detail')!;
  assert.ok(detail.textContent!.includes('Model call at 0:05'));
  assert.ok(detail.textContent!.includes('offline-planner'), 'the trace summary');
  assert.ok(detail.textContent!.includes('Opening a terminal.'), 'the response, readable');
  assert.is(currentMarker(), 1);
  assert.ok(markerButtons()[1].hasAttribute('data-opened'));
});

screen('an action shows its input; the other kinds their text; the detail closes', async () => {
  await open();
  await click(markerButtons()[2]);
  await waitFor(() => !!document.querySelector('.marker-action'), 'the action');
  const action = document.querySelector('.marker-action')!.textContent!;
  for (const part of ['computer', 'type', '200, 300', 'ls', '#4', 'done', 'Typed 2 characters.']) assert.ok(action.includes(part), part);
  await click(markerButtons()[3]);
  await waitFor(() => text().includes('Typed: ls ⏎'), 'the take-over text');
  await click(getRole('button', 'Close marker detail'));
  assert.is(document.querySelector('.marker-detail'), null);
});

screen('keys: → and ← step through markers, J and L jump 10 s, space plays; not while typing', async () => {
  const { clock } = await open();
  await key('ArrowRight');
  assert.is(position(), '0:01');
  await key('ArrowRight');
  assert.is(position(), '0:05');
  await key('ArrowLeft');
  assert.is(position(), '0:01');
  await key('l');
  assert.is(position(), '0:11');
  await key('J');
  assert.is(position(), '0:01');
  // Typing in a field (here one the page does not own) moves nothing.
  const input = document.createElement('input');
  document.body.append(input);
  await key('l', input);
  await key('ArrowRight', input);
  assert.is(position(), '0:01');
  await key(' ');
  assert.ok(byRole('button', 'Pause').length === 1, 'space plays');
  await clock.tick(200);
  await key('k');
  assert.ok(byRole('button', 'Play').length === 1, 'K pauses');
});

screen('an open detail follows ← and →', async () => {
  await open();
  await click(markerButtons()[1]);
  await key('ArrowRight');
  await waitFor(() => text().includes('Action at 0:06'), 'the next marker opened');
  assert.is(position(), '0:06');
});

screen('a run still going says so, and Reload fetches the replay and its recording again', async () => {
  const { calls, players } = await open({ ...REPLAY, ended_at: null, outcome: 'running' });
  assert.ok(text().includes(STILL_GOING));
  assert.ok(text().includes('Running'));
  await click(getRole('button', /Reload/));
  await waitFor(() => calls('/api/runs/17/recording').length === 2, 'the recording again');
  assert.is(calls('/api/runs/17/replay').length, 2);
  await waitFor(() => players.state.blobs.length === 2, 'a new player');
  assert.is(players.state.disposed, 1);
});

screen('a recording that stopped early is a notice', async () => {
  await open({ ...REPLAY, recording_stopped: 'The recording stopped at 0:30: the disk is full.' });
  const notice = document.querySelector('.replay-notice[data-tone="warning"]')!;
  assert.is(notice.textContent, 'The recording stopped at 0:30: the disk is full.');
});

screen('a run without a recording shows its markers and says there is none; nothing to download', async () => {
  const { calls, players } = await open({ ...REPLAY, recording_url: null, bytes: 0 });
  assert.ok(text().includes(NO_RECORDING));
  assert.is(markerButtons().length, 5);
  assert.is(calls('/api/runs/17/recording').length, 0);
  assert.is(players.state.blobs.length, 0);
  assert.is(byRole('button', /Download/).length, 0);
});

screen('Share shows only to who may share', async () => {
  await open({ ...REPLAY, can_share: false });
  assert.is(byRole('button', /Share/).length, 0);
});

screen('a run that is not yours is not found', async () => {
  const api = new FakeApi(USER).on('GET /api/runs/99/replay', () => json({ detail: 'Run not found' }, 404));
  await renderScreen(api, <ReplayScreen runId={99} createPlayer={fakePlayers().create} />);
  await waitFor(() => text().includes(RUN_NOT_FOUND), 'not found');
  assert.is(getRole('alert').textContent, RUN_NOT_FOUND);
  assert.is(document.querySelector('.page-message a')!.getAttribute('href'), '/');
});

screen('another failure says what went wrong', async () => {
  const api = new FakeApi(USER).on('GET /api/runs/99/replay', () => json({ detail: 'boom' }, 500));
  await renderScreen(api, <ReplayScreen runId={99} createPlayer={fakePlayers().create} />);
  await waitFor(() => text().includes('Error loading replay: boom'), 'the error');
});

screen.run();

// --- the shared page: no shell, no sign-in, no token

const SHARED_BASE = '/api/replay-shares/by-token/tok123';
const SHARED: Replay = {
  ...REPLAY, can_share: false, recording_url: `${SHARED_BASE}/recording`,
  shared: { by: 'owner@example.test', expires_at: '2025-03-11T10:00:00Z' },
};

let root: Root | null = null;
async function openShared(answer: (path: string) => Response | unknown) {
  const seen: { path: string; auth: string | null; impersonate: string | null }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost/');
    const headers = new Headers(init?.headers);
    seen.push({ path: url.pathname, auth: headers.get('Authorization'), impersonate: headers.get('X-Impersonate-User-Id') });
    const result = answer(url.pathname);
    return result instanceof Response ? result : json(result);
  };
  globalThis.fetch = fetch as typeof globalThis.fetch;
  // A signed-in admin acting as someone must not leak either into a shared link's requests.
  configureHttp({ ...HTTP_DEFAULTS, fetch, getToken: async () => 'secret-token', debug: () => {} });
  localStorage.setItem('impersonateUserId', '5');
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  const players = fakePlayers();
  await act(async () => root!.render(<SharedReplayScreen token="tok123" createPlayer={players.create} frames={manualFrames().frames} />));
  await settle();
  return { seen, players };
}

const realFetch = globalThis.fetch;
const shared = suite('replay screen: shared link');
shared.after.each(async () => {
  if (root) await act(async () => root!.unmount());
  root = null;
  globalThis.fetch = realFetch;
  await cleanup();
  clearResourceCache();
});

shared('opens without sign-in: who shared it and until when, the replay, and no Share', async () => {
  const { seen, players } = await openShared((path) => {
    if (path === SHARED_BASE) return SHARED;
    if (path === `${SHARED_BASE}/recording`) return new Response(new Blob(['4.sync,1.0;']));
    if (path === `${SHARED_BASE}/markers/1`) return DETAILS[1];
    return json({ detail: 'Not Found' }, 404);
  });
  await waitFor(() => text().includes('Write a note'), 'the replay');
  assert.is(document.querySelector('h1')!.textContent, 'Write a note');
  assert.ok(text().includes('Shared by owner@example.test · expires'));
  assert.is(byRole('button', /Share/).length, 0);
  assert.is(document.querySelector('.replay-meta a'), null, 'no link into the app');
  await waitFor(() => players.state.blobs.length === 1, 'the recording');
  await click(markerButtons()[1]);
  await waitFor(() => text().includes('Opening a terminal.'), 'the marker detail');
  assert.equal(seen.map((s) => s.path), [SHARED_BASE, `${SHARED_BASE}/recording`, `${SHARED_BASE}/markers/1`]);
  assert.ok(seen.every((s) => s.auth === null && s.impersonate === null), 'no token, no impersonation');
});

shared('a revoked or unknown link, and an expired one, say so', async () => {
  await openShared(() => json({ detail: 'Not found' }, 404));
  await waitFor(() => text().includes(LINK_GONE), 'revoked');
  await act(async () => root!.unmount());
  root = null;
  clearResourceCache();
  await openShared(() => json({ detail: 'This link has expired' }, 410));
  await waitFor(() => text().includes(LINK_EXPIRED), 'expired');
});

shared.run();

