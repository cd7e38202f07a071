// Accessibility: axe-core over every screen and modal, in light and in dark theme. A serious or
// critical violation, or any violation of a WCAG 2 A/AA rule, fails the test with its rule, its nodes and the screen it was found on.
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { ADMIN, accessToken, screenshotBothThemes, signIn } from './fixtures.ts';

async function api(page: Page, method: 'GET' | 'POST', path: string, data?: object) {
  const token = await accessToken(page);
  const res = await page.request.fetch(`/api${path}`, { method, data, headers: { Authorization: `Bearer ${token}` } });
  expect(res.ok(), `${method} ${path}: ${res.status()}`).toBe(true);
  return res.json();
}

test('every screen and modal is free of axe violations (serious or critical, or of a WCAG 2 A/AA rule), in both themes', async ({ page }) => {
  test.setTimeout(240_000);
  const found: string[] = [];
  const check = async (screen: string) => found.push(...(await axeFindings(page, screen)));

  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await check('sign-in');

  await signIn(page, ADMIN.email, ADMIN.password);
  // An agent with a thread, a report and traces: the offline model writes the report.
  const agent = await api(page, 'POST', '/agents/', { name: `Axe ${Date.now().toString(36)}` });
  await api(page, 'POST', `/agents/${agent.id}/run-state`, { state: 'run_all' });
  await api(page, 'POST', `/threads/${agent.id}/create-new-thread`, { user_text: 'write a report Checked: all good (50% done)', user_files: [] });
  await expect.poll(async () => (await api(page, 'GET', '/reports/?page_size=1')).total_count, { timeout: 60_000 }).toBeGreaterThan(0);
  const [thread] = (await api(page, 'GET', `/admin/threads?agent_id=${agent.id}`)).threads;

  await page.goto('/');
  await expect(page.locator('.agent-card').filter({ hasText: agent.name }).locator('.agent-card-latest')).toBeVisible();
  await check('Your Agents');
  await screenshotBothThemes(page, 'agents-latest-line');
  await page.getByRole('button', { name: 'More options' }).click();
  await page.getByRole('menuitem', { name: 'Create agent' }).click();
  await expect(page.getByRole('dialog', { name: 'Create Agent' })).toBeVisible();
  await check('Create Agent modal');
  await page.keyboard.press('Escape');

  await page.goto(`/agent/${agent.id}`);
  await expect(page.getByRole('button', { name: /: show all threads$/ })).toBeVisible();
  await expect(page.locator('.live-view')).toBeVisible();
  await check('Agent screen');
  await page.getByRole('button', { name: /: show all threads$/ }).click();
  await expect(page.getByRole('region', { name: 'All threads' })).toBeVisible();
  await check('Agent screen, thread list open');
  await page.keyboard.press('Escape');
  for (const item of ['Developer options', 'Schedules', 'Email settings']) {
    await page.getByRole('button', { name: 'More options' }).click();
    await page.getByRole('menuitem', { name: item }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('status')).toHaveCount(0); // loaded
    await check(`${item} modal`);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
  }
  await page.getByRole('button', { name: 'More options' }).click();
  await page.getByRole('menuitem', { name: 'Show traces' }).click();
  await expect(page.locator('.traces-panel, [aria-label="Traces"]').first()).toBeVisible();
  await check('Agent screen, traces panel');

  const screens: [string, string, () => Promise<void>][] = [
    ['Reports', '/reports', () => expect(page.getByRole('heading', { name: 'All reports' })).toBeVisible()],
    ['Report detail', '', async () => {
      await page.goto('/reports');
      await page.getByRole('row').filter({ hasText: 'Checked' }).first().click();
      await expect(page).toHaveURL(/\/reports\/\d+$/);
    }],
    ['Billing settings', '/settings/billing', () => expect(page.getByRole('heading', { level: 1 })).toBeVisible()],
    ['Admin Dashboard', '/admin', () => expect(page.getByRole('table').first()).toBeVisible()],
    ['Admin agent page', `/admin/agents/${agent.id}`, () => expect(page.getByRole('table').first()).toBeVisible()],
    ['Admin thread page', `/admin/threads/${thread.id}`, () => expect(page.getByRole('heading', { level: 1 })).toBeVisible()],
    ['Ops Dashboard', '/admin/threads', () => expect(page.getByRole('heading', { level: 1 })).toHaveText('Ops Dashboard')],
    ['LLM Traces', '/llm-traces', () => expect(page.getByRole('table').first()).toBeVisible()],
    ['Page not found', '/no/such/page', () => expect(page.getByText('Page not found').first()).toBeVisible()],
  ];
  for (const [name, path, ready] of screens) {
    if (path) await page.goto(path);
    await ready();
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
    await check(name);
  }

  await page.getByTitle('Impersonate User', { exact: true }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await check('Impersonate User modal');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: `Profile: ${ADMIN.email}` }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await check('Profile modal');

  expect(found, found.join('\n')).toEqual([]);
});
