import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULTS, HttpError, IMPERSONATE_KEY, NetworkError, TIMEOUTS, TimeoutError,
  configureHttp, detailOr, normalizeError, request,
} from '../../src/lib/http.ts';
import type { HttpConfig } from '../../src/lib/http.ts';

type Call = { url: string; method: string; headers: Headers; body: unknown; signal: AbortSignal };
type Responder = (call: Call) => Response | Promise<Response>;

/** Answers with the responders in order (the last one repeats) and records every call. */
function fakeFetch(...responders: Responder[]) {
  const calls: Call[] = [];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const call = {
      url: String(input),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body,
      signal: init.signal!,
    };
    calls.push(call);
    const respond = responders.length > 1 ? responders.shift()! : responders[0];
    return respond(call);
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const json = (status: number, body: unknown, statusText?: string): Responder => () =>
  new Response(JSON.stringify(body), { status, statusText, headers: { 'Content-Type': 'application/json' } });
const text = (status: number, body: string): Responder => () => new Response(body, { status });
const empty = (status: number): Responder => () => new Response(null, { status });
/** Never answers; rejects like fetch does when its signal is or becomes aborted. */
const hang: Responder = ({ signal }) =>
  new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

function setup(overrides: Partial<HttpConfig> = {}) {
  configureHttp({ ...DEFAULTS, storage: { getItem: () => null }, debug: () => {}, ...overrides });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.unreachable('expected the request to fail');
}

// ---

const building = suite('http: request building');
building.before.each(() => reset());
building.after(() => configureHttp(DEFAULTS));

building('joins base URL, path and query, dropping null, undefined and empty values', async () => {
  const { fetch, calls } = fakeFetch(json(200, []));
  setup({ fetch });
  await request('/agents/', { query: { search: 'al ice', page: 2, empty: '', none: null, missing: undefined, on: false } });
  assert.is(calls[0].url, '/api/agents/?search=al+ice&page=2&on=false');
});

building('appends the query with & when the path already has one', async () => {
  const { fetch, calls } = fakeFetch(json(200, []));
  setup({ fetch, baseUrl: 'https://api.test' });
  await request('/threads/1/set-schedule-sequence?x=1', { method: 'post', query: { target_sequence: 3 } });
  assert.is(calls[0].url, 'https://api.test/threads/1/set-schedule-sequence?x=1&target_sequence=3');
  assert.is(calls[0].method, 'POST');
});

building('sends plain objects as JSON with a JSON content type', async () => {
  const { fetch, calls } = fakeFetch(json(201, { id: 1 }));
  setup({ fetch });
  await request('/agents/', { method: 'POST', body: { name: 'Alice' } });
  assert.is(calls[0].body, '{"name":"Alice"}');
  assert.is(calls[0].headers.get('content-type'), 'application/json');
});

building('gives bodiless requests the JSON content type as well', async () => {
  const { fetch, calls } = fakeFetch(json(200, {}));
  setup({ fetch });
  await request('/users/me');
  assert.is(calls[0].method, 'GET');
  assert.is(calls[0].body, undefined);
  assert.is(calls[0].headers.get('content-type'), 'application/json');
});

building('sends FormData as is, leaving the multipart content type to the browser', async () => {
  const { fetch, calls } = fakeFetch(json(200, { file_path: '/f' }));
  setup({ fetch });
  const form = new FormData();
  form.append('file', new Blob(['hi']), 'a.txt');
  await request('/agents/1/upload_file', { method: 'POST', body: form });
  assert.is(calls[0].body, form);
  assert.is(calls[0].headers.get('content-type'), null);
});

building('lets caller headers replace defaults regardless of case', async () => {
  const { fetch, calls } = fakeFetch(json(200, {}));
  setup({ fetch });
  await request('/screenshare/audio-final', {
    method: 'POST',
    body: new Blob(['x']),
    headers: { 'content-type': 'audio/ogg', 'X-Session-Id': 's1' },
  });
  assert.is(calls[0].headers.get('content-type'), 'audio/ogg');
  assert.is(calls[0].headers.get('x-session-id'), 's1');
});

building('adds a bearer token only when the sign-in provider gives one', async () => {
  const { fetch, calls } = fakeFetch(json(200, {}));
  setup({ fetch, getToken: async () => 'tok' });
  await request('/users/me');
  setup({ fetch, getToken: async () => null });
  await request('/users/me');
  assert.is(calls[0].headers.get('authorization'), 'Bearer tok');
  assert.is(calls[1].headers.get('authorization'), null);
});

building('sends X-Impersonate-User-Id whenever an impersonated user id is stored', async () => {
  const { fetch, calls } = fakeFetch(json(200, {}));
  setup({ fetch, storage: { getItem: (key) => (key === IMPERSONATE_KEY ? '42' : null) } });
  await request('/agents/');
  setup({ fetch });
  await request('/agents/');
  assert.is(calls[0].headers.get('x-impersonate-user-id'), '42');
  assert.is(calls[1].headers.get('x-impersonate-user-id'), null);
});

building('reads the impersonated user id from localStorage by default', async () => {
  const { fetch, calls } = fakeFetch(json(200, {}));
  setup({ fetch, storage: DEFAULTS.storage });
  localStorage.setItem('impersonateUserId', '7');
  await request('/agents/');
  assert.is(calls[0].headers.get('x-impersonate-user-id'), '7');
});

building.run();

// ---

const responses = suite('http: responses');
responses.before.each(() => reset());
responses.after(() => configureHttp(DEFAULTS));

responses('parses a JSON body', async () => {
  setup(fakeFetch(json(200, { id: 7, name: 'A' })));
  assert.equal(await request('/agents/7'), { id: 7, name: 'A' });
});

responses('returns null for 204 and for an empty body', async () => {
  setup(fakeFetch(empty(204), text(200, '')));
  assert.is(await request('/agents/7', { method: 'DELETE' }), null);
  assert.is(await request('/agents/7', { method: 'DELETE' }), null);
});

responses('returns text, a blob or nothing when asked', async () => {
  setup(fakeFetch(text(200, 'plain')));
  assert.is(await request('/x', { parse: 'text' }), 'plain');
  const blob = await request<Blob>('/agents/1/screenshot', { parse: 'blob' });
  assert.is(await blob.text(), 'plain');
  assert.is(await request('/x', { parse: 'none' }), undefined);
});

responses('rejects a non-2xx answer with an HttpError carrying status, request and parsed body', async () => {
  setup(fakeFetch(json(404, { detail: 'Agent not found' })));
  const error = await rejection(request('/agents/7'));
  assert.instance(error, HttpError);
  const e = error as HttpError;
  assert.is(e.message, '404 Not Found: GET /api/agents/7');
  assert.is(e.status, 404);
  assert.is(e.method, 'GET');
  assert.is(e.url, '/api/agents/7');
  assert.equal(e.body, { detail: 'Agent not found' });
  assert.is(e.response.status, 404);
});

responses('keeps a non-JSON error body as text and prefers the server status text', async () => {
  setup(fakeFetch(() => new Response('<h1>bad gateway</h1>', { status: 502, statusText: 'Upstream Down' })));
  const error = (await rejection(request('/agents/'))) as HttpError;
  assert.is(error.body, '<h1>bad gateway</h1>');
  assert.is(error.message, '502 Upstream Down: GET /api/agents/');
});

responses.run();

// ---

const auth = suite('http: 401 handling');
auth.before.each(() => reset());
auth.after(() => configureHttp(DEFAULTS));

auth('retries once with a refreshed token and returns the retry result', async () => {
  const { fetch, calls } = fakeFetch(json(401, { detail: 'expired' }), json(200, { ok: true }));
  const asked: unknown[] = [];
  let unauthorized = 0;
  setup({
    fetch,
    getToken: async (opts) => (asked.push(opts), opts?.refresh ? 'fresh' : 'stale'),
    onUnauthorized: () => unauthorized++,
  });
  assert.equal(await request('/users/me'), { ok: true });
  assert.is(calls.length, 2);
  assert.is(calls[0].headers.get('authorization'), 'Bearer stale');
  assert.is(calls[1].headers.get('authorization'), 'Bearer fresh');
  assert.equal(asked[1], { refresh: true });
  assert.is(unauthorized, 0);
});

auth('a second 401 calls onUnauthorized and rejects with "Authentication required", quietly', async () => {
  const { fetch, calls } = fakeFetch(empty(401));
  const logged: unknown[] = [];
  let unauthorized = 0;
  setup({ fetch, getToken: async () => 'tok', onUnauthorized: () => unauthorized++, debug: (...a) => logged.push(a) });
  const error = (await rejection(request('/agents/'))) as HttpError;
  assert.instance(error, HttpError);
  assert.is(error.status, 401);
  assert.is(error.retried, true);
  assert.equal(error.body, { detail: 'Authentication required' });
  assert.equal(normalizeError(error), { detail: 'Authentication required', status_code: 401, from_server: true });
  assert.is(calls.length, 2);
  assert.is(unauthorized, 1);
  assert.is(logged.length, 1);
});

auth("keeps the server's own 401 detail", async () => {
  setup({ ...fakeFetch(json(401, { detail: 'Token revoked' })), getToken: async () => 'tok' });
  const error = (await rejection(request('/agents/'))) as HttpError;
  assert.is(normalizeError(error).detail, 'Token revoked');
});

auth('does not retry when the refresh gives no token', async () => {
  const { fetch, calls } = fakeFetch(empty(401));
  let unauthorized = 0;
  setup({ fetch, getToken: async () => null, onUnauthorized: () => unauthorized++ });
  const error = await rejection(request('/agents/'));
  assert.instance(error, HttpError);
  assert.is(calls.length, 1);
  assert.is(unauthorized, 1);
});

auth.run();

// ---

const failures = suite('http: timeouts and network failures');
failures.before.each(() => reset());
failures.after(() => configureHttp(DEFAULTS));

failures('uses the spec timeouts', () => {
  assert.equal(TIMEOUTS, { default: 10_000, long: 300_000, audio: 120_000 });
});

failures('aborts a slow request and rejects with TimeoutError', async () => {
  const { fetch, calls } = fakeFetch(hang);
  setup({ fetch });
  const error = (await rejection(request('/slow', { timeout: 20 }))) as TimeoutError;
  assert.instance(error, TimeoutError);
  assert.is(error.message, 'Request timed out after 20 ms: GET /api/slow');
  assert.is(error.code, 'ETIMEDOUT');
  assert.ok(error.cause, 'keeps the original error');
  assert.ok(calls[0].signal.aborted);
});

failures('wraps a fetch rejection in NetworkError, keeping the cause', async () => {
  const cause = new TypeError('Failed to fetch');
  setup(fakeFetch(() => Promise.reject(cause)));
  const error = (await rejection(request('/agents/'))) as NetworkError;
  assert.instance(error, NetworkError);
  assert.is(error.code, 'ERR_NETWORK');
  assert.is(error.cause, cause);
  assert.match(error.message, 'GET /api/agents/');
});

failures("rethrows the caller's own abort as is", async () => {
  setup(fakeFetch(hang));
  const controller = new AbortController();
  const reason = new DOMException('navigated away', 'AbortError');
  const pending = request('/agents/', { signal: controller.signal, timeout: 1000 });
  controller.abort(reason);
  const error = await rejection(pending);
  assert.is(error, reason);
  assert.is(normalizeError(error).status_code, 'ERR_CANCELED');
});

failures("parse 'stream': the body as it arrives; the timeout covers the head, the caller's abort the rest", async () => {
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) });
  const { fetch, calls } = fakeFetch(() => new Response(body, { status: 200 }));
  setup({ fetch });
  const controller = new AbortController();
  const stream = await request<ReadableStream<Uint8Array>>('/runs/1/recording', { parse: 'stream', timeout: 20, signal: controller.signal });
  const reader = stream.getReader();
  push.enqueue(new TextEncoder().encode('4.sync'));
  assert.is(new TextDecoder().decode((await reader.read()).value), '4.sync');
  await new Promise((r) => setTimeout(r, 40)); // past the timeout: a stream that is still arriving is not cut
  assert.not.ok(calls[0].signal.aborted, 'the timeout ended with the head');
  controller.abort();
  assert.ok(calls[0].signal.aborted, "the caller's abort still reaches the download");
});

