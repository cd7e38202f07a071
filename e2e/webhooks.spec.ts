// Webhooks in Chromium (issue 46): an endpoint made under Settings → Webhooks with its signing secret shown once; a
// test event reaches a receiver in this process, which verifies it with the standardwebhooks package and the secret
// copied from the screen; the log shows it, Redeliver sends it again; a refused URL keeps what was typed; disable and
// delete. The server of these specs allows loopback targets (WEBHOOK_ALLOW_PRIVATE=1 in playwright.config.ts).
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { newUserWithAgent, screenshotBothThemes } from './fixtures.ts';
import { startReceiver } from '../test/server/webhook-receiver.ts';

test('make an endpoint, send a test event, read the log, redeliver, disable and delete', async ({ page, request, consoleErrors }) => {
  consoleErrors.allow(/422 \(Unprocessable Entity\)/);
  const receiver = await startReceiver();
  try {
    await newUserWithAgent(page, request, 'Hooked');
    await page.goto('/settings/webhooks');
    await expect(page.getByText('No endpoints yet')).toBeVisible();
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'New endpoint' });
    await dialog.getByLabel('URL').fill('ftp://example.com/hook');
    await dialog.getByLabel('Run started').check();
    await dialog.getByLabel('Agent needs help').check();
    await dialog.getByLabel('Agent', { exact: true }).selectOption({ label: 'Hooked' });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('url: an http or https address');
    await expect(dialog.getByLabel('Agent needs help')).toBeChecked(); // nothing typed is lost
    await screenshotBothThemes(page, 'webhooks-new-refused');

    await dialog.getByLabel('URL').fill(receiver.url('/e2e'));
    await dialog.getByRole('button', { name: 'Create' }).click();
    const made = page.getByRole('dialog', { name: 'Endpoint created' });
    const secretField = made.getByLabel('Signing secret');
    await expect(secretField).toHaveValue(/^whsec_[A-Za-z0-9+/]{32}$/);
    await expect(made).toContainText('Copy it now: it will not be shown again.');
    await screenshotBothThemes(page, 'webhooks-secret');
    const secret = await secretField.inputValue();
    await made.getByRole('button', { name: 'Done' }).click();
    await expect(page.locator('body')).not.toContainText(secret);

    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: receiver.url('/e2e') }) });
    await expect(card).toContainText('Active');
    await expect(card).toContainText('Hooked');
    await expect(card).toContainText(secret.slice(0, 9));
    await card.getByRole('button', { name: `Send test event to ${receiver.url('/e2e')}` }).click();
    const log = card.getByRole('table', { name: `Deliveries to ${receiver.url('/e2e')}` });
    await expect(log.getByRole('row', { name: /webhook\.test/ })).toContainText('Delivered');
    await expect(log.getByRole('row', { name: /webhook\.test/ })).toContainText('204');
    expect(receiver.got).toHaveLength(1);
    expect(receiver.verify(receiver.got[0], secret)).toMatchObject({ type: 'webhook.test' });

    await log.getByRole('row', { name: /webhook\.test/ }).getByRole('button', { name: /^Redeliver/ }).click();
    await expect(log.getByRole('row', { name: /webhook\.test/ })).toHaveCount(2);
    await expect(log.getByRole('row', { name: /webhook\.test/ }).first()).toContainText('Delivered');
    await expect.poll(() => receiver.got.length).toBe(2);
    expect(receiver.got[1].headers['webhook-id']).toBe(receiver.got[0].headers['webhook-id']);
    await screenshotBothThemes(page, 'webhooks-log');
    expect(await axeFindings(page, 'webhooks')).toEqual([]);

    await card.getByRole('button', { name: `Disable ${receiver.url('/e2e')}` }).click();
    await expect(card).toContainText('Disabled');
    page.once('dialog', (d) => d.accept());
    await card.getByRole('button', { name: `Delete ${receiver.url('/e2e')}` }).click();
    await expect(page.getByText('No endpoints yet')).toBeVisible();
  } finally {
    await receiver.close();
  }
});
