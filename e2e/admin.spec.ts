// The admin side, end to end: a mail asks an agent (offline model) to draft a reply; the draft shows up
// on the Ops Dashboard; the admin opens the thread, edits the draft and queues it; it lands in the
// outbox ($DATA_DIR/outbox/*.eml) and the page shows it sent. The Admin Dashboard and agent page list
// the agent and thread; deleting the thread empties the agent page. A user sees 'Forbidden: Admins only.'.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, E2E_MAIL_DOMAIN, E2E_SMTP_PORT, screenshotBothThemes, signIn, signUp } from './fixtures.ts';

const OUTBOX = join(process.env.E2E_DATA_DIR!, 'outbox');

async function adminApi(page: Page) {
  const headers = { Authorization: `Bearer ${await accessToken(page)}` };
  const send = async (method: 'post' | 'put', path: string, data: object) => {
    const res = await page.request[method](`/api${path}`, { headers, data });
    expect(res.ok(), `${method} ${path}: ${res.status()}`).toBe(true);
    return res.json();
  };
  return { post: (path: string, data: object) => send('post', path, data), put: (path: string, data: object) => send('put', path, data) };
}

/** The outbox's .eml files that contain `text`. */
function outboxWith(text: string): string[] {
  if (!existsSync(OUTBOX)) return [];
  return readdirSync(OUTBOX).filter((f) => f.endsWith('.eml') && readFileSync(join(OUTBOX, f), 'utf8').includes(text));
}

