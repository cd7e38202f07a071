// The installable app (issue 47): the manifest and its icons, the service worker installing and controlling the page,
// a reload offline served from the shell and a page it has no shell for answered with the offline page, no API answer
// ever in its caches, and a new build's worker taking over on the next visit. Then the browser's half of Web Push:
// Settings → Notifications allows this device (its subscription reaches the server, and a test notification leaves
// for its push service), its events, another device removed; and a help request's one-time link, signed out. Service
// workers are on for this spec only (playwright.config.ts blocks them for the others). Screens in both themes, axe-clean.
import { createECDH, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { axeFindings } from './axe.ts';
import { expect, test } from './console.ts';
import { accessToken, PASSWORD, screenshotBothThemes, signUp, uniqueEmail } from './fixtures.ts';

test.use({ serviceWorkers: 'allow' });

const PUBLIC = join(process.env.BUILD_DIR || 'dist', 'public');
const OFFLINE_ERRORS = /ERR_INTERNET_DISCONNECTED|Failed to fetch|NetworkError|Failed to load resource/;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): [number, number] {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** Every URL path in the page's Cache Storage, by cache name. */
function cachedPaths(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      out[name] = (await (await caches.open(name)).keys()).map((request) => new URL(request.url).pathname);
    }
    return out;
  });
}

async function controlled(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null)).toMatch(/\/sw\.js$/);
}

