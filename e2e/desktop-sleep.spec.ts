// Sleeping desktops in the browser (issue 48), on a server of its own whose desktops sleep after one idle second: a
// desktop left by its viewer sleeps; the agents grid and the Ops Desktops panel say Sleeping; opening the agent
// screen wakes it and shows the live desktop, and the grid then no longer says it sleeps.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { ADMIN, newUserWithAgent, screenshotBothThemes, signIn, signOut, terminalDrawn } from './fixtures.ts';

const PORT = Number(process.env.E2E_PORT || 8788) + 9;

test.use({ baseURL: `http://localhost:${PORT}` });

let server: ChildProcess;

test.beforeAll(async () => {
  server = spawn(process.execPath, ['--enable-source-maps', `${process.env.BUILD_DIR || 'dist'}/server.mjs`], {
    env: {
      ...process.env, PORT: String(PORT), DATA_DIR: mkdtempSync(join(tmpdir(), 'aw-e2e-sleep-')), STATIC_DIR: `${process.env.BUILD_DIR || 'dist'}/public`,
      DATABASE_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SMTP_PORT: String(PORT + 100), DESKTOP_APPS: 'terminal',
      DESKTOP_IDLE_SLEEP_S: '1', AGENT_UID_BASE: String(4_000_000 + (PORT % 1000) * 1000), LOG_REQUESTS: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await expect.poll(async () => (await fetch(`http://localhost:${PORT}/api/health`).catch(() => null))?.status ?? 0, { timeout: 60_000 }).toBe(200);
});

test.afterAll(async () => {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

test('a desktop left alone sleeps, says so on its card and on the Ops panel, and wakes when its agent screen opens', async ({ page, request }) => {
  test.setTimeout(120_000);
  const admin = (await (await request.post('/api/auth/sign-in', { data: ADMIN })).json()).token;
  const status = await (await request.get('/api/desktops/status', { headers: { Authorization: `Bearer ${admin}` } })).json();
  test.skip(!status.available && !process.env.CI, `desktops are off on this machine: ${status.reason}`);
  expect(status.available, status.reason).toBe(true);

  const name = `Sleeper ${Date.now().toString(36)}`;
  const { agent, token } = await newUserWithAgent(page, request, name);
  const headers = { Authorization: `Bearer ${token}` };
  const sleeping = async () => (await (await request.get(`/api/agents/${agent.id}`, { headers })).json()).desktop_sleeping;

  // Its screen starts the desktop; leaving it, nobody watches, and a second later it sleeps.
  await page.goto(`/agent/${agent.id}`);
  await terminalDrawn(page);
  await page.goto('/');
  await expect.poll(sleeping, { timeout: 30_000 }).toBe(true);
  await page.reload(); // the grid polls every 30 s
  const card = page.locator('.agent-card', { hasText: name });
  await expect(card.getByText('Sleeping', { exact: true })).toBeVisible();
  expect(await axeFindings(page, 'agents grid with a sleeping desktop')).toEqual([]);
  await screenshotBothThemes(page, 'agents-sleeping');

  // Opening it wakes it: the live desktop shows, and the card no longer says Sleeping.
  await card.getByRole('link').click();
  await terminalDrawn(page);
  await expect.poll(sleeping, { timeout: 10_000 }).toBe(false);

  // The admin's Ops panel says which desktops sleep.
  await page.goto('/');
  await expect.poll(sleeping, { timeout: 30_000 }).toBe(true);
  await signOut(page);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/admin/threads');
  const row = page.getByRole('table', { name: 'Desktop placements' }).getByRole('row', { name: new RegExp(name) });
  await expect(row.getByText('Sleeping', { exact: true })).toBeVisible();
  await screenshotBothThemes(page, 'ops-desktops-sleeping');
});
