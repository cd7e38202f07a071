import { reset } from '../setup/dom.ts';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import DOMPurify from 'dompurify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMarkdown } from '../../src/lib/markdown.ts';
import { MarkdownView } from '../../src/ui/markdown-view.tsx';


// --- helpers

// Parse the output the way the page will (innerHTML) and look at what is really there.
function render(markdown: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = renderMarkdown(markdown);
  return template.content;
}

const FORBIDDEN_TAGS = new Set([
  'script', 'svg', 'math', 'iframe', 'frame', 'object', 'embed', 'form', 'style', 'base',
  'meta', 'link', 'noscript', 'button', 'textarea', 'select', 'video', 'audio', 'source', 'track',
]);
const URL_ATTRS = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'cite', 'longdesc', 'poster', 'background', 'data', 'srcset']);
const URL_NOISE = /[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g;
const SCRIPTY = /^(?:javascript|vbscript|data):/i;
const HREF_SCHEMES = /^(?:https?|ircs?|mailto|xmpp):/i;
const HAS_SCHEME = /^[a-z][a-z\d+.-]*:/i;

function assertSafe(fragment: DocumentFragment, label: string): void {
  for (const el of fragment.querySelectorAll('*')) {
    const tag = el.localName.toLowerCase();
    // A <template>'s content is out of the tree, yet a script could clone it back in.
    if (el instanceof HTMLTemplateElement) assertSafe(el.content, `${label} (template)`);
    assert.not.ok(FORBIDDEN_TAGS.has(tag), `${label}: <${tag}> survived`);
    for (const { name, value } of el.attributes) {
      const attr = name.toLowerCase();
      const compact = value.replace(URL_NOISE, '');
      assert.not.ok(attr.startsWith('on'), `${label}: ${attr} handler on <${tag}>`);
      assert.is.not(attr, 'style', `${label}: style attribute on <${tag}>`);
      if (URL_ATTRS.has(attr)) assert.not.ok(SCRIPTY.test(compact), `${label}: ${attr}="${value}" on <${tag}>`);
      if (attr === 'href' && HAS_SCHEME.test(compact)) assert.ok(HREF_SCHEMES.test(compact), `${label}: href scheme ${value}`);
      if (attr === 'id' || attr === 'name') {
        assert.ok(value.startsWith('user-content-'), `${label}: ${attr}="${value}" not prefixed`);
        assert.not.ok(value.startsWith('user-content-user-content-'), `${label}: ${attr}="${value}" prefixed twice`);
      }
    }
  }
}

function hrefOf(markdown: string): string | null {
  return render(markdown).querySelector('a')?.getAttribute('href') ?? null;
}

// --- XSS corpus: each vector must come out inert. `gone` is text that must not survive either
// (a script's body, say); it is checked against the text content.

type Vector = { name: string; markdown: string; gone?: string; keep?: string };

const VECTORS: Vector[] = [
  { name: 'markdown link javascript:', markdown: '[x](javascript:alert(1))', keep: 'x' },
  { name: 'video src and poster (fetches on its own)', markdown: '<video src="/probe" poster="/probe.png" autoplay></video>' },
  { name: 'audio with a source', markdown: '<audio autoplay><source src="/probe.ogg"><track src="/probe.vtt"></audio>' },
  { name: 'mixed-case JaVaScRiPt:', markdown: '[x](JaVaScRiPt:alert(1))' },
  { name: 'angle-bracket destination', markdown: '[x](<javascript:alert(1)>)' },
  { name: 'decimal entity &#106;', markdown: '<a href="&#106;avascript:alert(1)">x</a>' },
  { name: 'hex entity &#x6A;', markdown: '<a href="&#x6A;avascript:alert(1)">x</a>' },
  { name: 'entity in markdown link', markdown: '[x](&#106;avascript:alert(1))' },
  { name: 'entity mid-scheme', markdown: '<a href="javas&#99;ript:alert(1)">x</a>' },
  { name: 'named entity &colon;', markdown: '<a href="javascript&colon;alert(1)">x</a>' },
  { name: 'raw tab inside scheme', markdown: '<a href="java\tscript:alert(1)">x</a>' },
  { name: 'tab entity inside scheme', markdown: '<a href="jav&#x09;ascript:alert(1)">x</a>' },
  { name: 'newline entity inside scheme', markdown: '<a href="java&#x0A;script:alert(1)">x</a>' },
  { name: 'leading spaces', markdown: '<a href="   javascript:alert(1)">x</a>' },
  { name: 'leading NUL', markdown: '<a href="\u0000javascript:alert(1)">x</a>' },
  { name: 'leading control char entity', markdown: '<a href="&#1;javascript:alert(1)">x</a>' },
  { name: 'data:text/html link', markdown: '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>' },
  { name: 'data: markdown link', markdown: '[x](data:text/html,<script>alert(1)</script>)' },
  { name: 'vbscript:', markdown: '<a href="vbscript:msgbox(1)">x</a>' },
  { name: 'reference-style link', markdown: '[x][r]\n\n[r]: javascript:alert(1)' },
  { name: 'shortcut reference with title', markdown: '[x]\n\n[x]: JAVASCRIPT:alert(1) "t"' },
  { name: 'autolink', markdown: '<javascript:alert(1)>' },
  { name: 'img onerror', markdown: '<img src=x onerror=alert(1)>', gone: 'alert' },
  { name: 'markdown image javascript:', markdown: '![x](javascript:alert(1))' },
  { name: 'img data:image/svg+xml', markdown: '<img src="data:image/svg+xml,<svg onload=alert(1)>">' },
  { name: 'markdown image data:', markdown: '![x](data:image/png;base64,iVBORw0KGgo=)' },
  { name: 'img srcset', markdown: '<img src="x" srcset="javascript:alert(1) 1x, data:image/png;base64,AA 2x">' },
  { name: 'svg xlink:href', markdown: '<svg><a xlink:href="javascript:alert(1)"><text x="0" y="20">x</text></a></svg>' },
  { name: 'svg onload and script', markdown: '<svg onload=alert(1)><script>alert(2)</script></svg>', gone: 'alert' },
  { name: 'math maction', markdown: '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>' },
  { name: 'math mglyph/style mXSS', markdown: '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>' },
  { name: 'form/math namespace confusion', markdown: '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>' },
  { name: 'iframe srcdoc', markdown: '<iframe srcdoc="<script>alert(1)</script>"></iframe>', gone: 'alert' },
  { name: 'iframe src javascript:', markdown: '<iframe src="javascript:alert(1)"></iframe>' },
  { name: 'form action', markdown: '<form action="javascript:alert(1)"><input type="submit" value="go"></form>' },
  { name: 'button formaction', markdown: '<button formaction="javascript:alert(1)">x</button>' },
  { name: 'input formaction', markdown: '<input type="image" src="x" formaction="javascript:alert(1)">' },
  { name: 'a name clobbering', markdown: '<a name="cookie">x</a>' },
  { name: 'div id clobbering', markdown: '<div id="location">x</div>' },
  { name: 'img name clobbering', markdown: '<img name="getElementById" src="x"><img id="body" src="y">' },
  { name: 'style element', markdown: '<style>body{display:none}</style>x', gone: 'display' },
  { name: 'style attribute', markdown: '<p style="position:fixed;inset:0">x</p>' },
  { name: 'object data', markdown: '<object data="javascript:alert(1)"></object>' },
  { name: 'embed src', markdown: '<embed src="javascript:alert(1)">' },
  { name: 'base href', markdown: '<base href="javascript:alert(1)//">' },
  { name: 'meta refresh', markdown: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">' },
  { name: 'link stylesheet', markdown: '<link rel="stylesheet" href="https://evil.example/x.css">' },
  { name: 'details ontoggle', markdown: '<details open ontoggle="alert(1)"><summary>s</summary></details>', keep: 's' },
  { name: 'a onclick', markdown: '<a href="#" onclick="alert(1)">x</a>' },
  { name: 'unknown element handler', markdown: '<x-y onmouseover="alert(1)">hover</x-y>', keep: 'hover' },
  { name: 'unknown scheme in src with eval', markdown: '<img src="x:alert(1)" onerror="eval(src)">' },
  { name: 'video poster and source onerror', markdown: '<video poster="javascript:alert(1)"><source src="x" onerror="alert(1)"></video>' },
  { name: 'blockquote cite', markdown: '<blockquote cite="javascript:alert(1)">q</blockquote>' },
  { name: 'script element', markdown: '<script>alert(1)</script>after', gone: 'alert', keep: 'after' },
  { name: 'nested malformed script', markdown: '<scr<script>ipt>alert(1)</scr</script>ipt>', gone: 'alert' },
  { name: 'script hidden in comment', markdown: '<!-- <script>alert(1)</script> -->visible', gone: 'alert' },
  { name: 'abruptly closed comment', markdown: '<!--><script>alert(1)</script>-->', gone: 'alert' },
  { name: 'noscript title breakout', markdown: '<noscript><p title="</noscript><img src=x onerror=alert(1)>">' },
  { name: 'template content', markdown: '<template><script>alert(1)</script><img src=x onerror=alert(2)></template>', gone: 'alert' },
  { name: 'script inside table cell', markdown: '| a |\n|---|\n| <img src=x onerror=alert(1)> <script>alert(2)</script> |', gone: 'alert' },
  { name: 'removal followed by payload', markdown: '<p><script>a</script><img src=x onerror=alert(1)><a href="javascript:alert(2)">x</a></p>' },
];

const xss = suite('markdown: XSS corpus');

for (const vector of VECTORS) {
  xss(`neutralizes ${vector.name}`, () => {
    const html = renderMarkdown(vector.markdown);
    // On the raw string too: happy-dom reads `<!-->` as an open comment (a browser closes it
    // there), so a script after it would hide from the DOM checks.
    assert.not.match(html, /<script/i, `${vector.name}: <script in ${html}`);
    const template = document.createElement('template');
    template.innerHTML = html;
    const fragment = template.content;
    assertSafe(fragment, vector.name);
    if (vector.gone) assert.not.ok(fragment.textContent?.includes(vector.gone), `${vector.name}: "${vector.gone}" still in text`);
    if (vector.keep) assert.ok(fragment.textContent?.includes(vector.keep), `${vector.name}: lost "${vector.keep}"`);
  });
}

xss('the corpus has at least 30 vectors', () => {
  assert.ok(VECTORS.length >= 30);
});

xss('DOMPurify is supported on this DOM', () => {
  assert.is(DOMPurify(window).isSupported, true);
});

xss.run();

// --- What survives

const links = suite('markdown: link rules');

links('keeps http, https, mailto, xmpp, irc and ircs', () => {
  for (const url of [
    'http://example.com/a', 'https://example.com/b?c=d', 'mailto:a@example.com', 'xmpp:a@example.com',
    'irc://irc.libera.chat/x', 'ircs://irc.libera.chat:6697/x',
  ]) {
    assert.is(hrefOf(`[x](${url})`), url, url);
  }
});

links('keeps relative addresses', () => {
  for (const url of ['/x', '#frag', '?q=a:b', './x', '../up', 'page.html', 'foo/bar:baz']) {
    assert.is(hrefOf(`<a href="${url}">x</a>`), url, url);
  }
});

links('drops other schemes, including ones with digits', () => {
  for (const url of ['ftp://example.com/x', 'tel:123', 'file:///etc/passwd', 's3:bucket/x', 'ed2k://file', 'web+app:x']) {
    assert.is(hrefOf(`<a href="${url}">x</a>`), null, url);
  }
});

links('allows only http, https and relative image sources', () => {
  assert.is(render('![a](https://example.com/a.png)').querySelector('img')?.getAttribute('src'), 'https://example.com/a.png');
  assert.is(render('![a](/img/a.png)').querySelector('img')?.getAttribute('src'), '/img/a.png');
  assert.is(render('<img src="mailto:a@example.com">').querySelector('img')?.getAttribute('src'), null);
  assert.is(render('<q cite="ftp://example.com/x">q</q>').querySelector('q')?.getAttribute('cite'), null);
});

links('external links get rel and target, local ones do not', () => {
  for (const url of ['https://example.com', 'http://example.com', '//evil.example/x', '/\\evil.example/x']) {
    const a = render(`<a href="${url}">x</a>`).querySelector('a');
    assert.is(a?.getAttribute('rel'), 'nofollow noopener noreferrer', url);
    assert.is(a?.getAttribute('target'), '_blank', url);
  }
  for (const url of ['/x', '#frag', 'http://localhost/x', 'mailto:a@example.com']) {
    const a = render(`<a href="${url}" target="_top">x</a>`).querySelector('a');
    assert.is(a?.getAttribute('rel'), null, url);
    assert.is(a?.getAttribute('target'), null, url);
  }
});

links.run();

const markup = suite('markdown: rendering');

markup('renders headings, lists, tables, code and task lists', () => {
  const fragment = render(
    '# Title\n\n## Sub\n\n- one\n- two\n\n1. first\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n' +
      '```ts\nconst x = 1;\n```\n\n> quote with **bold**, _em_ and ~~gone~~\n\n- [x] done\n- [ ] todo\n',
  );
  assert.is(fragment.querySelector('h1')?.textContent, 'Title');
  assert.is(fragment.querySelector('h2')?.textContent, 'Sub');
  assert.is(fragment.querySelectorAll('ul li').length, 4);
  assert.is(fragment.querySelector('ol li')?.textContent, 'first');
  assert.is(fragment.querySelectorAll('table thead th').length, 2);
  assert.is(fragment.querySelector('th[align="center"]')?.textContent, 'b');
  assert.is(fragment.querySelector('pre code.language-ts')?.textContent, 'const x = 1;\n');
  assert.ok(fragment.querySelector('blockquote strong'));
  assert.ok(fragment.querySelector('del'));
  const boxes = fragment.querySelectorAll('input');
  assert.is(boxes.length, 2);
  for (const box of boxes) {
    assert.is(box.getAttribute('type'), 'checkbox');
    assert.ok(box.hasAttribute('disabled'));
  }
});

markup('shows HTML inside code as text', () => {
  const fragment = render('`<script>alert(1)</script>`');
  assert.is(fragment.querySelector('code')?.textContent, '<script>alert(1)</script>');
  assert.is(fragment.querySelector('script'), null);
});

markup('prefixes ids and names with user-content- exactly once', () => {
  const fragment = render('<div id="foo">a</div><a name="bar">b</a><div id="user-content-baz">c</div><a name="user-content-qux">d</a>');
  assert.ok(fragment.querySelector('div[id="user-content-foo"]'));
  assert.ok(fragment.querySelector('a[name="user-content-bar"]'));
  assert.ok(fragment.querySelector('div[id="user-content-baz"]'));
  assert.ok(fragment.querySelector('a[name="user-content-qux"]'));
  assertSafe(fragment, 'prefixes');
});

markup('keeps only language- classes', () => {
  const fragment = render('<p class="modal-backdrop language-x">a</p><p class="btn">b</p>');
  assert.is(fragment.querySelectorAll('p')[0]?.getAttribute('class'), 'language-x');
  assert.is(fragment.querySelectorAll('p')[1]?.hasAttribute('class'), false);
});

markup.run();

// --- MarkdownView in React

const view = suite('MarkdownView');
view.after.each(() => reset());

view('renders sanitized markup and scrolls #foo links to user-content-foo', async () => {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const source = '# Notes\n\n[jump](#target) [out](https://example.com)\n\n<img src=x onerror=alert(1)>\n\n<h2 id="target">Target</h2>';
  await act(async () => root.render(createElement(MarkdownView, { source, className: 'notes' })));

  const div = container.firstElementChild!;
  assert.is(div.getAttribute('class'), 'markdown notes');
  assert.is(div.querySelector('h1')?.textContent, 'Notes');
  assert.is(div.querySelector('a[href="https://example.com"]')?.getAttribute('target'), '_blank');
  assert.is(div.querySelector('img')?.hasAttribute('onerror'), false);

  const target = div.querySelector('#user-content-target')!;
  let scrolled = false;
  target.scrollIntoView = () => void (scrolled = true);
  const click = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 });
  div.querySelector('a[href="#target"]')!.dispatchEvent(click);
  assert.ok(scrolled, 'target scrolled into view');
  assert.ok(click.defaultPrevented);

  await act(async () => root.unmount());
});

view.run();

// --- Fail closed

const env = suite('markdown: unreliable DOM');

// Runs renderMarkdown in a fresh process on unpatched happy-dom (see test/setup/happy-dom-fixes.ts), where
// DOMPurify reports isSupported but would leave the payload in. The output must still be inert.
env('falls back to plain text when the sanitizer fails its self-check', () => {
  const cwd = fileURLToPath(new URL('../..', import.meta.url));
  const markdown = '<p><script>alert(1)</script><img src=x onerror=alert(2)></p> [x](javascript:alert(3))';
  const code = [
    "import { GlobalRegistrator } from '@happy-dom/global-registrator';",
    "GlobalRegistrator.register({ url: 'http://localhost/' });",
    "const { renderMarkdown } = await import('./src/lib/markdown.ts');",
    `process.stdout.write(renderMarkdown(${JSON.stringify(markdown)}));`,
  ].join('\n');
  const html = execFileSync(process.execPath, ['--import', './test/setup/register.mjs', '--input-type=module', '-e', code], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const template = document.createElement('template');
  template.innerHTML = html;
  assertSafe(template.content, 'unpatched happy-dom');
  assert.is(template.content.querySelector('img'), null);
});

env.run();
