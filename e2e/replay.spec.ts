// Watching a run again (issue 44), end to end on a real desktop: an agent on the offline model types into its
// terminal; the thread's "Watch replay" link opens the run's replay, which lists one marker per model call and per
// action; the last action's marker shows, on the replay's canvas, the screen the desktop showed after it; a share
// link opens the replay signed out and stops working once revoked. Both themes, clean under axe.
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, screenshotBothThemes, signIn } from './fixtures.ts';
import { axeFindings } from './axe.ts';

async function api(page: Page) {
  const headers = { Authorization: `Bearer ${await accessToken(page)}` };
  return {
    get: async (path: string) => (await page.request.get(`/api${path}`, { headers })).json(),
    post: async (path: string, data: object) => {
      const res = await page.request.post(`/api${path}`, { headers, data });
      expect(res.ok(), `${path}: ${res.status()}`).toBe(true);
      return res.json();
    },
    png: async (path: string) => (await (await page.request.get(`/api${path}`, { headers })).body()).toString('base64'),
  };
}

/**
 * Share of pixels equal between the replay's canvas (its default layer, at the recording's size) and a PNG. Guacamole
 * pads a layer's canvas to multiples of 64 pixels: the screen is its top-left part.
 */
function samePixels(page: Page, pngBase64: string): Promise<number> {
  return page.evaluate(async (png) => {
    const image = new Image();
    image.src = `data:image/png;base64,${png}`;
    await image.decode();
    const canvas = document.querySelector<HTMLCanvasElement>('.replay-display canvas')!;
    if (canvas.width < image.width || canvas.height < image.height) return 0;
    const a = canvas.getContext('2d')!.getImageData(0, 0, image.width, image.height).data;
    const scratch = document.createElement('canvas');
    scratch.width = image.width;
    scratch.height = image.height;
    const ctx = scratch.getContext('2d')!;
    ctx.drawImage(image, 0, 0);
    const b = ctx.getImageData(0, 0, image.width, image.height).data;
    let same = 0;
    for (let i = 0; i < a.length; i += 4) if (a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2]) same++;
    return same / (a.length / 4);
  }, pngBase64);
}

test('a run is replayed: its markers, the screen after its last action, a share link that works signed out until revoked', async ({ page, browser }) => {
  test.setTimeout(150_000);
  await signIn(page, ADMIN.email, ADMIN.password);
  const server = await api(page);
  const status = await server.get('/desktops/status');
  test.skip(!status.available && !process.env.CI, `desktops are off on this machine: ${status.reason}`);
  expect(status.available, status.reason).toBe(true);

  const agent = await server.post('/agents/', { name: `Replayed ${Date.now().toString(36)}` });
  const thread = await server.post(`/threads/${agent.id}/create-new-thread`, { user_text: 'open a terminal and type echo replayed-run' });
  await server.post(`/agents/${agent.id}/run-state`, { state: 'run' });
  let run: { id: number; has_replay: boolean; ended_at: string | null } | undefined;
  await expect.poll(async () => {
    run = (await server.get(`/threads/${thread.id}/runs`))[0];
    return run?.ended_at ? run.has_replay : null;
  }, { timeout: 90_000 }).toBe(true);
  // The screen as the run left it (nothing has touched the desktop since its last action).
  const after = await server.png(`/agents/${agent.id}/screenshot`);

  // From the thread: the run's first step links to its replay.
  await page.goto(`/agent/${agent.id}`);
  const watch = page.getByRole('link', { name: 'Watch replay' }).first();
  await watch.scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'replay-link-in-chat');
  await watch.click();
  await expect(page).toHaveURL(new RegExp(`/replay/${run!.id}$`));
  const stage = page.locator('.replay-stage');
  await expect(stage).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });

  // One marker per model call and per action, as the run's traces and steps have them.
  const { traces } = await server.get(`/llm_traces/thread/${thread.id}`);
  const calls = traces.filter((t: { run_id: number }) => t.run_id === run!.id).length;
  const steps = (await server.get(`/threads/${thread.id}/steps?limit=100&offset=0`)).steps as { run_id: number; tool_calls: unknown[] }[];
  const actions = steps.filter((s) => s.run_id === run!.id).reduce((n, s) => n + s.tool_calls.length, 0);
  expect(calls).toBeGreaterThan(1);
  expect(actions).toBeGreaterThan(1);
  const list = page.getByRole('list', { name: 'Markers' });
  await expect(list.locator('[data-kind="model_call"]')).toHaveCount(calls);
  await expect(list.locator('[data-kind="action"]')).toHaveCount(actions);

  // The last action's marker: the canvas shows the screen that action left.
  await list.locator('[data-kind="action"]').last().click();
  await expect(page.locator('.marker-item[data-opened]')).toHaveAttribute('aria-current', 'step');
  await expect(stage).not.toHaveAttribute('data-seeking', 'true');
  await expect.poll(() => samePixels(page, after), { timeout: 10_000 }).toBeGreaterThanOrEqual(0.99);
  await screenshotBothThemes(page, 'replay');
  expect(await axeFindings(page, 'replay')).toEqual([]);

  // Share it: the link opens the replay alone in a browser that never signed in.
  await page.getByRole('button', { name: 'Share' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share replay' });
  await dialog.getByRole('button', { name: /Create link/ }).click();
  const url = await dialog.getByRole('textbox').inputValue();
  expect(url).toMatch(/\/replay\/shared\/[A-Za-z0-9_-]{43}$/);
  await screenshotBothThemes(page, 'replay-share');
  const stranger = await browser.newContext();
  const shared = await stranger.newPage();
  await shared.goto(url);
  await expect(shared.getByText(`Shared by ${ADMIN.email}`)).toBeVisible();
  await expect(shared.locator('.replay-stage')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await expect(shared.getByRole('list', { name: 'Markers' }).locator('[data-kind="action"]')).toHaveCount(actions);
  await expect(shared.getByRole('button', { name: 'Share' })).toHaveCount(0);
  await screenshotBothThemes(shared, 'replay-shared');

  await dialog.getByRole('button', { name: /^Revoke the link/ }).first().click();
  await expect(dialog.getByText('No live links.')).toBeVisible();
  await shared.reload();
  await expect(shared.getByText('This replay link was revoked or does not exist.')).toBeVisible();
  await stranger.close();
});
