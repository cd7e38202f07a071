// The agent's files (issue 50): a file the desktop's own shell wrote in ~/Desktop shows in the agent screen's Files
// list (with its size and date) beside an upload, and its download button saves it under its name with its bytes.
import { readFileSync } from 'node:fs';
import { expect, test } from './console.ts';
import { ADMIN, newUserWithAgent, screenshotBothThemes, terminalDrawn } from './fixtures.ts';

test('Files: what the desktop wrote is listed and downloads', async ({ page, request }) => {
  test.setTimeout(120_000);
  const admin = await (await request.post('/api/auth/sign-in', { data: ADMIN })).json();
  const desktops = await (await request.get('/api/desktops/status', { headers: { Authorization: `Bearer ${admin.token}` } })).json();
  test.skip(!desktops.available && !process.env.CI, `desktops are off on this machine: ${desktops.reason}`);

  const { agent, token } = await newUserWithAgent(page, request, `Keeper ${Date.now().toString(36)}`);
  const upload = await page.request.post(`/api/agents/${agent.id}/upload_file`, {
    headers: { Authorization: `Bearer ${token}` },
    multipart: { file: { name: 'brief.txt', mimeType: 'text/plain', buffer: Buffer.from('the brief') } },
  });
  expect(upload.status()).toBe(200);
  await page.goto(`/agent/${agent.id}`);
  await expect(page.locator('.live-frame')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await terminalDrawn(page);

  // The desktop's shell writes the file, typed in its terminal by the user in control.
  await page.locator('.live-frame').hover();
  await page.getByRole('button', { name: 'Take control' }).click();
  await expect(page.getByText('You have control')).toBeVisible();
  await page.keyboard.type('echo made by the desktop > ~/Desktop/made-on-desktop.txt');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Expand chat' }).click();

  await page.getByRole('button', { name: 'Files', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Files' });
  const row = dialog.getByRole('row', { name: /made-on-desktop\.txt/ });
  // The list refreshes while open: the shell's write shows within a few refreshes.
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText('Desktop');
  await expect(row).toContainText('20 B');
  // The upload is listed as such, and its copy the desktop got on ~/Desktop as a desktop file.
  await expect(dialog.getByRole('row', { name: /^brief\.txt Uploaded 9 B/ })).toBeVisible();
  await expect(dialog.getByRole('row', { name: /^brief\.txt Desktop 9 B/ })).toBeVisible();
  await screenshotBothThemes(page, 'agent-files');

  const button = row.getByRole('button', { name: 'Download made-on-desktop.txt' });
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  expect(download.suggestedFilename()).toBe('made-on-desktop.txt');
  expect(readFileSync((await download.path())!, 'utf8')).toBe('made by the desktop\n');
});