test('a drafted reply waits on the Ops Dashboard, is edited and queued by the admin, and lands in the outbox', async ({ page }) => {
  test.setTimeout(120_000);
  const run = Date.now().toString(36);
  const subject = `Invoice ${run}`;
  const edited = `Hello Jane, invoice ${run} matches the order. Regards`;
  await signIn(page, ADMIN.email, ADMIN.password);
  const api = await adminApi(page);
  const agent = await api.post('/agents/', { name: `Mailer ${run}` });
  const prefix = `mailer-${run}`;
  await api.put(`/agents/${agent.id}/email-settings`, { email_prefix: prefix, email_accept_from_addresses: ['@partner.example'] });
  await api.post(`/agents/${agent.id}/run-state`, { state: 'run_all' });

  // The mail tells the agent what to answer; the offline model drafts it with the email tool.
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: E2E_SMTP_PORT, secure: false, ignoreTLS: true });
  const info = await transport.sendMail({
    from: 'Jane <jane@partner.example>', to: `${prefix}@${E2E_MAIL_DOMAIN}`, subject,
    text: `Please draft an email to jane@partner.example about "${subject} checked" saying "Invoice checked, all fine."`,
  });
  transport.close();
  expect(info.response).toMatch(/^250 /);

  // The Ops Dashboard lists the thread once the draft exists (reloaded until then: it refreshes every 30 s).
  await page.getByRole('link', { name: 'Ops Dashboard' }).click();
  await expect(page).toHaveURL(/\/admin\/threads$/); // the rail's target in spec §2; /admin/ops is the alias
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ops Dashboard');
  const opsTable = page.getByRole('table', { name: 'Threads requiring approval' });
  const row = opsTable.getByRole('row').filter({ hasText: subject });
  await expect(async () => {
    await page.reload();
    await expect(row).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await expect(row.getByRole('cell')).toHaveText([subject, `Mailer ${run}`, /^(now|\dm ago)$/]);
  // The data directory's disk as the server measures it, beside the threads.
  const disk = page.getByRole('region', { name: 'Data directory' });
  await expect(disk).toContainText(/^Data directory.*\d+(\.\d)? [KMGT]?B free of \d+(\.\d)? [KMGT]?B · .* kept for the database$/);
  await screenshotBothThemes(page, 'admin-ops');
  // Below the reserve (answered for the browser here: this machine's disk is not full) the panel says so in words.
  await page.route('**/api/admin/storage', (route) => route.fulfill({
    json: { free_bytes: 600 * 1024 ** 2, total_bytes: 50 * 1024 ** 3, reserve_bytes: 1024 ** 3, low: true },
  }));
  await page.reload();
  await expect(disk.getByRole('alert')).toHaveText('Free space is below the reserve: new uploads and mail attachments are refused until space is freed.');
  await expect(disk).toContainText('600.0 MB free of 50.0 GB');
  await screenshotBothThemes(page, 'admin-ops-disk-low');
  await page.unroute('**/api/admin/storage');

  // The thread page: the mail in, the draft out (waiting), and the history of the run.
  await row.getByRole('cell').nth(1).click();
  await expect(page).toHaveURL(/\/admin\/threads\/\d+$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(subject);
  const comms = page.getByRole('list', { name: 'Communication' });
  const inbound = comms.getByRole('listitem').filter({ hasText: 'Inbound' });
  await expect(inbound).toContainText(`jane@partner.example → ${prefix}@${E2E_MAIL_DOMAIN}`);
  const draft = comms.getByRole('listitem').filter({ hasText: 'Outbound' });
  await expect(draft).toContainText('Requires approval');
  await expect(draft).toContainText('Invoice checked, all fine.');
  await expect(draft).toContainText(`${prefix}@${E2E_MAIL_DOMAIN} → jane@partner.example`);
  const history = page.getByRole('list', { name: 'History' });
  await expect(history).toContainText(`E-mail from jane@partner.example`);
  await expect(history.getByRole('button', { name: /^Completed 1 action/ })).toBeVisible();
  await expect(page.getByText('Needs approval')).toBeVisible();
  await screenshotBothThemes(page, 'admin-thread-draft');

  // Its agent's page marks it as waiting for approval; back to the thread from there.
  await page.getByRole('link', { name: `Mailer ${run}` }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Mailer ${run}`);
  const waitingRow = page.getByRole('table', { name: 'Threads' }).getByRole('row').filter({ hasText: subject });
  await expect(waitingRow.getByRole('cell')).toHaveText([subject, 'Idle', '', 'Needs approval', /^(now|\dm ago)$/]);
  await screenshotBothThemes(page, 'admin-agent-waiting');
  await waitingRow.getByRole('cell').nth(3).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(subject);

  // Edit, save, queue.
  await draft.getByRole('button', { name: 'Edit' }).click();
  await draft.getByLabel('Message text').fill(edited);
  await screenshotBothThemes(page, 'admin-thread-editing');
  await draft.getByRole('button', { name: 'Save' }).click();
  await expect(draft.getByLabel('Message text')).toHaveCount(0);
  await expect(draft).toContainText(edited);
  await draft.getByRole('button', { name: 'Queue' }).click();

  // The sender writes it to the outbox; the page polls until it shows the message sent.
  await expect(draft.getByText('Success', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(draft).toContainText(/Sent \d{4}-\d{2}-\d{2}/);
  await expect(draft.getByRole('button')).toHaveCount(0);
  await expect(page.getByText('Needs approval')).toHaveCount(0);
  await expect.poll(() => outboxWith(edited).length, { timeout: 10_000 }).toBe(1);
  const eml = readFileSync(join(OUTBOX, outboxWith(edited)[0]), 'utf8');
  expect(eml).toMatch(/^To: jane@partner\.example$/m);
  expect(eml).toMatch(new RegExp(`^From: ${prefix}@${E2E_MAIL_DOMAIN.replace(/\./g, '\\.')}$`, 'm'));
  expect(eml).toMatch(new RegExp(`^Subject: ${subject} checked$`, 'm'));
  expect(eml.split(/\r?\n\r?\n/).slice(1).join('\n').trim()).toBe(edited);
  await screenshotBothThemes(page, 'admin-thread-sent');

  // No longer on the Ops Dashboard.
  await page.getByRole('link', { name: 'Ops Dashboard' }).click();
  await expect(opsTable.or(page.getByText('No threads found.'))).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: subject })).toHaveCount(0);
  await screenshotBothThemes(page, 'admin-ops-after');

  // The Admin Dashboard lists the agent (On, just active); its page lists the thread.
  await page.getByRole('link', { name: 'Admin Dashboard' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Admin Dashboard');
  const agentRow = page.getByRole('table', { name: 'Agents' }).getByRole('row').filter({ hasText: `Mailer ${run}` });
  await expect(agentRow.getByRole('cell')).toHaveText([`Mailer ${run}`, 'On', '0', '0', /^(now|\dm ago)$/]);
  await screenshotBothThemes(page, 'admin-dashboard');
  await agentRow.getByRole('cell').nth(2).click();
  await expect(page).toHaveURL(new RegExp(`/admin/agents/${agent.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Mailer ${run}`);
  const threadRow = page.getByRole('table', { name: 'Threads' }).getByRole('row').filter({ hasText: subject });
  await expect(threadRow.getByRole('cell')).toHaveText([subject, 'Idle', '', '', /^(now|\dm ago)$/]);
  await screenshotBothThemes(page, 'admin-agent');

  // Delete the thread from its page: back on the agent page, which has none left.
  await threadRow.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(subject);
  page.once('dialog', (dialog) => {
    expect(dialog.message()).toBe('Delete this thread?');
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Delete thread' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/agents/${agent.id}$`));
  await expect(page.getByText('No threads found.')).toBeVisible();
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page).toHaveURL(/\/admin$/);
});

test("a user opening /admin sees 'Forbidden: Admins only.', and the admin API refuses them too", async ({ page }) => {
  await signUp(page);
  await expect(page.getByRole('link', { name: 'Admin Dashboard' })).toHaveCount(0);
  await page.goto('/admin');
  await expect(page.getByText('Forbidden: Admins only.')).toBeVisible();
  await screenshotBothThemes(page, 'admin-forbidden');
  const headers = { Authorization: `Bearer ${await accessToken(page)}` };
  for (const path of ['/admin/agents', '/admin/threads-requiring-approval', '/admin/threads?agent_id=1']) {
    const res = await page.request.get(`/api${path}`, { headers });
    expect(res.status(), path).toBe(403);
    expect(await res.json()).toEqual({ detail: 'Forbidden: Admins only' });
  }
});
