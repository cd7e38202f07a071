import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { uploadFile } from '../../src/lib/api.ts';
import type { UploadOptions } from '../../src/lib/api.ts';
import { configureHttp, DEFAULTS, HttpError, normalizeError } from '../../src/lib/http.ts';

// --- a fake XMLHttpRequest the test answers by hand

type Handler = ((ev?: any) => void) | null;

function fakeXhr() {
  return class FakeXhr {
    static instances: FakeXhr[] = [];
    method = '';
    url = '';
    headers: Record<string, string> = {};
    body: FormData | null = null;
    timeout = 0;
    status = 0;
    statusText = '';
    responseText = '';
    aborted = false;
    upload: { onprogress: Handler } = { onprogress: null };
    onload: Handler = null;
    onerror: Handler = null;
    ontimeout: Handler = null;
    onabort: Handler = null;
    constructor() {
      FakeXhr.instances.push(this);
    }
    open(method: string, url: string) {
      this.method = method;
      this.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value;
    }
    send(body: FormData) {
      this.body = body;
    }
    abort() {
      this.aborted = true;
      this.onabort?.();
    }
    // the server's side
    progress(loaded: number, total: number) {
      this.upload.onprogress?.({ lengthComputable: true, loaded, total });
    }
    respond(status: number, body: unknown, statusText = '') {
      this.status = status;
      this.statusText = statusText;
      this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
      this.onload?.();
    }
  };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

// The upload goes through http.ts like every call: its transport, token and 401 handling are configured there.
function setup(options: Partial<UploadOptions> = {}, token: string | null = 'tok-1') {
  const Xhr = fakeXhr();
  const tokenCalls: unknown[] = [];
  const progress: number[] = [];
  const unauthorized: number[] = [];
  configureHttp({
    ...DEFAULTS,
    debug: () => {},
    XMLHttpRequest: () => Xhr as unknown as typeof XMLHttpRequest,
    getToken: async (opts) => (tokenCalls.push(opts ?? null), opts?.refresh ? 'tok-2' : token),
    onUnauthorized: () => unauthorized.push(1),
  });
  const file = new File(['hello world'], 'notes.txt', { type: 'text/plain' });
  const upload = (agentId = 7) =>
    uploadFile(agentId, file, {
      onProgress: ({ fraction }) => progress.push(fraction),
      ...options,
    });
  const last = () => Xhr.instances[Xhr.instances.length - 1];
  return { Xhr, file, upload, last, progress, tokenCalls, unauthorized };
}

const up = suite('upload: uploadFile');
up.before.each(reset);

up('posts a multipart form with the single field "file" and resolves with file_path', async () => {
  const ctx = setup();
  const pending = ctx.upload();
  await settle();
  const xhr = ctx.last();
  assert.is(xhr.method, 'POST');
  assert.is(xhr.url, '/api/agents/7/upload_file');
  const fields = [...xhr.body!.keys()];
  assert.equal(fields, ['file']);
  const sent = xhr.body!.get('file') as File;
  assert.is(sent.name, 'notes.txt');
  assert.is(await sent.text(), 'hello world');
  xhr.respond(200, { file_path: 'uploads/7/x/notes.txt', file_name: 'notes.txt', size: 11 });
  assert.equal(await pending, { file_path: 'uploads/7/x/notes.txt', file_name: 'notes.txt', size: 11 });
});

up('sends the Bearer token and X-Impersonate-User-Id, and no Content-Type (the browser sets the boundary)', async () => {
  localStorage.setItem('impersonateUserId', '42');
  const ctx = setup();
  const pending = ctx.upload();
  await settle();
  assert.equal(ctx.last().headers, { Authorization: 'Bearer tok-1', 'X-Impersonate-User-Id': '42' });
  ctx.last().respond(200, { file_path: 'p' });
  await pending;
});

up('without a token sends no Authorization header', async () => {
  const ctx = setup({}, null);
  const pending = ctx.upload();
  await settle();
  assert.equal(ctx.last().headers, {});
  ctx.last().respond(200, { file_path: 'p' });
  await pending;
});

up('reports upload progress as a fraction', async () => {
  const ctx = setup();
  const pending = ctx.upload();
  await settle();
  ctx.last().progress(0, 200);
  ctx.last().progress(50, 200);
  ctx.last().progress(200, 200);
  ctx.last().respond(200, { file_path: 'p' });
  await pending;
  assert.equal(ctx.progress, [0, 0.25, 1]);
});

up('an error answer rejects with HttpError like any request, normalizing to {detail, status_code}', async () => {
  const ctx = setup();
  const pending = ctx.upload();
  await settle();
  ctx.last().respond(413, { detail: 'File too large' }, 'Payload Too Large');
  const error = await pending.then(() => assert.unreachable(), (e) => e);
  assert.instance(error, HttpError);
  assert.is(error.status, 413);
  assert.equal(normalizeError(error), { detail: 'File too large', status_code: 413, from_server: true });
});

up('a validation list is joined and a non-JSON error falls back to the status line', async () => {
  const ctx = setup();
  const first = ctx.upload();
  await settle();
  ctx.last().respond(422, { detail: [{ loc: ['body', 'file'], msg: 'file is required' }, { msg: 'second' }] });
  const error = await first.then(() => assert.unreachable(), (e) => e);
  assert.equal(normalizeError(error), { detail: 'file is required; second', status_code: 422, from_server: true });
  const second = ctx.upload();
  await settle();
  ctx.last().respond(502, '<html>bad gateway</html>', 'Bad Gateway');
  const gateway = await second.then(() => assert.unreachable(), (e) => e);
  assert.equal(normalizeError(gateway), { detail: '502 Bad Gateway: POST /api/agents/7/upload_file', status_code: 502, from_server: false });
});

up('a 401 asks for a fresh token and retries once', async () => {
  const ctx = setup();
  const pending = ctx.upload();
  await settle();
  ctx.last().respond(401, { detail: 'Token expired' });
  await settle();
  assert.is(ctx.Xhr.instances.length, 2);
  assert.is(ctx.last().headers.Authorization, 'Bearer tok-2');
  ctx.last().respond(200, { file_path: 'p' });
  assert.equal(await pending, { file_path: 'p' });
  assert.equal(ctx.tokenCalls, [null, { refresh: true }]);
});

up('a 401 that survives the refresh goes to onUnauthorized, as for every request', async () => {
  const ctx = setup();
  const pending = ctx.upload().then(() => assert.unreachable(), (e) => e);
  await settle();
  ctx.last().respond(401, { detail: 'Token expired' });
  await settle();
  ctx.last().respond(401, {});
  const error = await pending;
  assert.equal(normalizeError(error), { detail: 'Authentication required', status_code: 401, from_server: true });
  assert.equal(ctx.unauthorized, [1]);
});

up('network failure, timeout and abort become ERR_NETWORK, ETIMEDOUT and ERR_CANCELED', async () => {
  const status = (e: unknown) => normalizeError(e).status_code;
  const ctx = setup();
  const net = ctx.upload().then(() => assert.unreachable(), status);
  await settle();
  ctx.last().onerror?.();
  // http.ts's own timer cuts the request off: nothing answers this one
  const slow = uploadFile(7, ctx.file, { timeout: 5 }).then(() => assert.unreachable(), status);
  const controller = new AbortController();
  const aborted = uploadFile(7, ctx.file, { signal: controller.signal }).then(() => assert.unreachable(), status);
  await settle();
  controller.abort();
  assert.equal(await Promise.all([net, slow, aborted]), ['ERR_NETWORK', 'ETIMEDOUT', 'ERR_CANCELED']);
  assert.ok(ctx.last().aborted);
});

up('needs an agent id', async () => {
  const ctx = setup();
  await ctx.upload(0).then(() => assert.unreachable(), (e) => assert.instance(e, TypeError));
  assert.is(ctx.Xhr.instances.length, 0);
});

up.run();
