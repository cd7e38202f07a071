// Renders Markdown through renderMarkdown (sanitized) and makes in-page links work despite the
// `user-content-` prefix on ids, as GitHub's own page script does.
import { useMemo } from 'react';
import type { MouseEvent } from 'react';
import { renderMarkdown } from '../lib/markdown.ts';

const PREFIX = 'user-content-';

export function MarkdownView({ source, className }: { source: string; className?: string }) {
  const html = useMemo(() => ({ __html: renderMarkdown(source) }), [source]);
  return <div className={'markdown ' + (className ?? '')} onClick={followInPageLink} dangerouslySetInnerHTML={html} />;
}

// Sanitizing renamed `id="foo"` to `user-content-foo`, while the text still links to `#foo`.
// The hash is left alone: the router owns the address bar, and the view may sit in a modal.
function followInPageLink(event: MouseEvent<HTMLDivElement>): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = (event.target as Element).closest?.('a[href^="#"]');
  if (!link || !event.currentTarget.contains(link)) return;
  const name = safeDecode(link.getAttribute('href')!.slice(1));
  if (!name) return;
  const wanted = name.startsWith(PREFIX) ? name : PREFIX + name;
  // Look inside this view only; another MarkdownView on the page may hold the same ids.
  const target = [...event.currentTarget.querySelectorAll('[id], a[name]')].find(
    (el) => el.id === wanted || el.getAttribute('name') === wanted,
  );
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView();
}

// A malformed escape such as `#%E0%A4%A` must not throw inside a click handler.
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
