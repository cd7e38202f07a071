// Single sign-on in Chromium (issue 49), on a server of its own (OIDC_* set) and a real OpenID Provider (oidc-provider)
// on another site (127.0.0.1, the server on localhost): the sign-in page with the provider's button (screens in both
// themes), Cancel at the provider coming back as a sentence, the provider's own login and consent pages landing a new
// user on the agents grid, sign-out through the provider's logout page, a member of the admin group landing as an
// admin, and, taken out of the group, not an admin at the next sign-in.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { ADMIN, screenshotBothThemes } from './fixtures.ts';
import { startProvider, type TestProvider } from '../test/server/fixtures/oidc-provider.ts';

const PORT = Number(process.env.E2E_PORT || 8788) + 8;
const ORIGIN = `http://localhost:${PORT}`;
const BUTTON = 'Sign in with Test IdP';
const CLIENT = { client_id: 'workspace-e2e', client_secret: 'the e2e client secret, long enough for HS256 too' };
const ANN = { email: `ann-${Date.now().toString(36)}@corp.example`, email_verified: true, name: 'Ann', groups: ['staff'] };
const BOSS = { email: `boss-${Date.now().toString(36)}@corp.example`, email_verified: true, name: 'Boss', groups: ['staff', 'aw-admins'] };

test.use({ baseURL: ORIGIN });

let server: ChildProcess;
let op: TestProvider;
let log = '';

test.beforeAll(async () => {
  op = await startProvider({ rp: ORIGIN, clients: [CLIENT], users: { ann: ANN, boss: BOSS }, consent: true, host: '127.0.0.1' });
  server = spawn(process.execPath, ['--enable-source-maps', `${process.env.BUILD_DIR || 'dist'}/server.mjs`], {
    env: {
      ...process.env, PORT: String(PORT), DATA_DIR: mkdtempSync(join(tmpdir(), 'aw-e2e-oidc-')), STATIC_DIR: `${process.env.BUILD_DIR || 'dist'}/public`,
      DATABASE_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SMTP_PORT: String(PORT + 100), MAIL_DOMAIN: 'oidc.e2e.test',
      AGENT_UID_BASE: String(4_000_000 + (PORT % 1000) * 1000), DESKTOP_PROVIDER: 'none', LOG_REQUESTS: '0',
      OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT.client_id, OIDC_CLIENT_SECRET: CLIENT.client_secret, OIDC_NAME: BUTTON,
      OIDC_SCOPES: 'openid email profile groups', OIDC_ADMIN_GROUPS: 'aw-admins',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  await expect.poll(async () => (await fetch(`${ORIGIN}/api/health`).catch(() => null))?.status ?? 0, { timeout: 60_000 }).toBe(200);
});

test.afterAll(async () => {
  await op?.close();
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

/** From the sign-in page through the provider's login page (and its consent page when it asks) back to the workspace. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.getByRole('link', { name: BUTTON }).click();
  await expect(page).toHaveURL(new RegExp(`^${op.issuer}/interaction/`));
  await page.getByPlaceholder('Enter any login').fill(login);
  await page.getByPlaceholder('and password').fill('whatever the provider takes');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  const landed = page.getByRole('button', { name: /^Profile:/ });
  await expect(consent.or(landed)).toBeVisible();
  if (await consent.isVisible()) await consent.click();
  await expect(landed).toBeVisible();
}

/** Sign-out ends the provider's session too: its own logout page, then back on the sign-in page. */
async function signOutAtProvider(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Profile:/ }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await expect(page.getByRole('link', { name: BUTTON })).toBeVisible();
  expect(page.url()).toBe(`${ORIGIN}/`);
}

test('single sign-on: a new user through the provider\'s pages, an admin by group, and no longer one without it', async ({ page, context }) => {
  // The provider's pages import a web font; nothing here reaches the internet.
  await context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ contentType: 'text/css', body: '' }));

  await page.goto('/');
  await expect(page.getByRole('link', { name: BUTTON })).toBeVisible();
  await expect(page.getByLabel('Password')).toBeVisible();
  await screenshotBothThemes(page, 'sign-in-sso');
  expect(await axeFindings(page, 'sign-in with single sign-on')).toEqual([]);

  // Cancel at the provider: back on the sign-in page with a sentence, the code taken off the address.
  await page.getByRole('link', { name: BUTTON }).click();
  await page.getByRole('link', { name: '[ Cancel ]' }).click();
  await expect(page.getByRole('alert')).toHaveText(/cancelled at your identity provider/);
  expect(page.url()).toBe(`${ORIGIN}/`);
  await screenshotBothThemes(page, 'sign-in-sso-error');

  // A new user: the provider's login and consent pages, then the (empty) agents grid as that user, not an admin.
  await signInAtProvider(page, 'ann');
  await expect(page.getByRole('button', { name: `Profile: ${ANN.email}` })).toBeVisible();
  await expect(page.getByText('No agents found')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Admin Dashboard' })).toHaveCount(0);
  expect(page.url()).toBe(`${ORIGIN}/`);
  await signOutAtProvider(page);

  // In the admin group: an admin.
  await signInAtProvider(page, 'boss');
  await expect(page.getByRole('button', { name: `Profile: ${BOSS.email}` })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Admin Dashboard' })).toBeVisible();
  // The admin's user list says how each account signs in.
  await page.getByRole('button', { name: 'Impersonate User' }).click();
  await page.getByLabel('Search users').fill(ANN.email);
  await expect(page.getByRole('list', { name: 'Users' }).getByText('single sign-on')).toBeVisible();
  await page.keyboard.press('Escape');
  await signOutAtProvider(page);

  // Taken out of the group at the provider: not an admin at the next sign-in.
  op.users.get('boss')!.groups = ['staff'];
  await signInAtProvider(page, 'boss');
  await expect(page.getByRole('button', { name: `Profile: ${BOSS.email}` })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Admin Dashboard' })).toHaveCount(0);
  expect(log).toContain(`sso: ${op.issuer} answered discovery`);
});
