// Reports: an agent on the offline model writes 22 reports in one run; the Reports page pages and
// sorts them, lists the entries to review (cut descriptions, rounded percents) until they are marked
// reviewed, and a row opens the report with its line breaks and entries.
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, screenshotBothThemes, signUp, ADMIN } from './fixtures.ts';

type Json = Record<string, unknown>;

/** The API as a given token (the admin creates the user's agent while impersonating them). */
function api(http: APIRequestContext, token: string, headers: Record<string, string> = {}) {
  const call = async <T>(method: 'GET' | 'POST', path: string, data?: Json): Promise<T> => {
    const response = await http.fetch(`/api${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...headers }, data });
    expect(response.ok(), `${method} ${path}: ${response.status()} ${await response.text()}`).toBeTruthy();
    return (await response.json()) as T;
  };
  return { get: <T>(path: string) => call<T>('GET', path), post: <T>(path: string, data: Json) => call<T>('POST', path, data) };
}

const LONG = 'Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ' +
  'ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat';

test('reports: review list, paging, sorting and the detail', async ({ page, request, consoleErrors }) => {
  consoleErrors.allow(/404 \(Not Found\) \(at \S+\/api\/reports\/999999\)/);
  test.setTimeout(120_000);
  await signUp(page);
  const token = await accessToken(page);
  const user = api(page.request, token);
  const me = await user.get<{ id: number }>('/users/me');
  // Only admins create agents: the admin makes this user's agent while acting as them (a separate
  // request context, so the page keeps the user's sign-in).
  const adminToken = ((await (await request.post('/api/auth/sign-in', { data: ADMIN })).json()) as { token: string }).token;
  const agent = await api(request, adminToken, { 'X-Impersonate-User-Id': String(me.id) }).post<{ id: number }>('/agents/', { name: 'Reporter' });

  // R01 … R20 complete, R21 with a long description at 40%, R22 with two lines at 83.4%.
  const clauses = Array.from({ length: 20 }, (_, i) => `write a report R${String(i + 1).padStart(2, '0')}: checked item ${i + 1} (done)`);
  clauses.push(`write a report R21: ${LONG} (40% done)`);
  clauses.push('write a report R22: first line\nsecond line (83.4% done)');
  await user.post(`/agents/${agent.id}/run-state`, { state: 'run_all' });
  await user.post(`/threads/${agent.id}/create-new-thread`, { user_text: clauses.join(', '), user_files: [] });
  await expect.poll(async () => (await user.get<{ total_count: number }>('/reports/?page_size=1')).total_count, { timeout: 90_000 }).toBe(22);

  await page.reload();
  await page.getByTitle('Reports', { exact: true }).click();
  await expect(page).toHaveURL(/\/reports$/);
  await expect(page.getByRole('heading', { name: 'Reports', level: 1 })).toBeVisible();

  // Entries to review: the two below 100%, newest first, description cut at 120 characters.
  const review = page.getByRole('region', { name: 'Entries to review' });
  const reviewTable = review.getByRole('table');
  for (const name of ['Created', 'Report', 'Title', 'Description', 'Completion']) {
    await expect(reviewTable.getByRole('columnheader', { name, exact: true })).toBeVisible();
  }
  const reviewRows = reviewTable.locator('tbody tr');
  await expect(reviewRows).toHaveCount(2);
  await expect(reviewRows.nth(0)).toContainText('R22');
  await expect(reviewRows.nth(0).getByRole('cell').nth(4)).toHaveText('83%');
  await expect(reviewRows.nth(1).getByRole('cell').nth(4)).toHaveText('40%');
  await expect(reviewRows.nth(1).getByRole('cell').nth(3)).toHaveText(`${LONG} (40% done)`.slice(0, 120));
  await expect(reviewRows.nth(1).getByRole('link')).toHaveText(/^R21 #\d+$/);

  // All reports: Newest first, 20 a page.
  const all = page.getByRole('region', { name: 'All reports' });
  const allRows = all.locator('tbody tr');
  for (const name of ['Created', 'Title', 'Description', 'Agent']) {
    await expect(all.getByRole('columnheader', { name, exact: true })).toBeVisible();
  }
  await expect(all.getByLabel('Sort')).toHaveValue('desc');
  await expect(allRows).toHaveCount(20);
  await expect(allRows.first().getByRole('cell').nth(1)).toHaveText('R22');
  await expect(allRows.first().getByRole('cell').nth(3)).toHaveText(`#${agent.id}`);
  await expect(all.getByText('Page 1 / 2')).toBeVisible();
  await expect(all.getByRole('button', { name: 'Prev' })).toBeDisabled();
  await expect(allRows.nth(1).getByRole('cell').nth(2)).toHaveText(`${LONG} (40% done)`.slice(0, 160));
  await screenshotBothThemes(page, 'reports');

  await all.getByRole('button', { name: 'Next' }).click();
  await expect(all.getByText('Page 2 / 2')).toBeVisible();
  await expect(allRows).toHaveCount(2);
  await expect(allRows.nth(1).getByRole('cell').nth(1)).toHaveText('R01');
  await expect(all.getByRole('button', { name: 'Next' })).toBeDisabled();

  await all.getByLabel('Sort').selectOption({ label: 'Oldest' });
  await expect(all.getByText('Page 1 / 2')).toBeVisible();
  await expect(allRows.first().getByRole('cell').nth(1)).toHaveText('R01');
  await expect(allRows).toHaveCount(20);

  // A review row opens its report: line breaks kept, entries with their percent.
  await reviewRows.nth(0).getByRole('cell').nth(2).click();
  await expect(page).toHaveURL(/\/reports\/\d+$/);
  const id = page.url().split('/').pop();
  await expect(page.getByRole('heading', { name: `Report #${id}`, level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'R22' })).toBeVisible();
  await expect(page.getByText(`Agent #${agent.id}`)).toBeVisible();
  const description = page.locator('.report-description');
  await expect(description).toHaveText('first line\nsecond line (83.4% done)');
  expect(await description.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre-wrap');
  const entries = page.getByRole('region', { name: 'Entries' }).getByRole('table');
  for (const name of ['Created', 'Title', 'Description', 'Completion']) {
    await expect(entries.getByRole('columnheader', { name, exact: true })).toBeVisible();
  }
  await expect(entries.locator('tbody tr')).toHaveCount(1);
  await expect(entries.locator('tbody tr').getByRole('cell').nth(3)).toHaveText('83%');
  await screenshotBothThemes(page, 'report-detail');
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page).toHaveURL(/\/reports$/);

  // Marking both entries reviewed clears the list.
  await review.getByRole('button', { name: 'Mark reviewed: "R22"' }).click();
  await expect(reviewRows).toHaveCount(1);
  await review.getByRole('button', { name: 'Mark reviewed: "R21"' }).click();
  await expect(review.getByText('No entries need review.')).toBeVisible();
  await page.reload();
  await expect(page.getByText('No entries need review.')).toBeVisible();
  await screenshotBothThemes(page, 'reports-reviewed');

  // Another user's report is not there for this one.
  await page.goto('/reports/999999');
  await expect(page.getByText('Report not found')).toBeVisible();
  await expect(page.getByText('Report not found')).toHaveClass(/error-text/);
});
