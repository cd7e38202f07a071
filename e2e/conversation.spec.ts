import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, rewriteJson, screenshotBothThemes, signUp } from './fixtures.ts';

// --- setup through the API: agents can only be created by the admin, acting as the user

async function newUserWithAgent(page: Page, request: APIRequestContext, name = `Agent ${Date.now().toString(36)}`) {
  await signUp(page);
  const token = await accessToken(page);
  const me = await (await page.request.get('/api/users/me', { headers: { Authorization: `Bearer ${token}` } })).json();
  // `request` is its own context: the admin's sign-in cookie never reaches the page.
  const admin = await (await request.post('/api/auth/sign-in', { data: ADMIN })).json();
  const res = await request.post('/api/agents/', {
    data: { name },
    headers: { Authorization: `Bearer ${admin.token}`, 'X-Impersonate-User-Id': String(me.id) },
  });
  expect(res.status()).toBe(201);
  const agent = await res.json();
  const api = async (method: 'post' | 'delete', path: string, data?: unknown) => {
    const answer = await page.request[method](`/api${path}`, { data, headers: { Authorization: `Bearer ${token}` } });
    expect(answer.ok(), `${method} ${path}`).toBe(true);
    return answer.status() === 204 ? null : answer.json();
  };
  return { agent, api };
}

const currentName = (page: Page) => page.getByTestId('current-thread-name');
const toggleList = (page: Page) => page.getByRole('button', { name: /: show all threads$/ });
const scheduledNames = (page: Page) => page.getByRole('region', { name: 'Scheduled' }).locator('.thread-row-name');
const row = (page: Page, name: string) => page.locator('.thread-row').filter({ has: page.getByRole('button', { name, exact: true }) });
const userMessages = (page: Page) => page.locator('.message-user .message-text');

// ---

test('a user starts a thread from a draft and sees later steps arrive over the realtime hub', async ({ page, request }) => {
  const hubFrames: string[] = [];
  page.on('websocket', (ws) => {
    if (ws.url().includes('/api/realtime/client/hubs/thread_hub')) ws.on('framereceived', (f) => hubFrames.push(String(f.payload)));
  });
  const { agent, api } = await newUserWithAgent(page, request);
  await page.goto(`/agent/${agent.id}`);

  await expect(currentName(page)).toHaveText('New chat');
  await expect(page.getByText('Select a thread')).toBeVisible();
  await expect(page.getByPlaceholder('Write anything...')).toBeVisible();

  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(currentName(page)).toHaveText('New thread');
  await expect(page.getByText('No messages')).toBeVisible();

  const box = page.getByRole('textbox', { name: 'Message text' });
  await box.fill('Book a table for two');
  await box.press('Enter');
  // The draft became the real thread, named after the message, with its first step.
  await expect(currentName(page)).toHaveText('Book a table for two');
  await expect(userMessages(page)).toHaveText(['Book a table for two']);
  await expect(box).toHaveValue('');
  await toggleList(page).click();
  await expect(scheduledNames(page)).toHaveText(['Book a table for two']);
  await expect(page.getByRole('region', { name: 'All threads' }).getByText('New thread')).toHaveCount(0);
  await toggleList(page).click();

  // Shift+Enter adds a line; Enter sends.
  await box.fill('Somewhere quiet');
  await box.press('Shift+Enter');
  await box.pressSequentially('near the river');
  await box.press('Enter');
  await expect(userMessages(page)).toHaveText(['Book a table for two', 'Somewhere quiet\nnear the river']);

  // A step written elsewhere reaches the open page through the hub alone: no reload, no refetch of steps.
  const threadId = (await (await page.request.get(`/api/agents/${agent.id}`, {
    headers: { Authorization: `Bearer ${await accessToken(page)}` },
  })).json()).threads[0].id;
  const stepLoads: string[] = [];
  page.on('request', (r) => r.url().includes(`/api/threads/${threadId}/steps`) && stepLoads.push(r.url()));
  await api('post', `/threads/${threadId}/set-user-input-and-schedule`, { user_text: 'Sent from another tab', user_files: [] });
  await expect(userMessages(page)).toHaveText(['Book a table for two', 'Somewhere quiet\nnear the river', 'Sent from another tab']);
  expect(stepLoads).toEqual([]);
  expect(hubFrames.some((f) => f.includes('"event":"connected"'))).toBe(true);
  expect(hubFrames.some((f) => f.includes('Sent from another tab'))).toBe(true);

  await screenshotBothThemes(page, 'conversation-steps');
  await page.setViewportSize({ width: 375, height: 760 });
  await screenshotBothThemes(page, 'conversation-steps-375');
});

