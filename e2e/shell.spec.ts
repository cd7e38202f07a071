import { expect, test } from './console.ts';
import { ADMIN, PASSWORD, screenshotBothThemes, signIn, signOut, signUp, uniqueEmail } from './fixtures.ts';

const ADMIN_ITEMS = ['Impersonate User', 'Admin Dashboard', 'Ops Dashboard', 'LLM Traces'];

test('a visitor signs up, signs out and signs back in', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sign in to Agent Workspace' })).toBeVisible();
  await screenshotBothThemes(page, 'sign-in');
  // Nothing but the sign-in form for a signed-out visitor.
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);

  const email = await signUp(page);
  await expect(page.getByRole('heading', { name: 'Agent Management' })).toBeVisible();
  await expect(page.getByRole('button', { name: `Profile: ${email}` })).toHaveText(email[0].toUpperCase());
  await signOut(page);
  await signIn(page, email, PASSWORD);

  // The refresh cookie keeps the session across a reload; the token itself lives in memory.
  await page.reload();
  await expect(page.getByRole('button', { name: `Profile: ${email}` })).toBeVisible();
  expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('eyJ');
});

test('a lost password without a mail relay: the sign-in page says to ask an administrator for a link', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Forgot your password?' }).click();
  await expect(page.getByText('Ask an administrator of this workspace for a link to choose a new password.')).toBeVisible();
  await screenshotBothThemes(page, 'sign-in-forgot');
});

test('a wrong password shows the error and keeps the form', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/401 \(Unauthorized\) \(at \S+\/api\/auth\/sign-in\)/);
  await page.goto('/');
  await page.getByLabel('E-mail').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  await expect(page.getByLabel('E-mail')).toHaveValue(ADMIN.email);
});

test('the bootstrap admin sees the admin rail items and a user does not', async ({ page, browser }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  const rail = page.getByRole('navigation', { name: 'Main' });
  for (const name of ['Your Agents', 'Reports', 'Settings', ...ADMIN_ITEMS]) {
    await expect(rail.getByTitle(name, { exact: true })).toBeVisible();
  }
  await screenshotBothThemes(page, 'shell-admin');
  await page.getByRole('button', { name: `Profile: ${ADMIN.email}` }).click();
  await expect(page.getByRole('dialog', { name: 'Profile' })).toContainText('admin');
  await screenshotBothThemes(page, 'profile-modal');

  const other = await browser.newPage();
  await signUp(other);
  const userRail = other.getByRole('navigation', { name: 'Main' });
  await expect(userRail.getByTitle('Your Agents', { exact: true })).toBeVisible();
  for (const name of ADMIN_ITEMS) await expect(userRail.getByTitle(name, { exact: true })).toHaveCount(0);
  await other.close();
});

test('the rail has no scrollbar of its own and its hover labels show whole beside it', async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  const rail = page.getByRole('navigation', { name: 'Main' });
  // The rail scrolls sideways when it is a scrolling box whose content is wider than it (the labels beside it).
  const scrollsSideways = await rail.evaluate((el) => getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth);
  expect(scrollsSideways).toBe(false);
  const item = rail.getByTitle('Ops Dashboard', { exact: true });
  await item.hover();
  const label = item.locator('.rail-label');
  await expect(label).toHaveCSS('opacity', '1');
  // No box around the label cuts it: the first ancestor that clips and does not hold the label whole, if any.
  const clippedBy = await label.evaluate((el) => {
    const r = el.getBoundingClientRect();
    for (let box = el.parentElement; box; box = box.parentElement) {
      const b = box.getBoundingClientRect();
      if (getComputedStyle(box).overflowX !== 'visible' && (r.left < b.left || r.right > b.right)) return box.className;
    }
    return null;
  });
  expect(clippedBy).toBeNull();
});

test('a user changes their password in the profile modal; a wrong current one is refused, the new one signs in', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/422 \(Unprocessable Entity\) \(at \S+\/api\/users\/me\/password\)/);
  const email = await signUp(page);
  await page.getByRole('button', { name: `Profile: ${email}` }).click();
  const profile = page.getByRole('dialog', { name: 'Profile' });
  await profile.getByRole('button', { name: 'Change password' }).click();
  await expect(profile.getByLabel('Current password')).toBeFocused();
  await profile.getByLabel('Current password').fill('not my password');
  await profile.getByLabel('New password').fill('a fresh passphrase');
  await profile.getByRole('button', { name: 'Change password' }).click();
  await expect(profile.getByRole('alert')).toHaveText('The current password is not right');
  await profile.getByLabel('Current password').fill(PASSWORD);
  await profile.getByRole('button', { name: 'Change password' }).click();
  await expect(profile.getByRole('status').filter({ hasText: 'Password changed.' })).toBeVisible();
  await screenshotBothThemes(page, 'profile-password');
  await page.keyboard.press('Escape');
  await signOut(page);
  await signIn(page, email, 'a fresh passphrase');
});

