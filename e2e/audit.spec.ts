// The audit trail, end to end: an admin acting as a user creates an agent and edits it, the user changes
// their spend limit; the admin finds the Audit trail from the Admin and Ops dashboards, sees the chain
// verified and each change as a sentence naming both people, opens one, filters by action, exports CSV,
// and the page is clean under axe-core in both themes. A user sees 'Forbidden: Admins only'.
import { readFileSync } from 'node:fs';
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { accessToken, ADMIN, screenshotBothThemes, signIn, signUp } from './fixtures.ts';

test('the admin reads who did what: sentences, detail, filters, export, verification', async ({ page, request, consoleErrors }) => {
  // The user's cookie is cleared below while the page still remembers a session: its one renewal is refused.
  consoleErrors.allow(/401 \(Unauthorized\) \(at \S+\/api\/auth\/token\)/);
  const run = Date.now().toString(36);
  // A user, and an admin acting as that user.
  const email = await signUp(page);
  const userToken = await accessToken(page);
  const me = await (await page.request.get('/api/users/me', { headers: { Authorization: `Bearer ${userToken}` } })).json();
  const limit = await page.request.patch('/api/users/me/limit', { headers: { Authorization: `Bearer ${userToken}` }, data: { limit_cents: 2500 } });
  expect(limit.ok()).toBe(true);
  const admin = await (await request.post('/api/auth/sign-in', { data: ADMIN })).json();
  const asUser = { Authorization: `Bearer ${admin.token}`, 'X-Impersonate-User-Id': String(me.id) };
  const created = await request.post('/api/agents/', { headers: asUser, data: { name: `Audited ${run}` } });
  expect(created.status()).toBe(201);
  const agent = await created.json();
  expect((await request.put(`/api/agents/${agent.id}/notes`, { headers: asUser, data: { notes: 'Call Bob on Monday' } })).ok()).toBe(true);

  await page.context().clearCookies();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole('link', { name: 'Ops Dashboard' }).click();
  await expect(page.getByRole('link', { name: 'Audit trail' })).toBeVisible();
  await page.getByRole('link', { name: 'Admin Dashboard' }).click();
  await page.getByRole('link', { name: 'Audit trail' }).click();
  await expect(page).toHaveURL(/\/admin\/audit$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Audit trail');
  await expect(page.getByText(/^Audit trail verified: [\d,]+ events, none changed or missing\.$/)).toBeVisible();

  const events = page.getByRole('list', { name: 'Events' });
  await expect(events.getByText(`${ADMIN.email} as ${email} created agent “Audited ${run}” (#${agent.id})`, { exact: false })).toBeVisible();
  await expect(events.getByText(`${ADMIN.email} as ${email} edited the notes of agent “Audited ${run}” (#${agent.id})`, { exact: false })).toBeVisible();
  await expect(events.getByText(`${email} changed their monthly spend limit from no limit to $25.00`, { exact: false })).toBeVisible();
  await screenshotBothThemes(page, 'admin-audit');

  // One event opens to its detail: who, for whom, from where; the notes' text is not in it.
  const created_ = events.getByRole('listitem').filter({ hasText: `created agent “Audited ${run}”` });
  await created_.locator('summary').click();
  const detail = created_.locator('.audit-detail');
  await expect(detail).toContainText(`Impersonated by${ADMIN.email} (user #`);
  await expect(detail).toContainText('agent.create');
  await expect(detail).toContainText(/127\.0\.0\.1|::1/);
  const notes = events.getByRole('listitem').filter({ hasText: `edited the notes of agent “Audited ${run}” (#${agent.id})` });
  await notes.locator('summary').click();
  await expect(notes.locator('.audit-detail')).not.toContainText('Call Bob');
  await screenshotBothThemes(page, 'admin-audit-detail');

  expect(await axeFindings(page, 'Audit trail')).toEqual([]);

  // Filters: only the billing events of this user.
  await page.getByLabel('Actor').fill(email);
  await page.getByLabel('Action').fill('billing.');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(events.getByRole('listitem')).toHaveCount(1);
  await expect(events).toContainText('changed their monthly spend limit');
  // The filters are in the URL: a reload (or a shared link) shows the same events, with the filters filled in.
  await expect(page).toHaveURL(/\/admin\/audit\?actor=[^&]+&action=billing\.$/);
  await page.reload();
  await expect(page.getByLabel('Actor')).toHaveValue(email);
  await expect(page.getByLabel('Action')).toHaveValue('billing.');
  await expect(events.getByRole('listitem')).toHaveCount(1);

  // The export takes the same filters.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
  expect(csv[0]).toBe('id,at,instance,actor_type,actor_id,actor_label,impersonator_id,impersonator_label,action,target_type,target_id,'
    + 'request_id,ip,user_agent,detail,prev_hash,hash');
  expect(csv).toHaveLength(2);
  expect(csv[1]).toContain('billing.spend_limit');

  // The Admin Dashboard's spend report (the offline model costs nothing, so this month has no spend here).
  await page.getByRole('link', { name: 'Admin Dashboard' }).click();
  await expect(page.getByRole('heading', { name: 'Spend by user' })).toBeVisible();
  await expect(page.getByText(/^No spend in \d{4}-\d{2}$/)).toBeVisible();
  const [spend] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(readFileSync((await spend.path())!, 'utf8').split('\r\n')[0]).toBe('month,user_id,email,spend_usd,limit_usd,status,top_agents');
  await screenshotBothThemes(page, 'admin-dashboard-spend');
  expect(await axeFindings(page, 'Admin Dashboard')).toEqual([]);
});

test('a user is not shown the audit trail', async ({ page }) => {
  await signUp(page);
  await page.goto('/admin/audit');
  await expect(page.getByText('Forbidden: Admins only')).toBeVisible();
});