test('a message to a stopped agent says why it waits and starts the agent from the chat', async ({ page, request }) => {
  const { agent } = await newUserWithAgent(page, request);
  await page.goto(`/agent/${agent.id}`);
  await page.getByRole('button', { name: 'New thread' }).click();
  const box = page.getByRole('textbox', { name: 'Message text' });
  await box.fill('write a note remember the milk');
  await box.press('Enter');
  // A new agent starts stopped: the chat says so instead of an hourglass with nothing said.
  const chat = page.getByRole('complementary', { name: 'Chat' });
  await expect(chat.getByText('The agent is stopped: this thread runs when you start it.')).toBeVisible();
  await screenshotBothThemes(page, 'conversation-stopped-agent');
  await chat.getByRole('button', { name: 'Start the agent' }).click();
  await expect(page.getByRole('button', { name: 'Fast' })).toHaveAttribute('aria-pressed', 'true');
  await expect(chat.locator('.message-assistant').last()).toContainText('Done:', { timeout: 30_000 });
  await expect(chat.getByText('The agent is stopped: this thread runs when you start it.')).toHaveCount(0);
});

test('scheduled threads reorder by drag and drop, keep the order after a reload, and can be deleted', async ({ page, request }) => {
  const { agent, api } = await newUserWithAgent(page, request);
  for (const text of ['Task one', 'Task two', 'Task three']) {
    await api('post', `/threads/${agent.id}/create-new-thread`, { user_text: text, user_files: [] });
  }
  await page.goto(`/agent/${agent.id}`);
  await toggleList(page).click();
  // Highest sequence first: the thread that runs next (sequence 1) is at the bottom.
  await expect(scheduledNames(page)).toHaveText(['Task three', 'Task two', 'Task one']);
  await screenshotBothThemes(page, 'conversation-thread-list');

  // Drop the top thread onto the bottom one: it takes sequence 1 and runs next.
  await row(page, 'Task three').dragTo(row(page, 'Task one'));
  await expect(scheduledNames(page)).toHaveText(['Task two', 'Task one', 'Task three']);
  await page.reload();
  await toggleList(page).click();
  await expect(scheduledNames(page)).toHaveText(['Task two', 'Task one', 'Task three']);

  // Delete asks first.
  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Delete Task one' }).click();
  await expect(scheduledNames(page)).toHaveText(['Task two', 'Task three']);
  expect(question).toBe('Are you sure you want to delete thread "Task one"? This action cannot be undone.');
  await page.reload();
  await toggleList(page).click();
  await expect(scheduledNames(page)).toHaveText(['Task two', 'Task three']);

  await page.setViewportSize({ width: 375, height: 760 });
  await screenshotBothThemes(page, 'conversation-thread-list-375');
});

