// Security in the browser: a Markdown XSS corpus rendered in the chat (the offline model echoes what it
// did not understand, as Markdown) fires no handler, runs no script and loads nothing; and the
// Content-Security-Policy stops an inline script that got into the page some other way.
import type { Page, Response } from '@playwright/test';
import { expect, test } from './console.ts';
import { accessToken, ADMIN, screenshotBothThemes, signUp } from './fixtures.ts';

// Each payload would call xss(n) (or alert) or fetch an "xss-probe" URL if it got through. Quoted with
// “ ” so the offline planner echoes each one whole; none may contain ”.
const CORPUS = [
  '<img src=x onerror=xss(1)>',
  '<svg onload=xss(2)>',
  '<iframe src="javascript:xss(3)"></iframe>',
  '[link](javascript:xss(4))',
  '[link](JaVaScRiPt:xss(5))',
  '[link](&#106;avascript:xss(6))',
  '<a href="javascript&colon;xss(7)">colon</a>',
  '<details open ontoggle=xss(8)>details</details>',
  '<div onmouseover=xss(9) onclick=xss(9) id=hover>hover me</div>',
  '<math><mtext><table><mglyph><style><img src=x onerror=xss(10)>',
  '<noscript><p title="</noscript><img src=x onerror=xss(11)>">',
  '<form action="javascript:xss(12)"><button>go</button></form>',
  '<input autofocus onfocus=xss(13)>',
  '<object data="javascript:xss(14)"></object>',
  '<embed src="/xss-probe-embed">',
  '<video poster="javascript:xss(15)" src="/xss-probe-video"></video>',
  '<a href="data:text/html,<script>xss(16)</script>">data link</a>',
  '![img](javascript:xss(17))',
  '<img srcset="/xss-probe-srcset 1x">',
  '<div style="background-image:url(/xss-probe-style)">styled</div>',
  '<base href="https://evil.example/">',
  '<meta http-equiv="refresh" content="0;url=/xss-probe-meta">',
  '<link rel=stylesheet href=/xss-probe-link.css>',
  '<style>@import url(/xss-probe-import.css);</style>',
  '<select autofocus onfocus=xss(18)></select>',
  '<a href="vbscript:xss(19)">vb</a>',
  '<svg><a xlink:href="javascript:xss(20)"><text x=0 y=20>svg link</text></a></svg>',
  '<img src=x:x onerror=xss(21)>',
  '<IMG SRC=`javascript:xss(22)`>',
  '<scr<script>ipt>xss(23)</script>',
  '<a href="  javascript:xss(24)">spaced</a>',
  '<textarea autofocus onfocus=xss(25)></textarea>',
  '<body onload=xss(26)>',
  '<marquee onstart=xss(27)>m</marquee>',
  '<a href="#" onclick="xss(28)">click me</a>',
];

/** Before any page script: a flag every payload would raise, and a log of CSP violations. */
async function arm(page: Page) {
  await page.addInitScript(() => {
    const w = window as any;
    w.__xss = [];
    w.__csp = [];
    w.xss = (n: unknown) => w.__xss.push(n);
    w.alert = w.confirm = w.prompt = (n: unknown) => w.__xss.push(`alert:${n}`);
    // Only violations of the live page count: DOMPurify parses the dirty HTML in an inert document (DOMParser),
    // and Chromium reports that document's inline handlers, styles and <base> there, with the document as target.
    document.addEventListener('securitypolicyviolation', (e) => {
      const target = e.target as Node;
      if (target instanceof Element && target.isConnected) w.__csp.push(`${e.violatedDirective} ${e.blockedURI} <${target.nodeName}>`);
      else w.__inert = (w.__inert ?? 0) + 1;
    });
  });
}

