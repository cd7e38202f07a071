// Billing: a new user on test credits; billing details edited in the app; a test card added in the
// local portal (a new tab); then usage-based billing with the spend-limit dialog's presets, custom
// amount, invalid input and No limit.
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { screenshotBothThemes, signUp } from './fixtures.ts';

/** Accepts the next alert and returns its text. */
function nextAlert(page: Page): Promise<string> {
  return new Promise((resolve) => page.once('dialog', (d) => void d.accept().then(() => resolve(d.message()))));
}

test('billing: test credits, a card from the portal, and the spend limit', async ({ page, context, consoleErrors }) => {
  // The details form is sent with mistakes on purpose, in the app and in the portal.
  consoleErrors.allow(/422 \(Unprocessable Entity\) \(at \S+\/api\/billing\/(customer|portal)\)/);
  test.setTimeout(90_000);
  const email = await signUp(page);
  await page.getByTitle('Settings', { exact: true }).click();
  await expect(page).toHaveURL(/\/settings\/billing$/);
  await expect(page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Billing' })).toHaveAttribute('aria-current', 'page');

  // Without a payment method: test credits, whole dollars; no banner.
  const spend = page.getByRole('region', { name: 'Current Spend' });
  await expect(spend.getByText('Test credits remaining')).toBeVisible();
  await expect(spend.locator('.spend-amount')).toHaveText('$5');
  await expect(spend.getByText(
    'You can transition to usage-based plan any time by adding a payment method. Your test credits will still be available.',
  )).toBeVisible();
  await expect(spend.getByRole('button', { name: 'Edit limit' })).toHaveCount(0);
  await expect(spend.getByRole('img', { name: /Spend per day this billing period/ })).toBeVisible();
  await expect(spend.getByText('Total due')).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  const payment = page.getByRole('region', { name: 'Payment Method' });
  await expect(payment.getByText('No payment method set.')).toBeVisible();
  const info = page.getByRole('region', { name: 'Billing Information' });
  await expect(info).toContainText(`Email${email}`);
  await expect(info).toContainText('Name—');
  await expect(info).toContainText('Billing address—');
  await screenshotBothThemes(page, 'billing-test-credits');

  // Billing details, edited in the app.
  await info.getByTitle('Edit billing information').click();
  const form = page.getByRole('dialog', { name: 'Edit billing information' });
  await form.getByLabel('Name').fill('Ada Lovelace');
  await form.getByLabel('Address').fill('12 Analytical Street');
  await form.getByLabel('Postal code').fill('10115');
  await form.getByLabel('City').fill('Berlin');
  await form.getByLabel(/Country/).fill('D1');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('alert')).toHaveText('country must be a two-letter country code, such as US or DE');
  await screenshotBothThemes(page, 'billing-info-form');
  await form.getByLabel(/Country/).fill('DE');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toHaveCount(0);
  await expect(info).toContainText('Ada Lovelace');
  await expect(info.locator('.billing-address-line')).toHaveText(['12 Analytical Street', '10115 Berlin', 'DE']);

  // 'Add card' opens the test-mode portal in a new tab.
  const [portal] = await Promise.all([context.waitForEvent('page'), payment.getByRole('button', { name: 'Add card' }).click()]);
  await portal.waitForLoadState();
  await expect(portal.getByText('Test mode')).toBeVisible();
  await expect(portal.getByRole('heading', { name: 'Billing portal' })).toBeVisible();
  await expect(portal.getByText(`Signed in as ${email}`)).toBeVisible();
  await expect(portal.getByLabel('Name')).toHaveValue('Ada Lovelace');
  await screenshotBothThemes(portal, 'billing-portal');
  const year = String(new Date().getFullYear() + 4);
  await portal.getByLabel('Card number').fill('4000 1234 5678 9010');
  await portal.getByLabel('Expiry month').fill('7');
  await portal.getByLabel('Expiry year').fill(year);
  await portal.getByLabel('CVC').fill('123');
  await portal.getByRole('button', { name: 'Add card' }).click();
  await expect(portal.getByText('Test mode takes only test card numbers, such as 4242 4242 4242 4242.')).toBeVisible();
  await expect(portal.getByLabel('Card number')).toHaveAttribute('aria-invalid', 'true');
  await screenshotBothThemes(portal, 'billing-portal-error');
  await portal.getByLabel('Card number').fill('4242 4242 4242 4242');
  await portal.getByLabel('CVC').fill('123');
  await portal.getByRole('button', { name: 'Add card' }).click();
  await expect(portal.getByText('Card saved. Usage-based billing now applies.')).toBeVisible();
  await expect(portal.getByText(`Visa •••• 4242 (exp 07/${year.slice(2)})`)).toBeVisible();
  // Back in the app: Return closes the portal's tab (no second app tab), and the billing tab is usage-based now.
  // The tab may close while the click is still being acted out: then the click's own error says only that it closed.
  const closed = portal.waitForEvent('close');
  await portal.getByRole('link', { name: 'Return to Agent Workspace' }).click({ noWaitAfter: true }).catch((err) => {
    if (!portal.isClosed()) throw err;
  });
  await closed;

  // The billing tab catches up when the user comes back to it (a focus), without a reload.
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await expect(payment.getByText('Visa')).toBeVisible();
  await expect(payment.getByText('•••• 4242')).toBeVisible();
  await expect(payment.getByText(`(exp 07/${year.slice(2)})`)).toBeVisible();
  await expect(payment.getByTitle('Update card')).toBeVisible();
  await expect(spend.locator('.spend-amount')).toHaveText('$0 / ∞');
  await expect(spend.getByText('Credits remaining: $5')).toBeVisible();
  await expect(spend.getByRole('progressbar')).toHaveAttribute('aria-valuetext', 'No limit');
  await expect(spend.getByText('Total due')).toBeVisible();
  await screenshotBothThemes(page, 'billing-usage-based');

  // 'Update card' opens the portal again.
  const [again] = await Promise.all([context.waitForEvent('page'), payment.getByTitle('Update card').click()]);
  await expect(again.getByText('Visa •••• 4242')).toBeVisible();
  await again.close();

  // A portal link opened by hand (a tab no script opened, with history) cannot close itself: Return goes to the app.
  const link = await page.evaluate(async () => {
    const json = { 'Content-Type': 'application/json' };
    const { token } = await (await fetch('/api/auth/token', { method: 'POST', credentials: 'same-origin', headers: json })).json();
    const res = await fetch('/api/billing/portal-session', { method: 'POST', headers: { ...json, Authorization: `Bearer ${token}` }, body: '{}' });
    return (await res.json()).url as string;
  });
  const byHand = await context.newPage();
  await byHand.goto('/settings/billing');
  await byHand.goto(link);
  await byHand.getByRole('link', { name: 'Return to Agent Workspace' }).click();
  await expect(byHand).toHaveURL(/\/settings\/billing$/);
  await expect(byHand.getByText('•••• 4242')).toBeVisible();
  await byHand.close();

  // The spend-limit dialog: a preset …
  await spend.getByRole('button', { name: 'Edit limit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Set spend limit' });
  for (const label of ['$50', '$100', '$200', '$500', 'No limit', 'Custom']) await expect(dialog.getByLabel(label, { exact: true })).toBeVisible();
  await expect(dialog.getByLabel('No limit')).toBeChecked();
  await screenshotBothThemes(page, 'billing-limit-dialog');
  await dialog.getByLabel('$100', { exact: true }).check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(spend.locator('.spend-amount')).toHaveText('$0 / $100'); // after the reload
  await expect(spend.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0');

  // … a custom amount takes digits only …
  await spend.getByRole('button', { name: 'Edit limit' }).click();
  await expect(dialog.getByLabel('$100', { exact: true })).toBeChecked();
  await dialog.getByLabel('Custom', { exact: true }).check();
  const amount = dialog.getByLabel(/Custom amount/);
  await amount.pressSequentially('7a5.5');
  await expect(amount).toHaveValue('755');
  await screenshotBothThemes(page, 'billing-limit-custom');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(spend.locator('.spend-amount')).toHaveText('$0 / $755');

  // … an empty or zero custom amount is refused …
  await spend.getByRole('button', { name: 'Edit limit' }).click();
  await expect(amount).toHaveValue('755');
  await amount.fill('0');
  const refused = nextAlert(page);
  await dialog.getByRole('button', { name: 'Save' }).click();
  expect(await refused).toBe('Please enter a valid amount');
  await amount.fill('');
  const empty = nextAlert(page);
  await dialog.getByRole('button', { name: 'Save' }).click();
  expect(await empty).toBe('Please enter a valid amount');
  await expect(dialog).toBeVisible();

  // … and No limit sends 0.
  await dialog.getByLabel('No limit').check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(spend.locator('.spend-amount')).toHaveText('$0 / ∞');
});
