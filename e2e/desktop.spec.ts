// The live desktop in Chromium, against the real server and a real Xvnc: the view connects through
// guacamole-common-js (default import, WebSocketTunnel, subprotocol), survives past the client's 15 s
// receive timeout on an idle screen (ping echo), takes control, types into the desktop's terminal,
// plays the desktop's sound, hands control back, pastes Unicode both ways, and takes dropped files onto
// the desktop.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Response } from '@playwright/test';
import { expect, test } from './console.ts';
import { ADMIN, newUserWithAgent, screenshotBothThemes, terminalDrawn } from './fixtures.ts';

const DATA_DIR = process.env.E2E_DATA_DIR!;
const desktopFile = (agentId: number, name: string) => join(DATA_DIR, 'desktops', `agent-${agentId}`, 'Desktop', name);

async function waitForFile(path: string, content?: string, ms = 10_000) {
  await expect.poll(() => (existsSync(path) ? readFileSync(path, 'utf8') : null), { timeout: ms }).toBe(content ?? expect.anything());
}

/** Pixels of the live view's canvas that differ from a screenshot PNG of the desktop (-1: a smaller canvas). */
function differingPixels(page: Page, png: Buffer): Promise<number> {
  return page.locator('.live-display canvas').first().evaluate(async (canvas: HTMLCanvasElement, bytes) => {
    const shot = await createImageBitmap(new Blob([new Uint8Array(bytes)], { type: 'image/png' }));
    // The library sizes a layer's canvas in steps of 64 pixels: the desktop is its top-left part.
    if (canvas.width < shot.width || canvas.height < shot.height) return -1;
    const scratch = new OffscreenCanvas(shot.width, shot.height).getContext('2d')!;
    scratch.drawImage(shot, 0, 0);
    const want = scratch.getImageData(0, 0, shot.width, shot.height).data;
    const got = canvas.getContext('2d')!.getImageData(0, 0, shot.width, shot.height).data;
    let differing = 0;
    for (let i = 0; i < want.length; i += 4) if (want[i] !== got[i] || want[i + 1] !== got[i + 1] || want[i + 2] !== got[i + 2]) differing++;
    return differing;
  }, [...png]);
}

/** Clicks the desktop at a point given in desktop pixels (1280x800), through the scaled view. */
async function clickDesktop(page: Page, x: number, y: number) {
  const box = (await page.locator('.live-display').boundingBox())!;
  await page.mouse.click(box.x + (x / 1280) * box.width, box.y + (y / 800) * box.height);
}