test('a Markdown XSS corpus in the chat fires no handler, runs no script and loads nothing', async ({ page, request, baseURL, consoleErrors }) => {
  // What the corpus tries is blocked by the CSP too, and Chromium reports each attempt.
  consoleErrors.allow(/violates the following Content Security Policy directive/);
  test.setTimeout(150_000);
  await arm(page);
  const own = new URL(baseURL!).host;
  const suspicious: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.href.includes('xss-probe') || !['http:', 'https:', 'ws:'].includes(url.protocol) || url.host !== own) suspicious.push(r.url());
  });
  page.on('dialog', (d) => {
    suspicious.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });

  const email = await signUp(page);
  const token = await accessToken(page);
  const me = await (await page.request.get('/api/users/me', { headers: { Authorization: `Bearer ${token}` } })).json();
  const admin = await (await request.post('/api/auth/sign-in', { data: ADMIN })).json();
  const created = await request.post('/api/agents/', {
    data: { name: 'XSS corpus' }, headers: { Authorization: `Bearer ${admin.token}`, 'X-Impersonate-User-Id': String(me.id) },
  });
  expect(created.status()).toBe(201);
  const agent = await created.json();
  expect(email).toBeTruthy();

  await page.goto(`/agent/${agent.id}`);
  await page.getByRole('button', { name: 'Fast' }).click();
  await expect(page.getByRole('button', { name: 'Fast' })).toHaveAttribute('aria-pressed', 'true');
  const box = page.getByPlaceholder('Write anything...');
  const chat = page.getByRole('complementary', { name: 'Chat' });
  const answers = chat.locator('.message-assistant');
  // One message per payload: a payload that swallows what follows it (an unclosed <style>) hides no other.
  for (const [i, payload] of CORPUS.entries()) {
    await box.fill(`“${payload}”`);
    await box.press('Enter');
    // Its echo arrived (what follows a swallowing payload, like "You said", may be gone: that is the sanitizer). The
    // first run starts the agent's desktop (its home image, Xvnc): beside four busy loops that took over 15 s once.
    await expect(answers).toHaveCount(i + 1, { timeout: i === 0 ? 60_000 : 15_000 });
    await expect(answers.nth(i)).toContainText('I did not understand');
  }
  await expect(answers.filter({ hasText: 'hover me' })).toHaveCount(1);
  await expect(answers.filter({ hasText: 'spaced' })).toHaveCount(1);

  // Poke every element the way a person would, to give any surviving handler its chance.
  await answers.evaluateAll((roots) => {
    for (const el of roots.flatMap((root) => [...root.querySelectorAll('*')])) {
      for (const type of ['mouseover', 'mouseenter', 'focus', 'focusin', 'toggle', 'animationstart', 'error', 'load']) el.dispatchEvent(new Event(type));
      if (el.tagName !== 'A') (el as HTMLElement).click?.();
    }
  });
  await chat.locator('[id$="hover"]').first().hover();

  const dom = await answers.evaluateAll((roots) => {
    const all = roots.flatMap((root) => [...root.querySelectorAll('*')]);
    return {
      scripts: all.filter((el) =>
        el.matches('script, iframe, object, embed, form, svg, math, style, link, meta, base, noscript, input:not([type=checkbox])')).length,
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName} ${a.name}`)),
      urls: all.flatMap((el) => ['href', 'src', 'action', 'poster', 'data', 'srcset'].map((n) => el.getAttribute(n)).filter((v): v is string => v !== null)),
    };
  });
  expect(dom.scripts).toBe(0);
  expect(dom.handlers).toEqual([]);
  for (const url of dom.urls) expect(url, url).not.toMatch(/^\s*(javascript|vbscript|data):|xss-probe/i);

  expect(await page.evaluate(() => (window as any).__xss)).toEqual([]);
  expect(await page.evaluate(() => (window as any).__csp)).toEqual([]);
  expect(await page.evaluate(() => ({ base: new URL(document.baseURI).origin, tags: document.querySelectorAll('base').length })))
    .toEqual({ base: new URL(baseURL!).origin, tags: 0 });
  expect(suspicious).toEqual([]);
  await answers.last().scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'security-xss-corpus');
});

test('the Content-Security-Policy blocks inline scripts and inline handlers that get into the page (and allows no eval)', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/violates the following Content Security Policy directive/);
  await arm(page);
  const assets: Response[] = [];
  page.on('response', (r) => new URL(r.url()).pathname.startsWith('/assets/') && assets.push(r));
  const response = await page.goto('/');
  const csp = response!.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  // The built scripts and styles are no documents: nosniff and the referrer policy, not the document's headers.
  expect(assets.map((a) => new URL(a.url()).pathname)).toEqual(expect.arrayContaining([expect.stringMatching(/\.js$/), expect.stringMatching(/\.css$/)]));
  for (const asset of assets) {
    const headers = await asset.allHeaders();
    expect(headers['x-content-type-options'], asset.url()).toBe('nosniff');
    expect(headers['referrer-policy'], asset.url()).toBe('strict-origin-when-cross-origin');
    expect(headers['content-security-policy'], asset.url()).toBeUndefined();
    expect(headers['x-frame-options'], asset.url()).toBeUndefined();
  }

  const result = await page.evaluate(async () => {
    const w = window as any;
    const script = document.createElement('script');
    script.textContent = 'window.xss("inline script")';
    document.body.append(script);
    const div = document.createElement('div');
    div.setAttribute('onclick', 'window.xss("inline handler")');
    document.body.append(div);
    div.click();
    const link = document.createElement('a');
    link.href = 'javascript:window.xss("javascript url")';
    document.body.append(link);
    link.click();
    // Violations are reported asynchronously.
    for (let i = 0; i < 50 && w.__csp.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    return { fired: w.__xss, violations: w.__csp };
  });
  expect(result.fired).toEqual([]);
  expect(result.violations.some((v: string) => v.startsWith('script-src-elem') || v.startsWith('script-src'))).toBe(true);
  expect(result.violations.some((v: string) => v.startsWith('script-src-attr'))).toBe(true);
});
