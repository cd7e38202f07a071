import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, newUser, testServer } from './helpers.ts';

const shapes = suite('http: error shapes and headers');

shapes('health answers ok when the database answers', async () => {
  const res = await call('/api/health');
  assert.is(res.status, 200);
  assert.equal(res.body, { ok: true });
});

shapes('an unknown API route is 404 {detail}', async () => {
  const res = await call('/api/no-such-thing');
  assert.is(res.status, 404);
  assert.equal(res.body, { detail: 'Not found' });
});

shapes('a known route with the wrong method is 405 with Allow', async () => {
  const res = await call('/api/health', { method: 'DELETE' });
  assert.is(res.status, 405);
  assert.is(res.body.detail, 'Method not allowed');
  assert.is(res.headers.get('allow'), 'GET');
});

shapes('a JSON body over 1 MB is 413 {detail}', async () => {
  const { token } = await newUser();
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
  const res = await call('/api/users/me', { method: 'PUT', token, raw: big, headers: { 'Content-Type': 'application/json' } });
  assert.is(res.status, 413);
  assert.match(res.body.detail, /exceeds/);
});

shapes('malformed JSON is 400 {detail}', async () => {
  const { token } = await newUser();
  const res = await call('/api/users/me', { method: 'PUT', token, raw: '{"name":', headers: { 'Content-Type': 'application/json' } });
  assert.is(res.status, 400);
  assert.is(res.body.detail, 'Request body is not valid JSON');
});

shapes('validation errors are 422 with a list of {loc, msg}', async () => {
  const res = await call('/api/auth/sign-in', { body: { email: 'x', password: 'y' } });
  assert.is(res.status, 422);
  assert.ok(Array.isArray(res.body.detail));
  assert.equal(Object.keys(res.body.detail[0]).sort(), ['loc', 'msg', 'type']);
});

shapes('a handler crash is a 500 without internals', async () => {
  const { parts } = await testServer();
  const { Api } = await import('../../server/http/api.ts');
  const api = new Api({ db: parts.db, log: parts.log, identify: (req, options) => parts.auth.identify(req, options) }).get('/boom', () => {
    throw new Error('secret stack detail');
  }, 'public');
  const { createServer } = await import('node:http');
  const errors: string[] = [];
  parts.log.error = (m) => errors.push(m);
  const context = (method = 'GET') => ({ requestId: 'test', ip: null, userAgent: null, method, recorded: 0 });
  const server = createServer((req, res) => api.handle(req, res, new URL(req.url!, 'http://x'), context(req.method)));
  await new Promise<void>((r) => server.listen(0, r));
  const port = (server.address() as any).port;
  const res = await fetch(`http://localhost:${port}/api/boom`);
  const body = await res.json();
  server.close();
  assert.is(res.status, 500);
  assert.equal(body, { detail: 'Internal server error' });
  assert.ok(errors.some((e) => e.includes('secret stack detail')), 'the error is logged on the server');
});

shapes('every response carries the security headers: the page policy outside /api, allow-nothing on the API', async () => {
  const page = await call('/some/page');
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.not.match(csp, /unsafe-inline/);
  assert.is(page.headers.get('x-content-type-options'), 'nosniff');
  assert.is(page.headers.get('x-frame-options'), 'DENY');
  assert.ok(page.headers.get('referrer-policy'));

  const api = await call('/api/health');
  assert.is(api.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
  assert.is(api.headers.get('x-content-type-options'), 'nosniff');
  assert.is(api.headers.get('referrer-policy'), 'no-referrer');
});

shapes('built scripts, styles and maps under /assets carry nosniff and the referrer policy, not the document headers', async () => {
  // No build here: each is a 404, with the standing headers of its kind.
  for (const path of ['/assets/main-ABC123.js', '/assets/chunks/screen-ABC123.js', '/assets/main-ABC123.css', '/assets/main-ABC123.js.map']) {
    const res = await call(path);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff', path);
    assert.is(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', path);
    assert.is(res.headers.get('content-security-policy'), null, path);
    assert.is(res.headers.get('x-frame-options'), null, path);
  }
  // An SVG opened on its own is a document that can run script; so is anything outside /assets.
  for (const path of ['/assets/logo-ABC123.svg', '/favicon.svg', '/main-ABC123.js', '/agent/1']) {
    const res = await call(path);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/, path);
    assert.is(res.headers.get('x-frame-options'), 'DENY', path);
  }
});

shapes.run();