failures.run();

// ---

const normalize = suite('http: normalizeError (spec §8)');
const httpError = (status: number, body: unknown) => new HttpError(new Response(null, { status }), 'POST', '/api/x', body);

normalize('uses a string detail and the HTTP status', () => {
  assert.equal(normalizeError(httpError(404, { detail: 'Agent not found' })), { detail: 'Agent not found', status_code: 404, from_server: true });
});

normalize("joins a list detail's msg values with '; '", () => {
  const body = { detail: [{ loc: ['body', 'name'], msg: 'field required' }, { loc: ['query'], msg: 'bad page' }] };
  assert.is(normalizeError(httpError(422, body)).detail, 'field required; bad page');
});

normalize("uses an object detail's message, else its error", () => {
  assert.is(normalizeError(httpError(400, { detail: { message: 'Limit too low', error: 'x' } })).detail, 'Limit too low');
  assert.is(normalizeError(httpError(400, { detail: { error: 'stripe_failed' } })).detail, 'stripe_failed');
});

normalize("falls back to the error's message when there is no usable detail", () => {
  const plain = normalizeError(httpError(500, 'Internal Server Error'));
  assert.equal(plain, { detail: '500 Internal Server Error: POST /api/x', status_code: 500, from_server: false });
  assert.is(normalizeError(httpError(400, { detail: { code: 1 } })).detail, '400 Bad Request: POST /api/x');
  assert.is(normalizeError(httpError(422, { detail: [] })).detail, '422 Unprocessable Entity: POST /api/x');
});

