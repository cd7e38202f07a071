// Shared steps for the journeys: accounts, sign-in through the real form, screenshots in both themes.
import { expect, type APIRequestContext, type Page, type Route } from '@playwright/test';

export const ADMIN = { email: 'admin@e2e.local', password: 'e2e-admin-password' };

/** How the journeys launch Debian's Chromium (playwright.config.ts); specs needing more flags add to it. */
export const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
};
export const PASSWORD = 'e2e user password';
/** The server's SMTP intake (e2e/mail.spec.ts sends to it): a fixed port, as E2E_PORT is. */
export const E2E_SMTP_PORT = Number(process.env.E2E_SMTP_PORT || 2593);
export const E2E_MAIL_DOMAIN = 'mail.e2e.test';

let n = 0;
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${Date.now().toString(36)}-${++n}@example.test`;
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('button', { name: `Profile: ${email}` })).toBeVisible();
}

export async function signUp(page: Page, email = uniqueEmail()): Promise<string> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create an account' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByRole('button', { name: `Profile: ${email}` })).toBeVisible();
  return email;
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Profile:/ }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
}

/** An access token for the signed-in page: page.request shares its refresh cookie. The sign-in
 * endpoints take JSON only (login CSRF), hence the empty JSON body. */
export async function accessToken(page: Page): Promise<string> {
  const res = await page.request.post('/api/auth/token', { data: {} });
  expect(res.ok(), `token: ${res.status()}`).toBe(true);
  return ((await res.json()) as { token: string }).token;
}

/** A new user (signed in on the page) with an agent the admin made for them; returns the agent and the user's token. */
export async function newUserWithAgent(page: Page, request: APIRequestContext, name: string) {
  await signUp(page);
  const token = await accessToken(page);
  const me = await (await page.request.get('/api/users/me', { headers: { Authorization: `Bearer ${token}` } })).json();
  const admin = await (await request.post('/api/auth/sign-in', { data: ADMIN })).json();
  const res = await request.post('/api/agents/', {
    data: { name }, headers: { Authorization: `Bearer ${admin.token}`, 'X-Impersonate-User-Id': String(me.id) },
  });
  expect(res.status()).toBe(201);
  return { agent: await res.json(), token: token as string };
}

/**
 * Waits until the live view has drawn the desktop's terminal (xterm's white window on the black root
 * window): sampled pixels of the display's default layer, read back from its canvas.
 */
export async function terminalDrawn(page: Page): Promise<void> {
  const whiteShare = () => page.locator('.live-display canvas').first().evaluate((canvas: HTMLCanvasElement) => {
    const context = canvas.getContext('2d');
    if (!context || !canvas.width || !canvas.height) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    const step = 4 * 97; // every 97th pixel is plenty
    let white = 0;
    for (let i = 0; i < data.length; i += step) if (data[i] > 240 && data[i + 1] > 240 && data[i + 2] > 240) white++;
    return white / (data.length / step);
  });
  await expect.poll(whiteShare, { timeout: 30_000, message: 'the terminal to show in the live view' }).toBeGreaterThan(0.05);
}

/** Saves a screenshot of the current screen in light and in dark theme (test-results/screens). */
export async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t;
      document.documentElement.style.colorScheme = t;
    }, theme);
    // 'disabled' finishes CSS transitions, so colours are not caught half-way through the switch.
    await page.screenshot({ path: `test-results/screens/${name}-${theme}.png`, fullPage: true, animations: 'disabled' });
  }
}

/**
 * For a journey that stands in for part of an answer: the server's answer, asked for without the page's
 * If-None-Match (a 304 has no body to rewrite), and `fulfil` to send the rewritten JSON without the
 * server's ETag, coding and length (they describe the server's bytes, not these).
 */
export async function rewriteJson(route: Route, change: (body: any) => unknown): Promise<void> {
  const headers = { ...route.request().headers() };
  delete headers['if-none-match'];
  const response = await route.fetch({ headers });
  const server = ['etag', 'content-encoding', 'content-length'];
  const kept = Object.fromEntries(Object.entries(response.headers()).filter(([name]) => !server.includes(name)));
  await route.fulfill({ status: response.status(), headers: kept, json: change(await response.json()) });
}
