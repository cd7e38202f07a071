// Supervision end to end (issue 19), on the offline model and a real desktop: the agent asks for help, the person
// follows the help e-mail's link to take control (issue 46), types in the terminal, reloads the page in the middle (control stays, the agent is
// not started again), hands back with Expand chat; the next trace's request holds what they typed as actions and
// the agent goes on with its plan. Then the runaway guard pauses a run that clicks the same spot on an unchanged
// screen. Screenshots of the help request, the hand-back item and the guard's pause in both themes.
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { ADMIN, newUserWithAgent, screenshotBothThemes, signIn, signOut, terminalDrawn } from './fixtures.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const OUTBOX = join(process.env.E2E_DATA_DIR!, 'outbox');

/** The take-control link of the help e-mail about this agent, once it is in the outbox. */
function controlLink(agentId: number): string | null {
  if (!existsSync(OUTBOX)) return null;
  for (const name of readdirSync(OUTBOX)) {
    const text = readFileSync(join(OUTBOX, name), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const found = new RegExp(`https?://\\S+/agent/${agentId}\\?control=1`).exec(text);
    if (found) return found[0];
  }
  return null;
}

async function send(page: Page, text: string) {
  const input = page.getByPlaceholder('Write anything...');
  await input.fill(text);
  await input.press('Enter');
}

/** Clicks the desktop at a point given in desktop pixels (1280x800), through the scaled view. */
async function clickDesktop(page: Page, x: number, y: number) {
  const box = (await page.locator('.live-display').boundingBox())!;
  await page.mouse.click(box.x + (x / 1280) * box.width, box.y + (y / 800) * box.height);
}

test('the agent asks, the person takes control, reloads, types, hands back; the agent goes on; the guard pauses a loop', async ({ page, request }) => {
  test.setTimeout(180_000);
  const adminToken = (await (await request.post('/api/auth/sign-in', { data: ADMIN })).json()).token;
  const desktops = await (await request.get('/api/desktops/status', { headers: { Authorization: `Bearer ${adminToken}` } })).json();
  test.skip(!desktops.available && !process.env.CI, `desktops are off on this machine: ${desktops.reason}`);
  expect(desktops.available, desktops.reason).toBe(true);

  const { agent, token } = await newUserWithAgent(page, request, `Helper ${Date.now().toString(36)}`);
  const auth = { Authorization: `Bearer ${token}` };
  const api = async (path: string) => (await page.request.get(`/api${path}`, { headers: auth })).json();
  await page.goto(`/agent/${agent.id}`);
  await expect(page.locator('.live-frame')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await terminalDrawn(page);

  // The agent asks.
  await page.getByRole('button', { name: 'Fast' }).click();
  await expect(page.getByRole('button', { name: 'Fast' })).toHaveAttribute('aria-pressed', 'true');
  await send(page, 'ask me for help with "Could you run the setup command in the terminal for me?" '
    + 'and then open a terminal and type "echo agent-continues" and press enter');
  const chat = page.getByRole('complementary', { name: 'Chat' });
  const help = chat.locator('.help-request');
  await expect(help).toBeVisible({ timeout: 30_000 });
  await expect(help).toContainText('The agent asks for your help');
  await expect(help).toContainText('Could you run the setup command in the terminal for me?');
  await expect(page.getByRole('button', { name: 'Fast' })).toHaveAttribute('aria-pressed', 'false');
  const agentRow = await api(`/agents/${agent.id}`);
  expect(agentRow.target_run_state).toBe('stop');
  const thread = agentRow.threads[0];
  expect(thread.needs_help.question).toBe('Could you run the setup command in the terminal for me?');
  await screenshotBothThemes(page, 'supervise-help-request');

  // The owner's e-mail (in the outbox) links to the desktop with control ready (issue 46): the person follows it.
  await expect.poll(() => controlLink(agent.id), { timeout: 15_000 }).not.toBeNull();
  const link = new URL(controlLink(agent.id)!);
  expect(link.pathname + link.search).toBe(`/agent/${agent.id}?control=1`);
  await page.goto(`/agent/${agent.id}?control=1`);
  await expect(page.locator('.live-frame')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await expect(page).toHaveURL(new RegExp(`/agent/${agent.id}$`));
  await expect(page.getByRole('button', { name: 'Expand chat' })).toBeVisible();
  await expect(page.getByText('You have control')).toBeVisible();
  await clickDesktop(page, 320, 400);
  await page.keyboard.type('echo person-was-here');
  await page.keyboard.press('Enter');

  // A reload in the middle of control: control comes back, the agent is not started (or stopped) again.
  const stops: string[] = [];
  page.on('request', (r) => r.url().endsWith('/api/agents/stop') && stops.push(r.url()));
  await page.reload();
  await expect(page.locator('.live-frame')).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Expand chat' })).toBeVisible();
  await expect(page.locator('.live-frame')).toHaveAttribute('data-control', 'true');
  const during = await api(`/agents/${agent.id}`);
  expect(during.target_run_state).toBe('stop');
  expect(during.agent_running).toBe(false);
  expect((await api(`/threads/${thread.id}`)).needs_help).not.toBeNull();
  await clickDesktop(page, 320, 400);
  await page.keyboard.type('echo after-reload');
  await page.keyboard.press('Enter');
  expect(stops).toEqual([]);

  // Hand back: the agent goes on with its plan.
  await page.getByRole('button', { name: 'Expand chat' }).click();
  await expect.poll(async () => (await api(`/threads/${thread.id}`)).needs_help, { timeout: 15_000 }).toBeNull();
  await expect.poll(async () => {
    const t = await api(`/threads/${thread.id}`);
    return !t.thread_running && t.schedule_sequence === null ? t.error_message : null;
  }, { timeout: 60_000, message: 'the agent to finish its plan' }).toBe('');
  const steps = (await api(`/threads/${thread.id}/steps?limit=500&offset=0`)).steps;
  const typed = steps.flatMap((s: any) => s.tool_calls).filter((c: any) => ['type', 'key'].includes(c.input?.action))
    .map((c: any) => [c.input.text, c.status]);
  expect(typed).toEqual([['echo agent-continues', 'done'], ['Return', 'done']]);

  // The next trace's request holds the person's typing as actions.
  const traces = (await api(`/llm_traces/thread/${thread.id}?limit=100&verbose=true`)).traces;
  const told = traces.filter((t: any) => JSON.stringify(t.request ?? '').includes('While you were paused, the person'));
  expect(told.length).toBeGreaterThan(0);
  const first = JSON.stringify(told.sort((a: any, b: any) => a.id - b.id)[0].request);
  expect(first).toContain("typed 'echo person-was-here'");
  expect(first).toContain("typed 'echo after-reload'");
  expect(first).toContain('pressed Enter');
  expect(first).toMatch(/clicked at \d+,\d+ in the window \\"Terminal\\"/);

  const item = chat.locator('.handback');
  await expect(item).toBeVisible();
  await expect(item.getByRole('button', { name: /^You took over for \d+ (s|min): \d+ actions$/ })).toBeVisible();
  await item.getByRole('button').click();
  await expect(item.getByText("typed 'echo after-reload'")).toBeVisible();
  await screenshotBothThemes(page, 'supervise-handback');

  // The runaway guard: the same click on an unchanged screen, twice in a row, pauses the run.
  const put = await page.request.put(`/api/agents/${agent.id}/supervision`, { headers: auth, data: { repeat_limit: 2 } });
  expect(put.status()).toBe(200);
  await chat.getByRole('button', { name: 'New thread' }).click();
  // Handing back let the agent run as before (fast): it still is.
  await expect(page.getByRole('button', { name: 'Fast' })).toHaveAttribute('aria-pressed', 'true');
  await send(page, 'click at 1270,790 and click at 1270,790 and click at 1270,790 and click at 1270,790 and click at 1270,790');
  await expect(help).toBeVisible({ timeout: 30_000 });
  await expect(help).toContainText('Paused by the runaway guard');
  await expect(help).toContainText('times in a row and the screen did not change');
  // Said once: the card holds the reason while it waits (the thread's answer keeps it for after).
  await expect(chat.getByText(/times in a row and the screen did not change/)).toHaveCount(1);
  // The thread list marks the thread that waits.
  await chat.getByRole('button', { name: /: show all threads$/ }).click();
  const waitingRow = chat.getByRole('region', { name: 'All threads' }).locator('.thread-row', { hasText: 'click at 1270,790' });
  await expect(waitingRow.getByText('Waiting for you')).toBeVisible();
  await screenshotBothThemes(page, 'supervise-thread-list-waiting');
  await chat.getByRole('button', { name: /: show all threads$/ }).click();
  await screenshotBothThemes(page, 'supervise-guard-paused');

  // The agents grid marks the agent as waiting for a person.
  await page.goto('/');
  await expect(page.locator('.agent-card', { hasText: agent.name }).getByText('Waiting for a person')).toBeVisible();
  await screenshotBothThemes(page, 'supervise-agents-waiting');

  // An admin: the Ops Dashboard marks the thread, its page says why it paused, Developer options hold the rules.
  const me = await api('/users/me');
  await signOut(page);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/admin/ops');
  const opsRow = page.getByRole('row', { name: /click at 1270,790/ });
  await expect(opsRow.getByText('Waiting for a person')).toBeVisible();
  await screenshotBothThemes(page, 'supervise-ops-dashboard');
  await opsRow.click();
  await expect(page.locator('.admin-help')).toContainText('Paused by the runaway guard');
  // The thread's page is its agent's, under the Admin Dashboard, whichever list led there.
  const rail = page.getByRole('navigation', { name: 'Main' });
  await expect(rail.getByTitle('Admin Dashboard', { exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(rail.getByTitle('Ops Dashboard', { exact: true })).not.toHaveAttribute('aria-current', 'page');
  await screenshotBothThemes(page, 'supervise-admin-thread');
  await page.evaluate((id) => localStorage.setItem('impersonateUserId', String(id)), me.id);
  await page.goto(`/agent/${agent.id}`);
  await page.getByRole('button', { name: 'More options' }).click();
  await page.getByRole('menuitem', { name: 'Developer options' }).click();
  const dialog = page.getByRole('dialog', { name: 'Developer options' });
  await expect(dialog.getByLabel('Same action on an unchanged screen, times in a row')).toHaveValue('2');
  await expect(dialog.getByLabel('Cost since your last message, USD')).toHaveValue('2');
  await screenshotBothThemes(page, 'supervise-developer-options');
});