normalize("falls back to 'An error occurred' when there is no message either", () => {
  assert.equal(normalizeError(new Error('')), { detail: 'An error occurred', status_code: 500, from_server: false });
  assert.equal(normalizeError(null), { detail: 'An error occurred', status_code: 500, from_server: false });
  assert.equal(normalizeError(undefined), { detail: 'An error occurred', status_code: 500, from_server: false });
});

normalize('treats other throwables as a 500 with their message', () => {
  assert.equal(normalizeError(new TypeError('x is undefined')), { detail: 'x is undefined', status_code: 500, from_server: false });
  assert.equal(normalizeError('boom'), { detail: 'boom', status_code: 500, from_server: false });
  assert.equal(normalizeError({ detail: 'plain object' }), { detail: 'plain object', status_code: 500, from_server: true });
});

normalize("gives timeouts and network failures the client's own codes", () => {
  const timeout = normalizeError(new TimeoutError(10_000, 'GET', '/api/x'));
  assert.equal(timeout, { detail: 'Request timed out after 10000 ms: GET /api/x', status_code: 'ETIMEDOUT', from_server: false });
  assert.is(normalizeError(new NetworkError('GET', '/api/x')).status_code, 'ERR_NETWORK');
});

normalize('is idempotent', () => {
  const once = normalizeError(httpError(403, { detail: 'Forbidden: Admins only' }));
  assert.equal(normalizeError(once), once);
  const code = normalizeError(new TimeoutError(5, 'GET', '/api/x'));
  assert.equal(normalizeError(code), code);
});

normalize("detailOr: the server's detail, else the situation's fallback, never a status line", () => {
  assert.is(detailOr(httpError(409, { detail: 'Name taken' }), 'Failed to create agent'), 'Name taken');
  assert.is(detailOr(httpError(500, 'Internal Server Error'), 'Failed to create agent'), 'Failed to create agent');
  assert.is(detailOr(new NetworkError('POST', '/api/agents/'), 'Failed to delete'), 'Failed to delete');
  // useResource keeps normalized errors: the answer is the same from those.
  assert.is(detailOr(normalizeError(httpError(502, '')), 'Failed to fetch reports'), 'Failed to fetch reports');
  assert.is(detailOr(normalizeError(httpError(404, { detail: 'Report not found' })), 'Failed to load report'), 'Report not found');
});

normalize.run();
