// Markdown → safe HTML: marked (GFM) renders, then a private DOMPurify instance applies GitHub's
// rules (../shared/docs/protocols.md §5, spec §2 "Agent editor modal"). No syntax highlighting and
// no heading ids; MarkdownView maps in-page `#foo` links onto the `user-content-foo` ids.
import DOMPurify from 'dompurify';
import type { Config, DOMPurify as Purifier } from 'dompurify';
import { Marked } from 'marked';

// A scheme is `[a-z][a-z0-9+.-]*:`. A value is relative when it cannot start one (`/x`, `#x`, `./x`,
// `?q=a:b`) or when its leading scheme-like run is not followed by `:` (`page.html`, `a/b:c`).
// Digits belong in that run: the regex in protocols.md §5.2 leaves them out and so lets `s3:x`,
// `ed2k://x` through as "relative".
const RELATIVE = String.raw`[^a-z]|[a-z][a-z\d+.-]*(?:[^a-z\d+.\-:]|$)`;
const HREF_OK = new RegExp(String.raw`^(?:(?:https?|ircs?|mailto|xmpp):|${RELATIVE})`, 'i');
// src/cite/longdesc get http(s) only, like hast-util-sanitize: DOMPurify's one URI regex would
// otherwise allow mailto: there, and it allows data: on <img> by default.
const MEDIA_OK = new RegExp(String.raw`^(?:https?:|${RELATIVE})`, 'i');
const MEDIA_ATTRS = ['src', 'cite', 'longdesc', 'poster', 'background'];
// Browsers ignore these characters inside a URL; DOMPurify strips the same set before its own test.
const URL_NOISE = /[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g;

const CONFIG: Config = {
  ALLOWED_URI_REGEXP: HREF_OK,
  // DOMPurify ≥3.4 skips values that already carry the prefix, so ids are never double-prefixed.
  SANITIZE_NAMED_PROPS: true,
  // Form controls (bar task-list checkboxes) and noscript go too: a note must not fake app UI, and
  // noscript parses differently with scripting on, the classic mutation-XSS vector. Media elements are
  // not in GitHub's allowlist either: a <video src> or <audio src> would make the page fetch on its own.
  FORBID_TAGS: ['style', 'form', 'iframe', 'object', 'embed', 'svg', 'math', 'button', 'select', 'textarea', 'noscript', 'video', 'audio', 'source', 'track'],
  // srcset would need the src rule per candidate; notes have no use for responsive images.
  FORBID_ATTR: ['style', 'srcset'],
};

const md = new Marked({ gfm: true });
let purifier: Purifier | null | undefined; // null: this DOM failed the self-check

export function renderMarkdown(markdown: string): string {
  const html = md.parse(markdown, { async: false });
  const purify = getPurifier();
  return purify ? purify.sanitize(html, CONFIG) : `<pre>${escapeHtml(markdown)}</pre>`;
}

function getPurifier(): Purifier | null {
  if (purifier !== undefined) return purifier;
  // No DOM yet (imported by a test or script before one exists): stay plain, decide later.
  if (typeof window === 'undefined') return null;
  const purify = DOMPurify(window);
  addHooks(purify, window.location.href);
  purifier = selfCheck(purify) ? purify : null;
  if (!purifier) console.error('renderMarkdown: DOMPurify is not reliable in this DOM, showing Markdown as plain text');
  return purifier;
}

function addHooks(purify: Purifier, pageUrl: string): void {
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    // Only marked's `language-*` classes survive, so a note can't borrow the app's own CSS classes.
    if (data.attrName !== 'class') return;
    data.attrValue = data.attrValue.split(/\s+/).filter((c) => c.startsWith('language-')).join(' ');
    data.keepAttr = data.attrValue !== '';
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    for (const name of MEDIA_ATTRS) {
      const value = node.getAttribute(name);
      if (value !== null && !MEDIA_OK.test(value.replace(URL_NOISE, ''))) node.removeAttribute(name);
    }
    // GitHub keeps <input> only as the disabled checkbox of a task list.
    if (node.nodeName.toLowerCase() === 'input') {
      if (node.getAttribute('type')?.toLowerCase() !== 'checkbox') node.remove();
      else node.setAttribute('disabled', '');
    }
    const href = node.getAttribute('href');
    if (href !== null && isExternal(href, pageUrl)) {
      node.setAttribute('rel', 'nofollow noopener noreferrer');
      node.setAttribute('target', '_blank');
    }
  });
}

// Resolve like the browser would, so `//host` and `/\host` also count as other origins.
function isExternal(href: string, pageUrl: string): boolean {
  if (/^(?:mailto|xmpp|ircs?):/i.test(href.replace(URL_NOISE, ''))) return false;
  try {
    return new URL(href, pageUrl).origin !== new URL(pageUrl).origin;
  } catch {
    return true;
  }
}

// DOMPurify returns its input unchanged when isSupported is false, and a DOM that is only nearly
// right (happy-dom 21, see test/unit/markdown.test.ts) silently skips nodes. Prove it works once.
// No event-handler attribute in the probe: merely parsing one makes Chromium report a CSP violation.
function selfCheck(purify: Purifier): boolean {
  if (!purify.isSupported) return false;
  const out = purify.sanitize('<p><script>a</script><a href="javascript:c" id="d">e</a></p>', CONFIG);
  return out.startsWith('<p>') && out.includes('user-content-d') && !/script|javascript/i.test(out);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
