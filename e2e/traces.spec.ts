// LLM traces: an admin's agent answers on the offline model, and its model calls show on the
// LLM Traces page (filters, paging, the detail modal on the response tab).
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, screenshotBothThemes, signIn } from './fixtures.ts';

type Json = Record<string, unknown>;
type TraceRow = { id: number; thread_id: number | null; thread_name: string | null; model: string | null };

/** Calls the API as the signed-in user: the access token comes from the page's refresh cookie. */
async function apiAs(page: Page) {
  const token = await accessToken(page);
  const headers = { Authorization: `Bearer ${token}` };
  const call = async <T>(method: 'GET' | 'POST', path: string, data?: Json): Promise<T> => {
    const response = await page.request.fetch(`/api${path}`, { method, headers, data });
    expect(response.ok(), `${method} ${path}: ${response.status()} ${await response.text()}`).toBeTruthy();
    return (await response.json()) as T;
  };
  return { get: <T>(path: string) => call<T>('GET', path), post: <T>(path: string, data: Json) => call<T>('POST', path, data) };
}

test('an admin sees the traces of an offline run on the LLM Traces page', async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  const api = await apiAs(page);

  // An agent of the admin's own, set to run, given a task the offline model answers.
  const agent = await api.post<{ id: number }>('/agents/', { name: `Tracer ${Date.now().toString(36)}` });
  await api.post(`/agents/${agent.id}/run-state`, { state: 'run' });
  const thread = await api.post<{ id: number }>(`/threads/${agent.id}/create-new-thread`, { user_text: 'write a note saying hello', user_files: [] });

  // The runner writes a trace per model call; wait for the first ones of this thread.
  let traces: TraceRow[] = [];
  await expect
    .poll(async () => {
      traces = (await api.get<{ traces: TraceRow[] }>(`/llm_traces/thread/${thread.id}?limit=100&verbose=false`)).traces;
      return traces.length;
    }, { timeout: 30_000 })
    .toBeGreaterThan(0);
  const first = traces[0];
  const status = await api.get<{ offline: boolean; model: string }>('/models/status');
  expect(status.offline).toBe(true);
  expect(first.model).toBe(status.model);

  // The page: title, offline label, chart, the trace in the table.
  await page.getByTitle('LLM Traces', { exact: true }).click();
  await expect(page).toHaveURL(/\/llm-traces$/);
  await expect(page.getByRole('heading', { name: 'LLM Traces', level: 1 })).toBeVisible();
  await expect(page.getByText('Offline model')).toBeVisible();
  await expect(page.getByRole('img', { name: /Estimated cost per day/ })).toBeVisible();
  const table = page.getByRole('table');
  for (const name of ['ID', 'Owner', 'Timestamp', 'Thread', 'Cache', 'In', 'Out', 'Cost', 'Latency']) {
    await expect(table.getByRole('columnheader', { name, exact: true })).toBeVisible();
  }
  const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: String(first.id), exact: true }) });
  await expect(row).toContainText(ADMIN.email);
  await expect(row).toContainText(first.thread_name ?? '');
  await expect(page.getByText(/^Page 1 \/ \d+$/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Prev' })).toBeDisabled();
  await screenshotBothThemes(page, 'llm-traces');

  // An ID that is not a whole number is refused where it was typed.
  await page.getByLabel('ID From').fill('1.5');
  await expect(page.getByText('Enter a whole number.')).toBeVisible();
  await expect(page.getByLabel('ID From')).toHaveAttribute('aria-invalid', 'true');

  // Filtering by the trace's id leaves exactly that row.
  await page.getByLabel('ID From').fill(String(first.id));
  await page.getByLabel('ID To').fill(String(first.id));
  await expect(page.getByText('Enter a whole number.')).toHaveCount(0);
  await expect(table.getByRole('row')).toHaveCount(2); // the header and the trace
  await expect(row).toBeVisible();
  await expect(page.getByText('Page 1 / 1')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.getByRole('button', { name: 'Reload traces' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);

  // A row opens the trace on its response tab, rendered readably.
  await row.getByRole('cell').nth(2).click();
  const dialog = page.getByRole('dialog', { name: `Trace #${first.id}` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('tab', { name: 'response' })).toHaveAttribute('aria-selected', 'true');
  await expect(dialog.getByRole('tab', { name: 'parameters' })).toBeVisible();
  await expect(dialog.getByRole('tab', { name: 'request' })).toBeVisible();
  await expect(dialog.getByRole('region', { name: 'Response content' })).toBeVisible();
  await expect(dialog.getByText('Offline model')).toBeVisible();
  await screenshotBothThemes(page, 'llm-traces-modal');
  await dialog.getByRole('tab', { name: 'parameters' }).click();
  await expect(dialog.getByRole('tabpanel')).toContainText('"model"');
  await dialog.getByRole('button', { name: 'Close' }).last().click();
  await expect(dialog).toHaveCount(0);

  // A phone-sized screen: the filters stack, the table scrolls sideways inside its box.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  const { total_count: total } = await api.get<{ total_count: number }>('/llm_traces/?page=1&page_size=20');
  await expect(page.getByText(`${total} ${total === 1 ? 'trace' : 'traces'}`, { exact: true })).toBeVisible();
  await page.setViewportSize({ width: 375, height: 800 });
  await expect(table.getByRole('row').nth(1)).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshotBothThemes(page, 'llm-traces-375');
  await table.getByRole('row').nth(1).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await screenshotBothThemes(page, 'llm-traces-modal-375');
});