test('a user on admin pages sees Forbidden: Admins only.', async ({ page }) => {
  await signUp(page);
  for (const path of ['/admin', '/admin/ops', '/admin/agents/1', '/admin/threads/1', '/llm-traces']) {
    await page.goto(path);
    await expect(page.getByText('Forbidden: Admins only.')).toBeVisible();
  }
  await screenshotBothThemes(page, 'forbidden');
});

test('the theme toggle survives a reload', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await signUp(page);
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'light');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  await expect(html).toHaveAttribute('data-theme', 'light');
});

test('the theme defaults to the operating-system preference', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('routes: /settings redirects to billing, unknown paths say not found', async ({ page }) => {
  await signUp(page);
  await page.goto('/settings');
  await expect(page).toHaveURL(/\/settings\/billing$/);
  await page.goto('/agent/abc');
  await expect(page.getByText('There is no page at this address.')).toBeVisible();
});

test('an admin impersonates a user and stops again', async ({ page, browser }) => {
  const userPage = await browser.newPage();
  const email = await signUp(userPage, uniqueEmail('impersonated'));
  await userPage.close();

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByTitle('Impersonate User', { exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Impersonate User' });
  await dialog.getByLabel('Search users').fill('impersonated');
  await screenshotBothThemes(page, 'impersonate-modal');
  // Each account says how it signs in (issue 49): this one with its password.
  await dialog.getByRole('button', { name: `${email} password`, exact: true }).click();

  // The page reloads acting as that user, with a banner that says so; the admin keeps the admin tools.
  await expect(page.getByText(`Acting as ${email}`)).toBeVisible();
  await expect(page.getByRole('button', { name: `Profile: ${email}` })).toBeVisible();
  await expect(page.getByTitle('Admin Dashboard', { exact: true })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('impersonateUserId'))).toMatch(/^\d+$/);
  await screenshotBothThemes(page, 'impersonating');
  // The user's password is theirs: the profile modal offers no change of it to the admin acting as them.
  await page.getByRole('button', { name: `Profile: ${email}` }).click();
  const profile = page.getByRole('dialog', { name: 'Profile' });
  await expect(profile).toContainText(ADMIN.email);
  await expect(profile.getByRole('button', { name: 'Change password' })).toHaveCount(0);
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: 'Stop impersonating' }).click();
  await expect(page.getByRole('button', { name: `Profile: ${ADMIN.email}` })).toBeVisible();
  await expect(page.getByText(`Acting as ${email}`)).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('impersonateUserId'))).toBeNull();
});

test('a lost password: the admin makes a one-time link, the user opens it signed out and chooses a new password', async ({ page, browser }) => {
  const userPage = await browser.newPage();
  const email = await signUp(userPage, uniqueEmail('forgot'));
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByTitle('Impersonate User', { exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Impersonate User' });
  await dialog.getByLabel('Search users').fill('forgot');
  await dialog.getByRole('button', { name: `Password reset link for ${email}` }).click();
  const url = await dialog.getByRole('textbox', { name: 'Password reset link' }).inputValue();
  expect(url).toMatch(/\/reset-password#[\w-]{40,}$/);
  await screenshotBothThemes(page, 'reset-link');

  // The user, in another browser (signed out there), opens it and chooses a new password; their session here ends.
  const fresh = await browser.newContext();
  const resetPage = await fresh.newPage();
  await resetPage.goto(url);
  await resetPage.getByLabel('New password', { exact: true }).fill('a newly chosen passphrase');
  await resetPage.getByRole('button', { name: 'Set password' }).click();
  await expect(resetPage.getByRole('status')).toContainText('Your new password is set');
  await screenshotBothThemes(resetPage, 'reset-password-done');
  await resetPage.getByRole('button', { name: 'Sign in' }).click();
  await signIn(resetPage, email, 'a newly chosen passphrase');
  await fresh.close();
  await userPage.close();
});