test('live desktop: connect, take control, type, hand back, paste, drop files', async ({ page, request, context, consoleErrors }) => {
  // An upload the test makes fail.
  consoleErrors.allow(/500 \(Internal Server Error\) \(at \S+\/upload_file\)|^VM upload failed/);
  test.setTimeout(120_000);
  const admin = await (await request.post('/api/auth/sign-in', { data: ADMIN })).json();
  const status = await request.get('/api/desktops/status', { headers: { Authorization: `Bearer ${admin.token}` } });
  const desktops = await status.json();
  test.skip(!desktops.available && !process.env.CI, `desktops are off on this machine: ${desktops.reason}`);
  expect(desktops.available, desktops.reason).toBe(true); // CI installs Xvnc (.ci/run)

  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const tunnels: string[] = [];
  const frames = { in: [] as string[], out: [] as string[] };
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/api/desktop/tunnel/')) return;
    tunnels.push(ws.url());
    ws.on('framereceived', (f) => typeof f.payload === 'string' && frames.in.push(f.payload));
    ws.on('framesent', (f) => typeof f.payload === 'string' && frames.out.push(f.payload));
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // Audio contexts the page makes: a running one keeps the browser's audio thread busy, sound or not.
  await page.addInitScript(() => {
    const Original = window.AudioContext;
    window.AudioContext = class extends Original {
      constructor(...args: ConstructorParameters<typeof AudioContext>) {
        super(...args);
        ((window as any).__audioContexts ??= []).push(this);
      }
    };
  });
  const audioContexts = () => page.evaluate(() => ((window as any).__audioContexts ?? []).map((c: AudioContext) => c.state));

  const { agent, token } = await newUserWithAgent(page, request, `Desk ${Date.now().toString(36)}`);
  const auth = { Authorization: `Bearer ${token}` };
  const screenshotsFetched: string[] = [];
  page.on('request', (r) => new URL(r.url()).pathname === `/api/agents/${agent.id}/screenshot` && screenshotsFetched.push(r.url()));
  await page.goto(`/agent/${agent.id}`);
  const frame = page.locator('.live-frame');
  await expect(frame).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  const connectedAt = Date.now();
  const fetchedBeforeConnect = screenshotsFetched.length;
  expect(errors).toEqual([]);
  expect(tunnels.length).toBe(1);
  // The tunnel URL carries its ticket in the path: the client appends '?' itself.
  expect(new URL(tunnels[0]).pathname).toMatch(/^\/api\/desktop\/tunnel\/[\w-]+$/);
  await expect(page.locator('.live-display canvas').first()).toBeVisible();
  await terminalDrawn(page);
  await screenshotBothThemes(page, 'live-desktop');

  // The screenshot endpoint's PNG decodes in Chromium too.
  const before = await (await page.request.get(`/api/agents/${agent.id}/screenshot`, { headers: auth })).body();
  const size = await page.evaluate(async (bytes) => {
    const bitmap = await createImageBitmap(new Blob([new Uint8Array(bytes)], { type: 'image/png' }));
    return [bitmap.width, bitmap.height];
  }, [...before]);
  expect(size).toEqual([1280, 800]);

  // Read-only until Take control, which shows on hover.
  await expect(page.getByRole('button', { name: 'Expand chat' })).toHaveCount(0);
  await page.locator('.live-frame').hover();
  const take = page.getByRole('button', { name: 'Take control' });
  await expect(take).toBeVisible();
  await screenshotBothThemes(page, 'live-desktop-take-control');
  const stopRequest = page.waitForRequest((r) => r.url().endsWith('/api/agents/stop') && r.method() === 'POST');
  const controlRequest = page.waitForRequest((r) => r.url().endsWith(`/api/agents/${agent.id}/control`));
  await take.click();
  // Taking control first stops the agent, then asks the server for control.
  const [stop, control] = [await stopRequest, await controlRequest];
  expect(stop.postDataJSON()).toEqual({ agent_id: agent.id, force_terminate: false });
  expect(control.postDataJSON()).toMatchObject({ take: true });
  await expect(page.getByRole('button', { name: 'Expand chat' })).toBeVisible();
  await expect(page.getByText('You have control')).toBeVisible();
  await expect(page.locator('.live-view')).toBeFocused();

  // Type into the terminal (left half of the desktop; it has the focus, the pointer starts over it).
  await clickDesktop(page, 320, 400);
  await page.keyboard.type('echo hello > ~/Desktop/hello.txt');
  await page.keyboard.press('Enter');
  await waitForFile(desktopFile(agent.id, 'hello.txt'), 'hello\n');
  // What was typed shows in the server's screenshot too.
  const screenshot = async () => (await page.request.get(`/api/agents/${agent.id}/screenshot`, { headers: auth })).body();
  await expect.poll(async () => (await screenshot()).equals(before)).toBe(false);
  // The page shows the desktop pixel for pixel: typed characters came as raw RGB put on the canvas, the
  // rest as PNG (display-images.ts).
  await expect.poll(async () => differingPixels(page, await screenshot()), { timeout: 10_000 }).toBe(0);
  await screenshotBothThemes(page, 'live-desktop-control');

  // The stored screenshot moves on as the desktop changes (a live one asked for is stored, at most every
  // 10 s), and the open agent refreshes every 3 s with its new address; behind the live view the page
  // does not fetch it.
  const agentNow = async () => (await (await page.request.get(`/api/agents/${agent.id}`, { headers: auth })).json()).screenshot_url;
  const storedAtConnect = await agentNow();
  await expect.poll(async () => (await screenshot(), agentNow()), { timeout: 30_000, intervals: [1000] }).not.toBe(storedAtConnect);
  const refreshed = (r: Response) => r.request().method() === 'GET' && new URL(r.url()).pathname === `/api/agents/${agent.id}`;
  await page.waitForResponse(refreshed); // the page has the new address
  await page.waitForResponse(refreshed); // and one refresh later, whatever it would have fetched has been asked
  expect(screenshotsFetched.length).toBe(fetchedBeforeConnect);

  // Sound: a desktop program plays half a second of noise; the page's Guacamole client gets an audio
  // stream of raw PCM and accepts it (it answers OK only when it has a player for the type).
  expect(frames.in.join('')).not.toContain('5.audio,');
  expect(await audioContexts(), 'clicks and keys make no audio context before any sound').toEqual([]);
  await page.keyboard.type('head -c 88200 /dev/urandom | pacat --raw --format=s16le --rate=44100 --channels=2');
  await page.keyboard.press('Enter');
  await expect.poll(() => frames.in.join(''), { timeout: 10_000 }).toContain('5.audio,4.1001,31.audio/L16;rate=44100,channels=2;');
  await expect.poll(() => frames.out.join(''), { timeout: 5000 }).toContain('3.ack,4.1001,2.OK,1.0;');
  // The sound made one, after the person's gestures, so it plays.
  await expect.poll(audioContexts, { timeout: 5000 }).toEqual(['running']);
  expect(frames.in.join('')).toMatch(/4\.blob,4\.1001,\d+\.[A-Za-z0-9+/=]{16,}/);

  // Paste "café ✓ 😀" into the desktop (a paste event on the focused view), read it back in the desktop.
  await page.locator('.live-view').evaluate((el) => {
    const data = new DataTransfer();
    data.setData('text/plain', 'café ✓ 😀');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  // Sent ahead of the keys below on the one tunnel, so the desktop has it before the command runs.
  const pasted = Buffer.from('café ✓ 😀').toString('base64');
  await expect.poll(() => frames.out.join('')).toContain(`,${pasted.length}.${pasted};`);
  await page.keyboard.type('xclip -o -selection clipboard > ~/Desktop/clip.txt');
  await page.keyboard.press('Enter');
  await waitForFile(desktopFile(agent.id, 'clip.txt'), 'café ✓ 😀');
  // And the other way: a desktop app copies, the page's clipboard gets it. (Typed as octal escapes:
  // Playwright sends characters beyond the US layout as text input, not as key presses.)
  await page.keyboard.type("printf 'na\\303\\257ve \\342\\234\\223 \\360\\237\\230\\200' | xclip -selection clipboard");
  await page.keyboard.press('Enter');
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { timeout: 10_000 }).toBe('naïve ✓ 😀');

  // The paste shortcut: the browser's clipboard reaches the desktop first, then the shortcut itself
  // (xterm pastes with Shift+Insert). The terminal hands each byte over as it comes (-icanon), so the
  // file shows the paste once xterm has fetched it, with no key after it that could overtake it.
  await page.evaluate(() => navigator.clipboard.writeText('flag ✓ paste'));
  await page.keyboard.type('stty -icanon; head -c 14 > ~/Desktop/flag.txt; stty icanon');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Shift+Insert');
  await waitForFile(desktopFile(agent.id, 'flag.txt'), 'flag ✓ paste');

  // Quiet for 5 s: the page suspends the context, and the next sound resumes it.
  await expect.poll(audioContexts, { timeout: 10_000 }).toEqual(['suspended']);
  const soundBlobs = () => frames.in.join('').split('4.blob,4.1001,').length - 1;
  const heardBefore = soundBlobs();
  await page.keyboard.type('head -c 88200 /dev/urandom | pacat --raw --format=s16le --rate=44100 --channels=2');
  await page.keyboard.press('Enter');
  await expect.poll(soundBlobs, { timeout: 10_000 }).toBeGreaterThan(heardBefore);
  await expect.poll(audioContexts, { timeout: 5000 }).toEqual(['running']);

  // Keys stay with the desktop: Escape does not reach page handlers.
  const escapes = await page.evaluate(() => new Promise<number>((resolve) => {
    let n = 0;
    document.addEventListener('keydown', (e) => e.key === 'Escape' && n++);
    setTimeout(() => resolve(n), 400);
    document.querySelector<HTMLElement>('.live-view')!
      .dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', code: 'Escape', keyCode: 27, bubbles: true }));
  }));
  expect(escapes).toBe(0);

  // Expand chat: read-only again, and typing no longer reaches the desktop.
  await page.getByRole('button', { name: 'Expand chat' }).click();
  await expect(page.getByRole('button', { name: 'Expand chat' })).toHaveCount(0);
  await expect(page.getByText('You have control')).toHaveCount(0);
  await page.locator('.live-view').focus();
  const sentBefore = frames.out.length;
  await page.keyboard.type('echo nope > ~/Desktop/nope.txt');
  await page.keyboard.press('Enter');
  // The tunnel pings every 500 ms with the time: frames come in the order the page sent them, so any key
  // it sent for the typing is in before a ping from after it.
  const typedAt = Date.now();
  const sentSince = () => frames.out.slice(sentBefore);
  await expect.poll(() => sentSince().some((f) => Number(/^0\.,4\.ping,\d+\.(\d+);/.exec(f)?.[1]) > typedAt)).toBe(true);
  expect(sentSince().filter((f) => f.includes('3.key,'))).toEqual([]);
  expect(frames.out.slice(0, sentBefore).some((f) => f.includes('3.key,')), 'keys in control did go out').toBe(true);
  expect(existsSync(desktopFile(agent.id, 'nope.txt'))).toBe(false);

  // Drop a file onto the VM: drop zone while hovering, then the file lands on the desktop.
  const drag = async (types: string[], name: string, content: string) =>
    page.locator('.vm-drop').evaluate((el, { types, name, content }) => {
      const data = new DataTransfer();
      data.items.add(new File([content], name, { type: 'text/plain' }));
      for (const type of types) el.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }, { types, name, content });
  await drag(['dragenter', 'dragover'], 'dropped.txt', 'dropped by the e2e test');
  await expect(page.getByText('Drop files to put them on the desktop')).toBeVisible();
  await screenshotBothThemes(page, 'live-desktop-drop');
  await drag(['drop'], 'dropped.txt', 'dropped by the e2e test');
  await expect(page.getByText('Drop files to put them on the desktop')).toHaveCount(0);
  await waitForFile(desktopFile(agent.id, 'dropped.txt'), 'dropped by the e2e test');
  // The page says where it landed.
  await expect(page.getByRole('status').filter({ hasText: 'Saved to ~/Desktop/dropped.txt' })).toBeVisible();

  // A failed upload says so for 5 s.
  await page.route('**/upload_file', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"detail":"boom"}' }));
  await drag(['dragenter', 'dragover', 'drop'], 'broken.txt', 'x');
  const failed = page.getByText('Failed to upload broken.txt');
  await expect(failed).toBeVisible();
  await screenshotBothThemes(page, 'live-desktop-upload-failed');
  await expect(failed).toHaveCount(0, { timeout: 7000 });
  await page.unroute('**/upload_file');

  // The recording ring follows the per-agent session flag.
  await page.evaluate((id) => sessionStorage.setItem(`is_recording_${id}`, 'true'), agent.id);
  await expect(frame).toHaveAttribute('data-recording', 'true');
  await screenshotBothThemes(page, 'live-desktop-recording');
  await page.evaluate((id) => sessionStorage.removeItem(`is_recording_${id}`), agent.id);
  await expect(frame).not.toHaveAttribute('data-recording', 'true');

  // Still the same tunnel past the client's 15 s receive timeout: the server echoes its pings.
  const idle = 16_000 - (Date.now() - connectedAt);
  if (idle > 0) await page.waitForTimeout(idle);
  await expect(frame).toHaveAttribute('data-state', 'connected');
  expect(tunnels.length).toBe(1);

  await page.setViewportSize({ width: 375, height: 740 });
  // A phone shows the chat or the desktop, with a switch (issue 47): the desktop.
  await page.getByRole('button', { name: 'Desktop', exact: true }).click();
  await expect(frame).toHaveAttribute('data-state', 'connected');
  await expect.poll(async () => (await page.locator('.live-display').boundingBox())?.width ?? Infinity).toBeLessThanOrEqual(375);
  await screenshotBothThemes(page, 'live-desktop-375');

  // On a phone (a touch screen: no hover) Take control stays on the view, and Record beside it, not over it.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  await expect.poll(() => page.evaluate(() => matchMedia('(hover: none)').matches)).toBe(true);
  const takeBox = (await page.getByRole('button', { name: 'Take control' }).boundingBox())!;
  const record = (await page.getByRole('button', { name: 'Record' }).boundingBox())!;
  const apart = takeBox.x + takeBox.width <= record.x || record.x + record.width <= takeBox.x
    || takeBox.y + takeBox.height <= record.y || record.y + record.height <= takeBox.y;
  expect(apart, `Take control ${JSON.stringify(takeBox)} and Record ${JSON.stringify(record)} overlap`).toBe(true);
  await screenshotBothThemes(page, 'live-desktop-phone');
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
  expect(errors).toEqual([]);
});

test('a desktop that goes away comes back in the view by itself', async ({ page, request }) => {
  test.setTimeout(90_000);
  const { agent, token } = await newUserWithAgent(page, request, `Crash ${Date.now().toString(36)}`);
  const auth = { Authorization: `Bearer ${token}` };
  const status = await (await page.request.get('/api/desktops/status', { headers: auth })).json();
  test.skip(!status.available && !process.env.CI, `desktops are off on this machine: ${status.reason}`);
  expect(status.available, status.reason).toBe(true); // CI installs Xvnc (.ci/run)
  await page.goto(`/agent/${agent.id}`);
  const frame = page.locator('.live-frame');
  await expect(frame).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  // Kill the agent's Xvnc the hard way (what a crash looks like).
  const [pid] = readFileSync(join(DATA_DIR, 'run', `xvnc-agent-${agent.id}.pid`), 'latin1').split('\n');
  process.kill(Number(pid), 'SIGKILL');
  await expect(frame).not.toHaveAttribute('data-state', 'connected', { timeout: 10_000 });
  await expect(page.getByText('Connecting')).toBeVisible();
  await screenshotBothThemes(page, 'live-desktop-connecting');
  await expect(frame).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  const [again] = readFileSync(join(DATA_DIR, 'run', `xvnc-agent-${agent.id}.pid`), 'latin1').split('\n');
  expect(again).not.toBe(pid);
});

test('a cold desktop: the view says it is starting, keeps trying past a failed request, and a refusal says why with a Retry', async ({
  page, request, consoleErrors,
}) => {
  consoleErrors.allow(/503 \(Service Unavailable\) \(at \S+\/api\/agents\/enter\)|net::ERR_FAILED/);
  const { agent } = await newUserWithAgent(page, request, `Off ${Date.now().toString(36)}`);
  let enters = 0;
  let answerSlowly: () => void = () => {};
  const slowAnswer = new Promise<void>((resolve) => (answerSlowly = resolve));
  await page.route('**/api/agents/enter', async (route) => {
    enters += 1;
    // First a request that gets no answer at all, then one the server takes its time over, then refusals.
    if (enters === 1) return route.abort('failed');
    if (enters === 2) await slowAnswer;
    await route.fulfill({
      status: 503, contentType: 'application/json',
      body: JSON.stringify({ detail: 'Desktops are off: Xvnc is not installed on the server (Debian package tigervnc-standalone-server).' }),
    });
  });
  await page.goto(`/agent/${agent.id}`);
  await expect(page.getByText('Starting the desktop…')).toBeVisible();
  expect(enters).toBe(2);
  await expect(page.getByText(/Network request failed|timed out/)).toHaveCount(0);
  await screenshotBothThemes(page, 'live-desktop-starting');
  answerSlowly();
  await expect(page.getByRole('alert').filter({ hasText: 'Desktops are off' })).toBeVisible();
  await expect(page.getByText('No screenshot yet')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Take control' })).toHaveCount(0);
  await screenshotBothThemes(page, 'live-desktop-off');
  // Retry asks again at once.
  await page.getByRole('alert').getByRole('button', { name: 'Retry' }).click();
  await expect.poll(() => enters).toBe(3);
});

test("the agent's cursor follows its actions on the live view", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { agent, token } = await newUserWithAgent(page, request, `Cursor ${Date.now().toString(36)}`);
  const auth = { Authorization: `Bearer ${token}` };
  const status = await (await page.request.get('/api/desktops/status', { headers: auth })).json();
  test.skip(!status.available && !process.env.CI, `desktops are off on this machine: ${status.reason}`);
  expect(status.available, status.reason).toBe(true); // CI installs Xvnc (.ci/run)
  await page.goto(`/agent/${agent.id}`);
  await expect(page.locator('.live-frame')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await terminalDrawn(page);
  // The offline model turns this into a click on the terminal, typing and Enter on the real desktop.
  const thread = await page.request.post(`/api/threads/${agent.id}/create-new-thread`, {
    headers: auth, data: { user_text: 'open a terminal, type "echo by-the-agent > agent.txt" and press enter', user_files: [] },
  });
  expect(thread.ok()).toBe(true);
  expect((await page.request.post(`/api/agents/${agent.id}/run-state`, { headers: auth, data: { state: 'run_all' } })).ok()).toBe(true);
  const cursor = page.locator('.agent-cursor');
  await expect(cursor).toBeVisible({ timeout: 30_000 });
  await waitForFile(join(DATA_DIR, 'desktops', `agent-${agent.id}`, 'agent.txt'), 'by-the-agent\n', 30_000);
  // The click went to the terminal, in the left half: so does the cursor.
  const box = (await page.locator('.live-display').boundingBox())!;
  const tip = (await cursor.boundingBox())!;
  expect(tip.x - box.x).toBeLessThan(box.width / 2);
  await screenshotBothThemes(page, 'live-desktop-agent-cursor');
});