test('attachments upload with progress, are sent with the message, and files over 100 MB are refused', async ({ page, request }) => {
  const { agent } = await newUserWithAgent(page, request);
  await page.goto(`/agent/${agent.id}`);
  const picker = page.locator('.chat-input input[type="file"]');

  // A slow uplink, so the upload is seen in progress.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 96 * 1024 });
  await picker.setInputFiles([
    { name: 'menu.txt', mimeType: 'text/plain', buffer: Buffer.from('Soup of the day\n'.repeat(20_000)) },
    { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\n'.repeat(30_000)) },
  ]);
  const progress = page.getByRole('progressbar', { name: 'Uploading menu.txt' });
  await expect(progress).toBeVisible();
  await expect(progress).not.toHaveAttribute('aria-valuenow', '0');
  await screenshotBothThemes(page, 'conversation-attachments-uploading');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const items = page.locator('.attachment');
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(items.nth(1)).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(items.nth(0)).toContainText('Uploaded');
  await screenshotBothThemes(page, 'conversation-attachments');

  // Files alone are sent as 'Files uploaded'; no thread yet, so the message starts one.
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(userMessages(page)).toHaveText(['Files uploaded']);
  await expect(page.locator('.message-file')).toHaveText(['menu.txt', 'notes.md']);
  await expect(items).toHaveCount(0);

  // The 100 MB check is client-side: a sparse file one byte over the limit never leaves the browser.
  const dir = mkdtempSync(join(tmpdir(), 'aw-big-'));
  const big = join(dir, 'huge.bin');
  writeFileSync(big, '');
  truncateSync(big, 100 * 1024 * 1024 + 1);
  const uploads: string[] = [];
  page.on('request', (r) => r.url().includes('/upload_file') && uploads.push(r.url()));
  await picker.setInputFiles(big);
  const refusal = page.getByText('huge.bin exceeds the 100MB limit and cannot be uploaded.');
  await expect(refusal).toBeVisible();
  await screenshotBothThemes(page, 'conversation-oversize');
  expect(uploads).toEqual([]);
  await expect(refusal).toBeHidden({ timeout: 7000 });
});

test('the browser reads the server\'s 413 {detail} for an upload over 100 MB that skips the client\'s check', async ({ page, request, consoleErrors }) => {
  consoleErrors.allow(/413 \(Payload Too Large\)/);
  const { agent } = await newUserWithAgent(page, request);
  await page.goto(`/agent/${agent.id}`);
  const token = await accessToken(page);
  // What a script (or a patched client) would send: 101 MB straight to the API.
  const [status, body] = await page.evaluate(async ({ id, token }) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(101 * 1024 * 1024)]), 'big.bin');
    const res = await fetch(`/api/agents/${id}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
    return [res.status, await res.json()];
  }, { id: agent.id, token });
  expect(status).toBe(413);
  expect(body).toEqual({ detail: 'File exceeds the 100MB limit' });
});

test('runner output renders: reasoning, Markdown answers, tool call groups, Thinking, the stop button and the error box', async ({ page, request }) => {
  const { agent, api } = await newUserWithAgent(page, request);
  const thread = await api('post', `/threads/${agent.id}/create-new-thread`, { user_text: 'Find flights to Lisbon', user_files: [] });
  // No runner exists yet, so its output is stood in for: the steps page and the thread's run state.
  let state: 'running' | 'failed' = 'running';
  await page.route(`**/api/agents/${agent.id}`, (route) => rewriteJson(route, (body) => {
    body.agent_running = state === 'running';
    body.threads = body.threads.map((t: { id: number }) => t.id !== thread.id ? t : {
      ...t,
      thread_running: state === 'running',
      error_message: state === 'failed' ? 'The browser crashed while loading the airline site.' : '',
    });
    return body;
  }));
  await page.route(`**/api/threads/${thread.id}/steps?**`, (route) => route.fulfill({
    json: {
      total_count: 3,
      steps: [
        { thread_id: thread.id, sequence: 1, user_text: 'Find flights to Lisbon', user_files: [], reasoning_text: '', assistant_text: '', tool_calls: [] },
        {
          thread_id: thread.id, sequence: 2, user_text: '', user_files: [],
          reasoning_text: 'The user wants flights; I should open a travel site first.',
          assistant_text: 'I found **three** options:\n\n1. TAP, 09:10\n2. easyJet, 13:45\n3. Ryanair, 18:20\n\nThe cheapest is `Ryanair`.',
          tool_calls: [{ name: 'open_browser', status: 'done' }, { name: 'search_flights', status: 'done' }],
        },
        {
          thread_id: thread.id, sequence: 3, user_text: 'Book the cheapest one', user_files: [], reasoning_text: '', assistant_text: '',
          tool_calls: [{ name: 'click', status: 'done' }, { name: 'type_text', status: 'running' }, { name: 'submit', status: 'pending' }],
        },
      ],
    },
  }));
  await page.goto(`/agent/${agent.id}`);
  await expect(page.locator('.message-assistant strong')).toHaveText('three');
  const groups = page.locator('.tool-group-toggle');
  await expect(groups).toHaveText(['Completed 2 action(s)', 'Completing 2 actions']);
  await expect(groups.nth(1)).toHaveAttribute('aria-expanded', 'true');
  await expect(groups.nth(0)).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('.tool-call-name')).toHaveText(['click', 'type_text']);
  await expect(page.getByText('Thinking', { exact: true })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message text' })).toHaveCount(0);
  await screenshotBothThemes(page, 'conversation-running');

  const stops: string[] = [];
  page.on('request', (r) => r.method() === 'POST' && /\/stop$/.test(r.url()) && stops.push(new URL(r.url()).pathname));
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect.poll(() => stops.sort()).toEqual(['/api/agents/stop', `/api/threads/${thread.id}/stop`]);

  state = 'failed';
  await expect(page.getByRole('alert').filter({ hasText: 'The browser crashed' })).toBeVisible({ timeout: 8000 });
  await expect(groups).toHaveText(['Completed 2 action(s)', 'Completed 2 action(s)']);
  await expect(page.getByRole('textbox', { name: 'Message text' })).toBeVisible();
  await screenshotBothThemes(page, 'conversation-failed');
  await page.setViewportSize({ width: 375, height: 760 });
  await screenshotBothThemes(page, 'conversation-failed-375');
});