test('the manifest is linked and valid, and its icons are the sizes it says', async ({ page, request }) => {
  await page.goto('/');
  await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', /^#[0-9a-f]{6}$/);
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('/manifest.webmanifest');
  const res = await request.get(href!);
  expect(res.headers()['content-type']).toBe('application/manifest+json');
  const manifest = await res.json();
  expect(manifest).toMatchObject({ name: 'Agent Workspace', start_url: '/', scope: '/', display: 'standalone' });
  expect(manifest.short_name.length).toBeLessThanOrEqual(12);
  for (const colour of [manifest.theme_color, manifest.background_color]) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
  const purposes = manifest.icons.map((icon: { sizes: string; purpose: string }) => `${icon.sizes} ${icon.purpose}`);
  expect(purposes).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
  for (const icon of manifest.icons) {
    const png = await request.get(icon.src);
    expect(png.headers()['content-type']).toBe('image/png');
    expect(pngSize(await png.body()).join('x')).toBe(icon.sizes);
  }
  // Chromium's own reading of it: no errors, and the page is installable.
  const cdp = await page.context().newCDPSession(page);
  const { errors } = await cdp.send('Page.getAppManifest');
  expect(errors).toEqual([]);
  await controlled(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  // A Playwright context is an incognito profile, where Chromium never installs; nothing else may stand in the way.
  expect(installabilityErrors.map((error) => error.errorId).filter((id) => id !== 'in-incognito')).toEqual([]);
});

test('the worker controls the page, keeps only the build\'s files, and serves the shell or the offline page offline',
  async ({ page, context, request, consoleErrors }) => {
    consoleErrors.allow(OFFLINE_ERRORS);
    const worker = await request.get('/sw.js');
    expect(worker.headers()['cache-control']).toBe('no-cache');
    // The worker's own policy is the page's: it may fetch from this origin only.
    expect(worker.headers()['content-security-policy']).toContain("connect-src 'self'");
    expect(worker.headers()['content-security-policy']).toContain("script-src 'self'");

    await signUp(page);
    await controlled(page);
    await page.goto('/settings/tokens'); // API answers while controlled: the list, the profile, a token
    await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
    const cached = await cachedPaths(page);
    const [name] = Object.keys(cached);
    expect(Object.keys(cached)).toEqual([expect.stringMatching(/^aw-shell-[0-9a-f]{16}$/)]);
    const paths = cached[name];
    expect(paths).toEqual(expect.arrayContaining(['/index.html', '/offline.html', '/icons/icon-192.png']));
    expect(paths.filter((path) => path.startsWith('/api'))).toEqual([]);
    expect(paths.every((path) => /^\/(index\.html|offline\.html|favicon\.svg|icons\/[\w-]+\.png|assets\/[\w/-]+\.(js|css))$/.test(path))).toBe(true);
    const shell = readFileSync(join(PUBLIC, 'index.html'), 'utf8');
    for (const [, asset] of shell.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) expect(paths).toContain(asset);

    await context.setOffline(true);
    const again = await page.reload();
    expect(again?.fromServiceWorker()).toBe(true);
    // The shell runs; without the server it cannot tell who is signed in, so it asks to sign in.
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    // A page that is not the app's (under /api) has no shell: the offline page says what is wrong.
    await page.goto('/api/health');
    await expect(page.getByRole('heading', { name: 'You are offline' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Try again' })).toBeVisible();
    await screenshotBothThemes(page, 'pwa-offline');
    expect(Object.values(await cachedPaths(page)).flat().filter((path) => path.startsWith('/api'))).toEqual([]);
    // Back online, the page asked for comes by itself.
    await context.setOffline(false);
    await expect(page.locator('body')).toContainText('"ok":true');
  });

test('a new build\'s worker takes over on the next visit and drops the old build\'s cache', async ({ page }) => {
  await page.goto('/');
  await controlled(page);
  const before = Object.keys(await cachedPaths(page));
  const file = join(PUBLIC, 'sw.js');
  const original = readFileSync(file);
  const siblings = ['.br', '.gz'].map((suffix) => [file + suffix, readFileSync(file + suffix)] as const);
  try {
    // What a rebuild changes in the worker: its version, so its cache's name. The compressed copies would win over it.
    const version = before[0].slice('aw-shell-'.length);
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    expect(original.toString()).toContain(version);
    writeFileSync(file, original.toString().replace(version, 'feedfacefeedface'));
    for (const [path] of siblings) rmSync(path);
    await page.goto('/settings/tokens'); // the next visit: the browser compares /sw.js byte for byte
    await expect.poll(async () => Object.keys(await cachedPaths(page)), { timeout: 20_000 }).toEqual(['aw-shell-feedfacefeedface']);
    await expect.poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.state)).toBe('activated');
  } finally {
    writeFileSync(file, original);
    for (const [path, bytes] of siblings) writeFileSync(path, bytes);
  }
});

test('a push message shows its notification, and a click on it opens its path in the app\'s window', async ({ page, context }) => {
  await context.grantPermissions(['notifications']);
  await signUp(page);
  await controlled(page);
  const [worker] = context.serviceWorkers();
  expect(worker.url()).toMatch(/\/sw\.js$/);
  // What the push service delivers, as the browser hands it to the worker (PushEvent), then the person's click on it.
  const shown = await worker.evaluate(async () => {
    // The worker's globals (the DOM lib this file is checked with has none of them).
    type Scope = { registration: ServiceWorkerRegistration; dispatchEvent(event: Event): boolean };
    type Events = Record<'PushEvent' | 'NotificationEvent', new (type: string, init: object) => Event>;
    const scope = self as unknown as Scope;
    const { PushEvent, NotificationEvent } = self as unknown as Events;
    const data = JSON.stringify({ type: 'billing.limit_reached', title: 'Spend limit reached', body: 'Runs are paused.',
      url: '/settings/billing', tag: 'billing.limit_reached:0' });
    scope.dispatchEvent(new PushEvent('push', { data }));
    for (let i = 0; i < 50 && !(await scope.registration.getNotifications()).length; i++) await new Promise((r) => setTimeout(r, 100));
    const [notification] = await scope.registration.getNotifications();
    scope.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
    return { title: notification.title, body: notification.body, tag: notification.tag, icon: notification.icon, data: notification.data };
  });
  expect(shown).toEqual({
    title: 'Spend limit reached', body: 'Runs are paused.', tag: 'billing.limit_reached:0',
    icon: expect.stringMatching(/\/icons\/icon-192\.png$/), data: { url: '/settings/billing' },
  });
  await expect(page).toHaveURL(/\/settings\/billing$/); // routed in the open window, no new one
  expect(context.pages()).toHaveLength(1);
});

/** A push service on loopback (the server may post there with WEBHOOK_ALLOW_PRIVATE=1): it keeps what it is sent. */
async function pushService() {
  const received: { path: string; headers: IncomingHttpHeaders; bytes: number }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, bytes: Buffer.concat(chunks).length });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Stands in for the browser's registration with its push service: Chromium refuses push in a Playwright profile
 * (incognito: "Registration failed - permission denied"). The subscription it makes is a real one in every other way
 * (a P-256 key from WebCrypto, a 16-byte secret), for an endpoint on the test's push service; the page's own code
 * asks for it, sends it and later ends it.
 */
function fakePushRegistration(page: Page, endpointBase: string) {
  return page.addInitScript((base) => {
    const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    let current: object | null = null;
    PushManager.prototype.getSubscription = async () => current as PushSubscription | null;
    PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
      const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
      const p256dh = b64url(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
      const auth = b64url(crypto.getRandomValues(new Uint8Array(16)));
      const endpoint = `${base}/push/${crypto.randomUUID()}`;
      const key = options?.applicationServerKey as Uint8Array;
      current = {
        endpoint, options: { applicationServerKey: key.slice().buffer, userVisibleOnly: true },
        toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
        unsubscribe: async () => ((current = null), true),
      };
      return current as PushSubscription;
    };
  }, endpointBase);
}

test('Settings → Notifications: allow this device, choose its events, send a test, remove another device, turn it off',
  async ({ page, context }) => {
    const service = await pushService();
    try {
      await context.grantPermissions(['notifications']);
      await fakePushRegistration(page, service.base);
      await signUp(page);
      const auth = { Authorization: `Bearer ${await accessToken(page)}` };
      const devices = async () => (await page.request.get('/api/push/subscriptions', { headers: auth })).json();
      // Another device of the user's, as its browser would have sent it.
      const other = await page.request.post('/api/push/subscriptions', {
        headers: auth,
        data: {
          endpoint: `${service.base}/push/other-phone`, events: ['run.needs_help'], label: 'Firefox on Android',
          keys: { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') },
        },
      });
      expect(other.status()).toBe(201);

      await page.goto('/settings');
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Notifications' }).click();
      await expect(page).toHaveURL(/\/settings\/notifications$/);
      const here = page.getByRole('region', { name: 'This device' });
      await expect(here).toContainText('Notifications are off on this device.');
      await controlled(page);
      const others = page.getByRole('list', { name: 'Other devices' });
      await expect(others).toContainText('Firefox on Android');
      await screenshotBothThemes(page, 'notifications-off');
      expect(await axeFindings(page, 'notifications, off')).toEqual([]);

      await here.getByLabel('Spend limit reached').uncheck();
      await here.getByRole('button', { name: 'Allow notifications on this device' }).click();
      await expect(here).toContainText('Notifications are on for Chrome on Linux.');
      const mine = (await devices()).find((d: { label: string }) => d.label === 'Chrome on Linux');
      expect(mine.events).toEqual(['run.needs_help', 'mail.awaiting_approval', 'run.failed']);
      expect(mine.endpoint_origin).toBe(service.base);

      await here.getByLabel('Spend limit reached').check();
      await expect.poll(async () => (await devices()).find((d: { id: number }) => d.id === mine.id).events)
        .toEqual(['run.needs_help', 'mail.awaiting_approval', 'billing.limit_reached', 'run.failed']);

      await here.getByRole('button', { name: 'Send a test notification' }).click();
      await expect(here.getByRole('status')).toHaveText('Test notification sent. It should arrive within a few seconds.');
      await expect.poll(() => service.received.filter((r) => r.path !== '/push/other-phone').length, { timeout: 10_000 }).toBe(1);
      const [sent] = service.received;
      expect(sent.headers['content-encoding']).toBe('aes128gcm'); // RFC 8291
      expect(sent.headers.authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/); // RFC 8292
      expect(sent.bytes).toBeGreaterThan(0);
      await screenshotBothThemes(page, 'notifications-on');
      expect(await axeFindings(page, 'notifications, on')).toEqual([]);
      // At phone width: nothing scrolls sideways, and the controls are big enough to tap.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      for (const control of await here.getByRole('button').all()) expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await screenshotBothThemes(page, 'notifications-phone');
      await page.setViewportSize({ width: 1280, height: 720 });

      await others.getByRole('button', { name: 'Remove Firefox on Android' }).click();
      await expect(page.getByText('No other devices get notifications.')).toBeVisible();
      await here.getByRole('button', { name: 'Turn off on this device' }).click();
      await expect(here).toContainText('Notifications are off on this device.');
      expect(await devices()).toEqual([]);
    } finally {
      await service.close();
    }
  });

test('a help link signed out: the sign-in page first, then the link\'s answer, and the way to the agents', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/404 \(Not Found\)/);
  const email = await signUp(page, uniqueEmail('help'));
  await page.getByRole('button', { name: /^Profile:/ }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto(`/help/${randomBytes(32).toString('base64url')}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText('This link has expired or was already used');
  await expect(page).toHaveURL(/\/help\//);
  await screenshotBothThemes(page, 'help-link-expired');
  expect(await axeFindings(page, 'help link, expired')).toEqual([]);
  await page.getByRole('link', { name: 'Go to your agents' }).click();
  await expect(page).toHaveURL(/\/$/);
});
