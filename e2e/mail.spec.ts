// E-mail, end to end: an admin gives an agent an address and the senders it accepts in the Email
// settings modal (and is told when a prefix is taken); a mail sent to that address over SMTP
// (nodemailer, to the server's intake) shows up as a thread in the agent screen with its text.
import nodemailer from 'nodemailer';
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, E2E_MAIL_DOMAIN, E2E_SMTP_PORT, screenshotBothThemes, signIn } from './fixtures.ts';

async function newAgent(page: Page, name: string): Promise<{ id: number }> {
  const token = await accessToken(page);
  const res = await page.request.post('/api/agents/', { headers: { Authorization: `Bearer ${token}` }, data: { name } });
  expect(res.status()).toBe(201);
  return res.json();
}

async function openEmailSettings(page: Page) {
  await page.getByRole('button', { name: 'More options' }).click();
  await page.getByRole('menuitem', { name: 'Email settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Email settings' });
  await expect(dialog.getByLabel('Email prefix')).toBeVisible();
  return dialog;
}

test('an admin sets an address and accepted senders; a mail to it becomes a thread with its text', async ({ page, consoleErrors }) => {
  // An address another agent has is refused (409) on purpose.
  consoleErrors.allow(/409 \(Conflict\) \(at \S+\/email-settings\)/);
  const run = Date.now().toString(36);
  const prefix = `inbox-${run}`;
  await signIn(page, ADMIN.email, ADMIN.password);
  const first = await newAgent(page, `Mail ${run}`);
  const second = await newAgent(page, `Other ${run}`);

  await page.goto(`/agent/${first.id}`);
  let dialog = await openEmailSettings(page);
  await expect(dialog.getByText('No address: set a prefix to receive mail.')).toBeVisible();
  await dialog.getByLabel('Email prefix').fill(`  ${prefix} `);
  await dialog.getByLabel('Accept mail from').fill('boss@example.com\n\n  @partner.example  \n*.corp.example\nbilling-*@example.com\n');
  await expect(dialog.getByText(`${prefix}@${E2E_MAIL_DOMAIN}`, { exact: true })).toBeVisible();
  await screenshotBothThemes(page, 'email-settings');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);

  // Saved as sent: trimmed, one pattern per line, the blank lines gone.
  dialog = await openEmailSettings(page);
  await expect(dialog.getByLabel('Email prefix')).toHaveValue(prefix);
  await expect(dialog.getByLabel('Accept mail from')).toHaveValue('boss@example.com\n@partner.example\n*.corp.example\nbilling-*@example.com');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // The same prefix on another agent, in other letters: the server's 409 text is shown.
  await page.goto(`/agent/${second.id}`);
  dialog = await openEmailSettings(page);
  await dialog.getByLabel('Email prefix').fill(prefix.toUpperCase());
  await dialog.getByRole('button', { name: 'Save' }).click();
  const alert = dialog.getByRole('alert');
  await expect(alert).toContainText('Failed to save email settings');
  await expect(alert).toContainText(`The email prefix "${prefix.toUpperCase()}" is already used by another agent`);
  await screenshotBothThemes(page, 'email-settings-taken');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // A mail from an accepted sender, over SMTP to the server's intake.
  await page.goto(`/agent/${first.id}`);
  await expect(page.getByText('Select a thread')).toBeVisible();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: E2E_SMTP_PORT, secure: false, ignoreTLS: true });
  const info = await transport.sendMail({
    from: 'Jane <jane@partner.example>', to: `${prefix}@${E2E_MAIL_DOMAIN}`,
    subject: `Invoice question ${run}`, text: 'Could you check invoice 4711 against the order?',
  });
  transport.close();
  expect(info.response).toMatch(/^250 /);

  // The agent screen refreshes every 3 s: the thread appears, is selected, and shows the mail.
  await expect(page.getByTestId('current-thread-name')).toHaveText(`Invoice question ${run}`, { timeout: 15_000 });
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages).toContainText('E-mail from jane@partner.example');
  await expect(messages).toContainText('Could you check invoice 4711 against the order?');
  await page.getByRole('button', { name: /: show all threads$/ }).click();
  await expect(page.getByRole('region', { name: 'Scheduled' }).getByText(`Invoice question ${run}`)).toBeVisible();
});
