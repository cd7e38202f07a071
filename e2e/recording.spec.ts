// Teaching by demonstration in Chromium with a fake microphone, against the real server and a real Xvnc:
// Record takes control and shows the red ring, the person clicks and types on the desktop, Stop hands
// control back and uploads the audio, and the summary listing those actions arrives in the chat.
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, CHROMIUM, newUserWithAgent, screenshotBothThemes } from './fixtures.ts';

test.use({ launchOptions: { ...CHROMIUM, args: [...CHROMIUM.args, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] } });

/** A point given in desktop pixels (1280x800), through the scaled view. */
async function desktopPoint(page: Page, x: number, y: number) {
  const box = (await page.locator('.live-display').boundingBox())!;
  return { x: box.x + (x / 1280) * box.width, y: box.y + (y / 800) * box.height };
}

test('recording a demonstration: red ring, control, the person\'s clicks and typing, the summary in the chat', async ({ page, request }) => {
  test.setTimeout(120_000);
  const admin = (await (await request.post('/api/auth/sign-in', { data: ADMIN })).json()).token;
  const desktops = await (await request.get('/api/desktops/status', { headers: { Authorization: `Bearer ${admin}` } })).json();
  test.skip(!desktops.available && !process.env.CI, `desktops are off on this machine: ${desktops.reason}`);
  expect(desktops.available, desktops.reason).toBe(true);

  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { agent } = await newUserWithAgent(page, request, `Demo ${Date.now().toString(36)}`);
  await page.goto(`/agent/${agent.id}`);
  const frame = page.locator('.live-frame');
  await expect(frame).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });

  // A thread to teach in.
  const box = page.getByRole('textbox', { name: 'Message text' });
  await box.fill('Watch how I do it');
  await box.press('Enter');
  await expect(page.locator('.message-user')).toHaveText(['Watch how I do it']);
  const threadId = (await (await page.request.get(`/api/agents/${agent.id}`, {
    headers: { Authorization: `Bearer ${await accessToken(page)}` },
  })).json()).threads[0].id;

  // Record: the microphone (fake), start-recording for this thread, then control (the agent stops first).
  const record = page.getByRole('button', { name: 'Record' });
  await expect(record).toBeVisible();
  const started = page.waitForResponse((r) => r.url().endsWith('/api/screenshare/start-recording'));
  const control = page.waitForRequest((r) => r.url().endsWith(`/api/agents/${agent.id}/control`));
  await record.click();
  const start = await started;
  expect(start.request().postDataJSON()).toEqual({ agent_id: agent.id, thread_id: threadId });
  const session = (await start.json()).session_id as string;
  expect((await control).postDataJSON()).toMatchObject({ take: true });
  await expect(page.getByText('You have control')).toBeVisible();
  await expect(frame).toHaveAttribute('data-recording', 'true');
  await expect(page.getByRole('button', { name: /Stop recording/ })).toBeVisible();
  expect(await page.evaluate((id) => [sessionStorage.getItem(`is_recording_${id}`), sessionStorage.getItem(`session_id_${id}`)], agent.id))
    .toEqual(['true', session]);
  await expect(page.locator('.live-record-time')).toHaveText(/^0:0[1-9]$/);
  await screenshotBothThemes(page, 'recording');

  // The demonstration: click the terminal, type a command, press Enter.
  const point = await desktopPoint(page, 320, 400);
  await page.mouse.click(point.x, point.y);
  await page.keyboard.type('echo demo');
  await page.keyboard.press('Enter');

  // Stop: stop-recording, control handed back, the audio uploaded with the session id.
  const stopped = page.waitForRequest((r) => r.url().endsWith('/api/screenshare/stop-recording'));
  const uploaded = page.waitForResponse((r) => r.url().endsWith('/api/screenshare/audio-final'));
  await page.getByRole('button', { name: /Stop recording/ }).click();
  expect((await stopped).postDataJSON()).toEqual({ agent_id: agent.id, session_id: session });
  const upload = await uploaded;
  expect(upload.status()).toBe(202);
  const headers = await upload.request().allHeaders();
  expect(headers['x-session-id']).toBe(session);
  expect(headers['content-type']).toMatch(/^audio\/(webm|ogg)/);
  expect((await upload.json()).received_bytes).toBeGreaterThan(0);
  await expect(page.getByRole('button', { name: 'Expand chat' })).toHaveCount(0);
  await expect(frame).not.toHaveAttribute('data-recording', 'true');

  // The summary arrives in the chat; the wait ends and Record is back.
  const summary = page.locator('.message-demonstration');
  await expect(summary).toBeVisible({ timeout: 20_000 });
  const lines = (await summary.locator('.message-text').innerText()).split('\n')
    .filter((l) => /^\d+\. /.test(l))
    .map((l) => l.replace(/^\d+\. \[\d+:\d\d\] /, ''));
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^clicked at 3(19|20|21),(399|400|401)$/);
  expect(lines.slice(1)).toEqual(["typed 'echo demo'", 'pressed Enter']);
  await expect(summary).toContainText('No transcript was made: no transcription server is configured.');
  await expect(page.getByText('Summarising the demonstration…')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
  expect(await page.evaluate((id) => sessionStorage.getItem(`is_recording_${id}`), agent.id)).toBe('false');
  await screenshotBothThemes(page, 'recording-summary');
  expect(errors).toEqual([]);
});
