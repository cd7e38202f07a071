// What Chromium really receives (CDP encodedDataLength, headers included): the bundle arrives Brotli-
// compressed, the first load stays under 100 KB, and an unchanged agents list asked again costs a
// few hundred bytes whether the browser's cache revalidates it or the page asks with If-None-Match.
import type { CDPSession, Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { request as httpRequest } from 'node:http';
import { signUp } from './fixtures.ts';

/** status: what came over the wire (a 304 that Chromium turned into a 200 from its cache counts as 304). */
type Received = { url: string; status: number; encoding: string | undefined; bytes: number };

/**
 * Collects every response of the page from CDP: bytes are encodedDataLength (headers included) or, for a
 * 304 handed to the page (Chromium reports it as loadingFailed, net::ERR_ABORTED), its header text. A
 * response counts once both its end and its headers (ExtraInfo, which may come after the end) are in.
 */
async function watch(page: Page): Promise<{ cdp: CDPSession; received: Received[] }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  type Seen = { url: string; status: number; encoding?: string; headerBytes: number; headers: boolean; end?: number; counted?: boolean };
  const seen = new Map<string, Seen>();
  const received: Received[] = [];
  const entry = (id: string) => seen.get(id) ?? seen.set(id, { url: '', status: 0, headerBytes: 0, headers: false }).get(id)!;
  const settle = (r: Seen) => {
    if (r.counted || !r.headers || r.end === undefined) return;
    r.counted = true;
    received.push({ url: r.url, status: r.status, encoding: r.encoding, bytes: r.end || r.headerBytes });
  };
  cdp.on('Network.requestWillBeSent', (e) => void (entry(e.requestId).url = e.request.url));
  cdp.on('Network.responseReceivedExtraInfo', (e) => {
    const r = entry(e.requestId);
    r.status = e.statusCode;
    r.headerBytes = e.headersText?.length ?? 0;
    r.encoding = Object.entries(e.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1] as string | undefined;
    r.headers = true;
    settle(r);
  });
  const done = (id: string, bytes: number) => {
    const r = seen.get(id);
    if (!r) return;
    r.end = bytes;
    settle(r);
  };
  cdp.on('Network.loadingFinished', (e) => done(e.requestId, e.encodedDataLength));
  cdp.on('Network.loadingFailed', (e) => done(e.requestId, 0));
  return { cdp, received };
}

/** The plain size of a file on the server (no Accept-Encoding: the uncompressed bytes). */
function plainSize(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
    }).on('error', reject).end();
  });
}

test('the bundle arrives Brotli-compressed and the first load is under 100 KB on the wire', async ({ page, baseURL }) => {
  const { cdp, received } = await watch(page);
  await cdp.send('Network.clearBrowserCache');
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Create an account' })).toBeVisible();
  await expect.poll(() => received.filter((r) => /\/assets\/main-.*\.js$/.test(r.url)).length).toBe(1);

  const bundle = received.find((r) => /\/assets\/main-.*\.js$/.test(r.url))!;
  expect(bundle.status).toBe(200);
  expect(bundle.encoding).toBe('br');
  const plain = await plainSize(bundle.url);
  expect(bundle.bytes).toBeLessThan(plain / 2);
  for (const asset of received.filter((r) => /\/assets\/.*\.(js|css)$/.test(r.url))) expect(asset.encoding, asset.url).toBe('br');
  const total = received.reduce((n, r) => n + r.bytes, 0);
  expect(total).toBeLessThan(100 * 1024);
  expect(baseURL).toBeTruthy();
});

test('an unchanged agents list asked again costs under 400 bytes, cached by the browser or asked conditionally', async ({ page }) => {
  await signUp(page);
  await expect(page.getByText('No agents found')).toBeVisible();
  const { received } = await watch(page);
  const answers = await page.evaluate(async () => {
    const renewed = await fetch('/api/auth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    const headers = { Authorization: `Bearer ${(await renewed.json()).token}` };
    const first = await fetch('/api/agents/', { headers });
    const body = await first.text();
    const etag = first.headers.get('ETag') ?? '';
    // No If-None-Match of our own: Chromium revalidates its stored copy and hands over a 200 with its body.
    const cached = await fetch('/api/agents/', { headers });
    // With one, as useResource asks: Chromium passes the 304 through.
    const conditional = await fetch('/api/agents/', { headers: { ...headers, 'If-None-Match': etag } });
    return { etag, body, cached: { status: cached.status, body: await cached.text() }, conditional: conditional.status };
  });
  expect(answers.etag).toMatch(/^W\/".+"$/);
  expect(answers.cached).toEqual({ status: 200, body: answers.body });
  expect(answers.conditional).toBe(304);
  await expect.poll(() => received.filter((r) => r.url.endsWith('/api/agents/')).length).toBe(3);
  // Each went over the wire as a 304 (the first two with Chromium's own If-None-Match).
  for (const poll of received.filter((r) => r.url.endsWith('/api/agents/'))) {
    expect(poll.status).toBe(304);
    expect(poll.bytes).toBeGreaterThan(0);
    expect(poll.bytes).toBeLessThanOrEqual(400);
  }
});
