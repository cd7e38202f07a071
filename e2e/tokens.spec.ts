// Personal API tokens in Chromium (issue 46): made under Settings → API tokens and shown once; the token then works
// from outside the browser (a read token reads, and may not write); revoked in the screen, it is refused at once.
// The screen and its dialog in both themes, clean under axe.
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { screenshotBothThemes, signUp } from './fixtures.ts';

test('make a read token, use it from outside the browser, revoke it', async ({ page, request, context, consoleErrors }) => {
  consoleErrors.allow(/403 \(Forbidden\)|401 \(Unauthorized\)/);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signUp(page);
  await page.goto('/settings/tokens');
  await expect(page.getByText('No API tokens yet')).toBeVisible();
  await page.getByRole('button', { name: 'New token' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('Nightly export');
  await expect(dialog.getByLabel('Scope').locator('option')).toHaveCount(2); // no Admin scope for a user
  await dialog.getByRole('button', { name: 'Create' }).click();
  const secret = dialog.getByLabel('Your new token');
  await expect(secret).toHaveValue(/^aw_[A-Za-z0-9_-]{43}$/);
  await expect(dialog).toContainText('Copy it now: it will not be shown again.');
  await screenshotBothThemes(page, 'tokens-new');
  expect(await axeFindings(page, 'new token')).toEqual([]);
  const token = await secret.inputValue();
  await dialog.getByRole('button', { name: 'Copy' }).click();
  await expect(dialog).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.locator('body')).not.toContainText(token);
  const row = page.getByRole('row', { name: /Nightly export/ });
  await expect(row).toContainText(token.slice(0, 10));
  await expect(row).toContainText('Active');

  // From outside the browser: it reads, and may not write.
  const auth = { Authorization: `Bearer ${token}` };
  expect((await request.get('/api/agents/', { headers: auth })).status()).toBe(200);
  const write = await request.post('/api/threads/', { headers: auth, data: { agent_id: 1, name: 'x' } });
  expect(write.status()).toBe(403);
  expect((await write.json()).detail).toMatch(/may only read/);
  await page.reload();
  await expect(page.getByRole('row', { name: /Nightly export/ })).not.toContainText('Never', { timeout: 10_000 }); // last used
  await screenshotBothThemes(page, 'tokens-list');
  expect(await axeFindings(page, 'tokens')).toEqual([]);

  page.once('dialog', (d) => d.accept());
  await page.getByRole('row', { name: /Nightly export/ }).getByRole('button', { name: /Revoke/ }).click();
  await expect(page.getByRole('row', { name: /Nightly export/ })).toContainText('Revoked');
  const refused = await request.get('/api/agents/', { headers: auth });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toEqual({ detail: 'Invalid or expired token' });
});
