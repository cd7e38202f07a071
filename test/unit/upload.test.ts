import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { uploadFile } from '../../src/lib/upload.ts';
import type { UploadOptions } from '../../src/lib/upload.ts';

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

function setup(options: Partial<UploadOptions> = {}, token: string | null = 'tok-1') {
  const Xhr = fakeXhr();
  const tokenCalls: unknown[] = [];
  const progress: number[] = [];
  const file = new File(['hello world'], 'notes.txt', { type: 'text/plain' });
  const upload = (agentId = 7) =>
    uploadFile(agentId, file, {
      XMLHttpRequest: Xhr as unknown as typeof XMLHttpRequest,
      getToken: async (opts) => (tokenCalls.push(opts ?? null), opts?.refresh ? 'tok-2' : token),
      onProgress: ({ fraction }) => progress.push(fraction),
      ...options,
    });
  const last = () => Xhr.instances[Xhr.instances.length - 1];
  return { Xhr, file, upload, last, progress, tokenCalls };
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
  assert.is(ctx.last().timeout, 300_000);
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

up('an error answer rejects with the normalized {detail, status_code}', async () => {
  const ctx = setup();
  const pending = ctx.upload();
  await settle();
  ctx.last().respond(413, { detail: 'File too large' }, 'Payload Too Large');
  try {
    await pending;
    assert.unreachable();
  } catch (error) {
    assert.equal(error, { detail: 'File too large', status_code: 413 });
  }
});

up('a validation list is joined and a non-JSON error falls back to the status line', async () => {
  const ctx = setup();
  const first = ctx.upload();
  await settle();
  ctx.last().respond(422, { detail: [{ loc: ['body', 'file'], msg: 'file is required' }, { msg: 'second' }] });
  try {
    await first;
    assert.unreachable();
  } catch (error) {
    assert.equal(error, { detail: 'file is required; second', status_code: 422 });
  }
  const second = ctx.upload();
  await settle();
  ctx.last().respond(502, '<html>bad gateway</html>', 'Bad Gateway');
  try {
    await second;
    assert.unreachable();
  } catch (error) {
    assert.equal(error, { detail: '502 Bad Gateway: POST /api/agents/7/upload_file', status_code: 502 });
  }
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

up('network failure, timeout and abort become ERR_NETWORK, ETIMEDOUT and ERR_CANCELED', async () => {
  const outcomes: unknown[] = [];
  const ctx = setup();
  const net = ctx.upload().catch((e) => outcomes.push(e.status_code));
  await settle();
  ctx.last().onerror?.();
  await net;
  const slow = ctx.upload().catch((e) => outcomes.push(e.status_code));
  await settle();
  ctx.last().ontimeout?.();
  await slow;
  const controller = new AbortController();
  const aborted = uploadFile(7, ctx.file, { XMLHttpRequest: ctx.Xhr as unknown as typeof XMLHttpRequest, getToken: async () => null, signal: controller.signal })
    .catch((e) => outcomes.push(e.status_code));
  await settle();
  controller.abort();
  await aborted;
  assert.equal(outcomes, ['ERR_NETWORK', 'ETIMEDOUT', 'ERR_CANCELED']);
  assert.ok(ctx.last().aborted);
});

up('needs an agent id', async () => {
  const ctx = setup();
  try {
    await ctx.upload(0);
    assert.unreachable();
  } catch (error) {
    assert.is((error as { status_code: number }).status_code, 400);
  }
  assert.is(ctx.Xhr.instances.length, 0);
});

up.run();
