// Issue 24: a look-alike recipient. The agent (offline model) drafts a reply to boss@exаmple.com —
// a Cyrillic а — and the approval page shows the address that will be sent (xn--) with its Unicode
// form and a warning that its name mixes scripts (in red), in light and dark theme.
import nodemailer from 'nodemailer';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, E2E_MAIL_DOMAIN, E2E_SMTP_PORT, screenshotBothThemes, signIn } from './fixtures.ts';

test('a draft to an IDN look-alike address is shown in ASCII with its Unicode form and a mixed-script warning', async ({ page }) => {
  test.setTimeout(120_000);
  const run = Date.now().toString(36);
  const subject = `Payment ${run}`;
  await signIn(page, ADMIN.email, ADMIN.password);
  const headers = { Authorization: `Bearer ${await accessToken(page)}` };
  const agent = await (await page.request.post('/api/agents/', { headers, data: { name: `Payer ${run}` } })).json();
  const prefix = `payer-${run}`;
  const settings = await page.request.put(`/api/agents/${agent.id}/email-settings`, {
    headers, data: { email_prefix: prefix, email_accept_from_addresses: ['@partner.example'] },
  });
  expect(settings.ok()).toBe(true);
  expect((await page.request.post(`/api/agents/${agent.id}/run-state`, { headers, data: { state: 'run_all' } })).ok()).toBe(true);

  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: E2E_SMTP_PORT, secure: false, ignoreTLS: true });
  await transport.sendMail({
    from: 'Jane <jane@partner.example>', to: `${prefix}@${E2E_MAIL_DOMAIN}`, subject,
    text: 'Please draft an email to boss@ex\u0430mple.com about "Wire today" saying "Please wire the money today."',
  });
  transport.close();

  await page.getByRole('link', { name: 'Ops Dashboard' }).click();
  const row = page.getByRole('table', { name: 'Threads requiring approval' }).getByRole('row').filter({ hasText: subject });
  await expect(async () => {
    await page.reload();
    await expect(row).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await row.getByRole('cell').nth(1).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(subject);

  const draft = page.getByRole('list', { name: 'Communication' }).getByRole('listitem').filter({ hasText: 'Outbound' });
  await expect(draft).toContainText('Requires approval');
  await expect(draft).toContainText(`${prefix}@${E2E_MAIL_DOMAIN} → boss@xn--exmple-4nf.com`);
  const note = draft.getByRole('note', { name: 'International recipient address' });
  await expect(note).toContainText('boss@xn--exmple-4nf.com is written boss@ex\u0430mple.com');
  const mixed = note.getByText('Its name mixes Cyrillic and Latin letters: it can look like another address.');
  await expect(mixed).toBeVisible();
  // Red: the danger colour of the theme in use.
  const [color, danger] = await mixed.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(document.documentElement).getPropertyValue('--danger')]);
  expect(color).toBe(hexToRgb(danger.trim()));
  await draft.scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'admin-thread-idn-warning');
});

function hexToRgb(hex: string): string {
  const n = parseInt(hex.replace('#', ''), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
