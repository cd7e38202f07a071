// Phones (issue 47), in Chromium's mobile emulation (touch events, a phone's viewport): every screen at 390×844 and
// 360×800 in both themes, with no sideways scrolling, no control under 44 px, nothing cut off at the right edge,
// and axe clean. Then the journey: a run asks for help, the person switches to the desktop, takes control by a
// tap, taps the terminal, opens the keyboard with the key bar's button and types (a composition included); the
// text reaches the desktop's terminal; a pinch zooms the view, not the page; a long press right-clicks and a
// two-finger drag scrolls; Expand chat hands back, and the hand-back log holds it all.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './console.ts';
import { axeFindings } from './axe.ts';
import { accessToken, ADMIN, screenshotBothThemes, signIn, terminalDrawn } from './fixtures.ts';

const PHONES = [{ width: 390, height: 844 }, { width: 360, height: 800 }];
test.use({ viewport: PHONES[0], hasTouch: true, isMobile: true });

/**
 * What a phone would show wrong: a page that scrolls sideways, a control smaller than 44×44 (links inside a
 * sentence excepted, WCAG 2.5.8), and anything past the right edge that no box of its own scrolls or clips.
 */
function phoneFindings(page: Page, screen: string, width: number): Promise<string[]> {
  return page.evaluate(({ screen, width }) => {
    const out: string[] = [];
    // The page, and the boxes that scroll down but must never sideways.
    const pages = [document.documentElement, document.body, ...document.querySelectorAll('.app-content, .message-list, .thread-popover, .modal-body')];
    for (const box of pages) {
      if (box && box.scrollWidth > box.clientWidth + 1) {
        out.push(`${screen}: ${box.className || box.tagName.toLowerCase()} scrolls sideways (${box.scrollWidth} > ${box.clientWidth})`);
      }
    }
    const name = (el: Element) => {
      const label = el.getAttribute('aria-label') || el.getAttribute('title') || el.textContent?.trim().slice(0, 30) || '';
      return `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : ''} "${label}"`;
    };
    const shown = (el: Element) => {
      for (let e: Element | null = el; e; e = e.parentElement) {
        const style = getComputedStyle(e);
        if (style.visibility === 'hidden' || style.opacity === '0' || e.classList.contains('visually-hidden')) return false;
      }
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    /** A box on the screen between the element and the page that scrolls or clips sideways on purpose (a table, an ellipsis). */
    const heldBack = (el: Element) => {
      for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
        if (e.matches('.app-content, .app-main, .app, .message-list, .modal-body')) return false;
        if (getComputedStyle(e).overflowX !== 'visible' && e.getBoundingClientRect().right <= width + 1) return true;
      }
      return false;
    };
    const controls = 'button, a[href], [role="button"], select, input:not([type="hidden"]), textarea, summary';
    for (const el of document.querySelectorAll(controls)) {
      if (!shown(el)) continue;
      const style = getComputedStyle(el);
      if (style.display === 'inline') continue; // a link in a sentence
      const target = el.matches('input[type="checkbox"], input[type="radio"]') ? el.closest('label') ?? el : el;
      const r = target.getBoundingClientRect();
      if (r.width < 43.5 || r.height < 43.5) out.push(`${screen}: ${name(el)} is ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right > width + 1 && r.width > 0 && shown(el) && !heldBack(el)) out.push(`${screen}: ${name(el)} is cut off (right at ${Math.round(r.right)})`);
    }
    return out;
  }, { screen, width });
}

async function api(page: Page, method: 'GET' | 'POST' | 'PUT', path: string, data?: object) {
  const res = await page.request.fetch(`/api${path}`, { method, data, headers: { Authorization: `Bearer ${await accessToken(page)}` } });
  expect(res.ok(), `${method} ${path}: ${res.status()}`).toBe(true);
  return res.json();
}

test('every screen at 390×844 and 360×800 in both themes; take control by touch, type with the phone keyboard, hand back', async ({ page }) => {
  test.setTimeout(180_000);
  const found: string[] = [];
  /** The screen at both phone sizes: findings, screenshots in both themes; axe at the first. */
  const check = async (screen: string, file: string) => {
    for (const size of PHONES) {
      await page.setViewportSize(size);
      // A mobile browser lays a page wider than the phone out at its width and zooms out: a page that scrolls sideways.
      const laidOut = await page.waitForFunction((w) => window.innerWidth === w, size.width, { timeout: 2000 }).then(() => size.width)
        .catch(() => page.evaluate(() => window.innerWidth));
      if (laidOut !== size.width) found.push(`${screen} ${size.width}: laid out ${laidOut} px wide`);
      found.push(...(await phoneFindings(page, `${screen} ${size.width}`, size.width)));
      await screenshotBothThemes(page, `phone-${file}-${size.width}`);
    }
    await page.setViewportSize(PHONES[0]);
    found.push(...(await axeFindings(page, `${screen} (phone)`)));
  };

  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await check('Sign-in', 'sign-in');
  await signIn(page, ADMIN.email, ADMIN.password);

  // An agent with a report and an e-mail draft waiting for approval (the offline model writes both).
  const run = Date.now().toString(36);
  const agent = await api(page, 'POST', '/agents/', { name: `Phone ${run}` });
  await api(page, 'POST', `/agents/${agent.id}/run-state`, { state: 'run_all' });
  await api(page, 'POST', `/threads/${agent.id}/create-new-thread`, { user_text: `write a report Phone ${run}: all good (50% done)`, user_files: [] });
  await api(page, 'POST', `/threads/${agent.id}/create-new-thread`, {
    user_text: `draft an email to jane@partner.example about "Phone ${run}" saying "All good from the phone."`, user_files: [],
  });
  const approvals = async () => (await api(page, 'GET', '/admin/threads-requiring-approval')).filter((t: any) => t.agent_name === agent.name);
  await expect.poll(async () => (await approvals()).length, { timeout: 60_000, message: 'the draft to wait for approval' }).toBe(1);
  const [mailThread] = await approvals();

  await page.goto('/');
  await expect(page.locator('.agent-card', { hasText: agent.name })).toBeVisible();
  await check('Your Agents', 'agents');

  const screens: [string, string, string, () => Promise<unknown>][] = [
    ['Reports', 'reports', '/reports', () => expect(page.getByRole('heading', { name: 'All reports' })).toBeVisible()],
    ['Report detail', 'report', '', async () => {
      await page.getByRole('row').filter({ hasText: `Phone ${run}` }).first().click();
      await expect(page).toHaveURL(/\/reports\/\d+$/);
    }],
    ['Admin Dashboard', 'admin', '/admin', () => expect(page.getByRole('table').first()).toBeVisible()],
    ['Admin agent page', 'admin-agent', `/admin/agents/${agent.id}`, () => expect(page.getByRole('table').first()).toBeVisible()],
    ['Outbound mail approval', 'admin-thread', `/admin/threads/${mailThread.id}`,
      () => expect(page.getByRole('list', { name: 'Communication' }).getByRole('button', { name: 'Queue' })).toBeVisible()],
    ['Ops Dashboard', 'ops', '/admin/threads', () => expect(page.getByRole('table').first()).toBeVisible()],
    ['LLM Traces', 'traces', '/llm-traces', () => expect(page.getByRole('table').first()).toBeVisible()],
  ];
  for (const [screen, file, path, ready] of screens) {
    if (path) await page.goto(path);
    await ready();
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
    await check(screen, file);
  }

  // Billing with a card (answered here: adding one goes through the portal, billing.spec.ts), and its spend limit.
  await page.route('**/api/billing/payment-method', (route) => route.fulfill({ json: { brand: 'visa', last4: '4242', exp_month: 7, exp_year: 2031 } }));
  await page.goto('/settings/billing');
  const spend = page.getByRole('region', { name: 'Current Spend' });
  await expect(spend.getByRole('button', { name: 'Edit limit' })).toBeVisible();
  await check('Billing', 'billing');
  await spend.getByRole('button', { name: 'Edit limit' }).tap();
  await expect(page.getByRole('dialog', { name: 'Set spend limit' })).toBeVisible();
  await check('Spend limit dialog', 'spend-limit');
  await page.keyboard.press('Escape');
  await page.unroute('**/api/billing/payment-method');

  // The journey. The run asks for help; the chat shows the request.
  const adminToken = (await (await page.request.post('/api/auth/sign-in', { data: ADMIN })).json()).token;
  const desktops = await (await page.request.get('/api/desktops/status', { headers: { Authorization: `Bearer ${adminToken}` } })).json();
  test.skip(!desktops.available && !process.env.CI, `desktops are off on this machine: ${desktops.reason}`);
  await api(page, 'POST', `/agents/${agent.id}/run-state`, { state: 'run_all' });
  await api(page, 'POST', `/threads/${agent.id}/create-new-thread`, { user_text: 'ask me for help with "Please type the code on the phone"', user_files: [] });
  await page.goto(`/agent/${agent.id}`);
  const chat = page.getByRole('complementary', { name: 'Chat' });
  const help = chat.locator('.help-request');
  await expect(help).toContainText('Please type the code on the phone', { timeout: 30_000 });
  await check('Agent screen: chat with a help request', 'agent-help');
  await chat.getByRole('button', { name: /: show all threads$/ }).tap();
  await expect(chat.getByRole('region', { name: 'All threads' })).toBeVisible();
  await check('Agent screen: thread list', 'agent-threads');
  await chat.getByRole('button', { name: /: show all threads$/ }).tap();

  // The switch shows the desktop instead of the chat.
  await page.getByRole('button', { name: 'Desktop', exact: true }).tap();
  await expect(chat).toBeHidden();
  const frame = page.locator('.live-frame');
  await expect(frame).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await terminalDrawn(page);
  await check('Agent screen: desktop', 'agent-desktop');

  // A pinch zooms the view, not the page.
  const view = (await page.locator('.live-view').boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  const y = view.y + view.height / 2;
  const touches = (spread: number) => [{ x: view.x + view.width / 2 - spread, y, id: 0 }, { x: view.x + view.width / 2 + spread, y, id: 1 }];
  const pinch = async (spreads: number[]) => {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: touches(spreads[0]) });
    for (const spread of spreads.slice(1)) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: touches(spread) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  };
  await pinch([20, 40, 60, 80]);
  await expect(page.locator('.live-display')).toHaveAttribute('style', /scale\(4\)/);
  expect(await page.evaluate(() => window.visualViewport?.scale)).toBe(1);
  await screenshotBothThemes(page, 'phone-agent-desktop-zoomed-390');
  await pinch([80, 40, 20]);
  await expect(page.locator('.live-display')).not.toHaveAttribute('style', /scale/);

  // Take control by a tap: the agent stops, the chat becomes the hand-back bar, the key bar shows.
  await page.getByRole('region', { name: 'Virtual machine' }).getByRole('button', { name: 'Take control' }).tap();
  await expect(page.getByRole('button', { name: 'Expand chat' })).toBeVisible();
  const keys = page.getByRole('group', { name: 'Keys for the desktop' });
  await expect(keys).toBeVisible();
  await check('Agent screen: in control', 'agent-control');

  // Tap the terminal (left half of the 1280×800 desktop), open the phone's keyboard, type: a composition too.
  const shown = (await page.locator('.live-display').boundingBox())!;
  await page.touchscreen.tap(shown.x + (320 / 1280) * shown.width, shown.y + (400 / 800) * shown.height);
  await keys.getByRole('button', { name: 'Keyboard' }).tap();
  const field = page.getByLabel('Type on the desktop');
  await expect(field).toBeFocused();
  // Ctrl from the bar holds for the next key typed: Ctrl+U (bash clears the line) — and the keyboard stays open.
  await keys.getByRole('button', { name: 'Ctrl' }).tap();
  await expect(field).toBeFocused();
  await expect(keys.getByRole('button', { name: 'Ctrl' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.type('u');
  await expect(keys.getByRole('button', { name: 'Ctrl' })).toHaveAttribute('aria-pressed', 'false');
  await page.keyboard.type('echo phone-');
  for (const draft of ['t', 'ty', 'typ']) await cdp.send('Input.imeSetComposition', { text: draft, selectionStart: draft.length, selectionEnd: draft.length });
  await cdp.send('Input.insertText', { text: 'typed' });
  await page.keyboard.type(' > ~/Desktop/phone.txt');
  await page.keyboard.press('Enter');
  const file = join(process.env.E2E_DATA_DIR!, 'desktops', `agent-${agent.id}`, 'Desktop', 'phone.txt');
  await expect.poll(() => (existsSync(file) ? readFileSync(file, 'utf8') : null), { timeout: 15_000 }).toBe('phone-typed\n');
  // A long press is a right click, a two-finger drag up the wheel down (the hand-back log names both).
  const terminal = { x: shown.x + (320 / 1280) * shown.width, y: shown.y + (400 / 800) * shown.height };
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ ...terminal, id: 0 }] });
  await page.waitForTimeout(700);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  const fingers = (dy: number) => [{ x: terminal.x - 15, y: terminal.y + dy, id: 0 }, { x: terminal.x + 15, y: terminal.y + dy, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(0) });
  for (const dy of [-15, -30, -45]) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(dy) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });

  // Hand back: the chat shows again, the help request is answered by the take-over.
  await page.getByRole('button', { name: 'Expand chat' }).tap();
  await expect(chat).toBeVisible();
  await expect(chat.locator('.handback')).toBeVisible({ timeout: 15_000 });
  await chat.locator('.handback').getByRole('button').tap();
  await expect(chat.locator('.handback')).toContainText("typed 'echo phone-typed > ~/Desktop/phone.txt'");
  await expect(chat.locator('.handback')).toContainText('pressed ctrl+u');
  await expect(chat.locator('.handback')).toContainText(/right-clicked at \d+,\d+ in the window "Terminal"/);
  await expect(chat.locator('.handback')).toContainText(/scrolled down \d+ at/);
  await check('Agent screen: handed back', 'agent-handback');

  expect(found, found.join('\n')).toEqual([]);
});
