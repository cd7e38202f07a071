// Schedules, end to end: an admin opens More options → Schedules on an agent, adds one schedule of
// each kind, meets every validation message on the way, edits and deletes; times are typed in the
// browser's local time (here India, UTC+05:30) and stored in UTC.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, screenshotBothThemes, signIn } from './fixtures.ts';

test.use({ timezoneId: 'Asia/Kolkata' });

async function api(page: Page, path: string, init: { method?: string; data?: unknown } = {}) {
  const token = await accessToken(page);
  const res = await page.request.fetch(`/api${path}`, { method: init.method ?? 'GET', headers: { Authorization: `Bearer ${token}` }, data: init.data });
  return { status: res.status(), body: res.status() === 204 ? null : await res.json() };
}

async function openSchedules(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'More options' }).click();
  await page.getByRole('menuitem', { name: 'Schedules' }).click();
  const dialog = page.getByRole('dialog', { name: 'Schedules' });
  await expect(dialog.getByRole('button', { name: '+ Add Schedule' })).toBeVisible();
  return dialog;
}

test('an admin adds each kind of schedule, sees every validation message, edits and deletes', async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  const created = await api(page, '/agents/', { method: 'POST', data: { name: `Scheduled ${Date.now().toString(36)}` } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as number;
  await page.goto(`/agent/${agentId}`);
  const dialog = await openSchedules(page);
  await expect(dialog.getByRole('columnheader')).toHaveText(['Frequency', 'Time/Details', 'Message', 'Actions']);
  await expect(dialog.getByText('No schedules')).toBeVisible();

  const newRow = dialog.locator('tr[data-state="new"]');
  const error = dialog.locator('.schedule-row-error [role="alert"]');
  const add = async (message: string) => {
    await dialog.getByRole('button', { name: '+ Add Schedule' }).click();
    await newRow.getByLabel('Message').fill(message);
  };
  const save = () => newRow.getByRole('button', { name: 'Save' }).click();

  // Daily at 09:00 local = 03:30 UTC.
  await add('Morning summary');
  await expect(newRow.getByLabel('Frequency')).toHaveValue('daily');
  await newRow.getByLabel('Time', { exact: true }).fill('09:00');
  await save();
  await expect(newRow).toHaveCount(0);

  // Weekly: no weekday yet.
  await add('Weekly review');
  await newRow.getByLabel('Frequency').selectOption('weekly');
  await newRow.getByLabel('Time', { exact: true }).fill('18:45');
  await save();
  await expect(error).toHaveText('Select at least one weekday');
  await newRow.getByRole('button', { name: 'Mon' }).click();
  await newRow.getByRole('button', { name: 'Wed' }).click();
  await expect(newRow.getByRole('button', { name: 'Mon' })).toHaveAttribute('aria-pressed', 'true');
  await newRow.getByLabel('Week interval').fill('2');
  await save();
  await expect(newRow).toHaveCount(0);

  // Monthly: the day must be 1-31.
  await add('Invoices');
  await newRow.getByLabel('Frequency').selectOption('monthly');
  await expect(newRow.getByLabel('Day of month')).toHaveValue('1');
  await newRow.getByLabel('Day of month').fill('32');
  await newRow.getByLabel('Time', { exact: true }).fill('07:00');
  await save();
  await expect(error).toHaveText('Day of month must be between 1 and 31');
  await newRow.getByLabel('Day of month').fill('31');
  await save();
  await expect(newRow).toHaveCount(0);

  // Interval: more than 0 seconds.
  await add('Check the queue');
  await newRow.getByLabel('Frequency').selectOption('interval');
  await expect(newRow.getByLabel('Interval (seconds)')).toHaveValue('60');
  await newRow.getByLabel('Interval (seconds)').fill('0');
  await save();
  await expect(error).toHaveText('Interval (seconds) must be > 0');
  await newRow.getByLabel('Interval (seconds)').fill('3600');
  await save();
  await expect(newRow).toHaveCount(0);

  // A time that is not HH:MM (the field cleared).
  await add('No time');
  await newRow.getByLabel('Time', { exact: true }).fill('');
  await save();
  await expect(error).toHaveText('Time must be in HH:MM format');
  await screenshotBothThemes(page, 'schedules-validation');
  await newRow.getByRole('button', { name: 'Cancel' }).click();
  await expect(newRow).toHaveCount(0);

  const saved = dialog.locator('tr[data-state="saved"]');
  await expect(saved).toHaveCount(4);
  await expect(saved.nth(0).locator('td').nth(0)).toHaveText('Daily');
  await expect(saved.nth(0).locator('.schedule-details')).toHaveText('09:00');
  await expect(saved.nth(1).locator('.schedule-details')).toHaveText('18:45 · Mon, Wed · every 2 weeks');
  await expect(saved.nth(2).locator('.schedule-details')).toHaveText('07:00 · day 31');
  await expect(saved.nth(3).locator('.schedule-details')).toHaveText('Every 3600 seconds');
  for (let i = 0; i < 4; i++) await expect(saved.nth(i).locator('.schedule-next')).toContainText('Next run:');

  // Stored in UTC: India is 5:30 ahead, so Monday and Wednesday 18:45 stay on those days at 13:15 UTC.
  const stored = (await api(page, `/scheduler/${agentId}`)).body as any[];
  expect(stored.map((s) => [s.frequency, s.schedule_time, s.weekdays, s.week_interval, s.day_of_month, s.interval, s.message])).toEqual([
    ['daily', '03:30', null, null, null, null, 'Morning summary'],
    ['weekly', '13:15', [0, 2], 2, null, null, 'Weekly review'],
    ['monthly', '01:30', null, null, 31, null, 'Invoices'],
    ['interval', null, null, null, null, 3600, 'Check the queue'],
  ]);
  expect(stored[0].next_run).toMatch(/T03:30:00\.000Z$/);
  await screenshotBothThemes(page, 'schedules');

  // Edit the daily one: the form shows local time; saving moves it.
  await saved.nth(0).getByRole('button', { name: 'Edit' }).click();
  const editRow = dialog.locator('tr[data-state="editing"]');
  await expect(editRow.getByLabel('Time', { exact: true })).toHaveValue('09:00');
  await editRow.getByLabel('Time', { exact: true }).fill('10:15');
  await editRow.getByRole('button', { name: 'Save' }).click();
  await expect(editRow).toHaveCount(0);
  await expect(saved.nth(0).locator('.schedule-details')).toHaveText('10:15');

  // Delete asks first; dismissing keeps the row.
  page.once('dialog', (d) => {
    expect(d.message()).toBe('Delete this schedule?');
    void d.dismiss();
  });
  await saved.nth(3).getByRole('button', { name: 'Delete' }).click();
  await expect(saved).toHaveCount(4);
  page.once('dialog', (d) => void d.accept());
  await saved.nth(3).getByRole('button', { name: 'Delete' }).click();
  await expect(saved).toHaveCount(3);

  // Everything survives closing and opening again.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  const again = await openSchedules(page);
  await expect(again.locator('tr[data-state="saved"]')).toHaveCount(3);
  await expect(again.locator('tr[data-state="saved"]').nth(0).locator('.schedule-details')).toHaveText('10:15');
});
