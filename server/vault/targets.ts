// Where a stored credential may be typed: a web origin (the browser's page origin, never a URL prefix, so a path or
// a look-alike host cannot borrow a password) or an app window outside the browser (its X WM_CLASS and title).
import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

export type Target =
  | { kind: 'origin'; scheme: 'http' | 'https'; host: string; wildcard: boolean; port: number; text: string }
  | { kind: 'window'; windowClass: string; title: string | null; text: string };

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const HOST = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;
const WINDOW_CLASS = /^[A-Za-z0-9._ -]{1,100}$/;
/** Printable: no control characters and no lone surrogates (a window title is shown to people). */
const TITLE = /^[^\p{Cc}\p{Cs}]+$/u;
const MAX_TITLE = 200;

/** The pattern, or what is wrong with it (a predicate, for "<pattern> may not have a path"). */
export function parseTarget(text: string): Target | { error: string } {
  if (/^window:/i.test(text)) return parseWindow(text.slice('window:'.length));
  const scheme = /^(https?):\/\//i.exec(text)?.[1].toLowerCase() as 'http' | 'https' | undefined;
  if (!scheme) return { error: 'is not an http(s) origin or window: pattern' };
  const [, authority, path, query, fragment] = /^([^/?#]*)(\/[^?#]*)?(\?[^#]*)?(#.*)?$/s.exec(text.slice(scheme.length + 3))!;
  if (path && path !== '/') return { error: 'may not have a path' };
  if (query !== undefined) return { error: 'may not have a query' };
  if (fragment !== undefined) return { error: 'may not have a fragment' };
  if (authority.includes('@')) return { error: 'may not have a user name or password' };
  const hostPort = /^(\[[^\]]*\]?|[^:]*)(?::(.*))?$/.exec(authority);
  if (!hostPort || !hostPort[1]) return { error: 'has no host' };
  const port = parsePort(hostPort[2], scheme);
  if (port === null) return { error: 'has an invalid port' };
  const host = parseHost(hostPort[1]);
  if ('error' in host) return host;
  const shownPort = port === DEFAULT_PORT[scheme] ? '' : `:${port}`;
  const canonical = `${scheme}://${host.wildcard ? '*.' : ''}${host.host}${shownPort}`;
  return { kind: 'origin', scheme, host: host.host, wildcard: host.wildcard, port, text: canonical };
}

/** The effective port (the scheme's default when none is written), null when it is not 1..65535. */
function parsePort(text: string | undefined, scheme: 'http' | 'https'): number | null {
  if (text === undefined) return DEFAULT_PORT[scheme];
  const port = /^\d{1,5}$/.test(text) ? Number(text) : 0;
  return port >= 1 && port <= 65535 ? port : null;
}

/** The host in the form a browser's origin shows it (lower case, punycode, IPv6 in brackets, compressed). */
function parseHost(text: string): { host: string; wildcard: boolean } | { error: string } {
  if (text.startsWith('[')) {
    const inner = text.slice(1, -1);
    // A zone id (fe80::1%eth0) names this machine's interface: no browser origin carries one.
    if (!text.endsWith(']') || inner.includes('%') || !isIPv6(inner)) return { error: 'has an invalid IPv6 address' };
    return { host: new URL(`http://[${inner}]`).hostname, wildcard: false };
  }
  const wildcard = text.startsWith('*.');
  const name = wildcard ? text.slice(2) : text;
  if (name.includes('*')) return { error: 'may have * only as the whole leftmost label (https://*.example.com)' };
  const ascii = domainToASCII(name);
  if (!HOST.test(ascii)) return { error: 'has an invalid host' };
  if (wildcard && isIPv4(ascii)) return { error: 'may not put *. before an IP address' };
  return { host: ascii, wildcard };
}

/** `window:<class>` or `window:<class>:<title glob>` (the title may hold ':' itself). */
function parseWindow(rest: string): Target | { error: string } {
  const colon = rest.indexOf(':');
  const windowClass = (colon < 0 ? rest : rest.slice(0, colon)).toLowerCase();
  const title = colon < 0 ? null : rest.slice(colon + 1);
  if (!WINDOW_CLASS.test(windowClass)) return { error: 'needs a window class of 1 to 100 letters, digits, spaces or ._-' };
  if (title !== null && (!TITLE.test(title) || [...title].length > MAX_TITLE)) {
    return { error: `needs a title pattern of 1 to ${MAX_TITLE} printable characters` };
  }
  return { kind: 'window', windowClass, title, text: `window:${windowClass}${title === null ? '' : `:${title}`}` };
}

/** The canonical text of the first origin target `origin` falls under, null when none does or it is no http(s) origin. */
export function matchOrigin(targets: Target[], origin: string): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  const scheme = url.protocol.slice(0, -1);
  // Only a bare origin: a page URL here would mean the caller passed the wrong thing.
  if ((scheme !== 'http' && scheme !== 'https') || url.href !== `${url.origin}/`) return null;
  const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme];
  const host = url.hostname;
  for (const t of targets) {
    if (t.kind !== 'origin' || t.scheme !== scheme || t.port !== port) continue;
    // A wildcard covers subdomains at any depth, never the bare domain itself.
    if (t.wildcard ? host.endsWith(`.${t.host}`) : host === t.host) return t.text;
  }
  return null;
}

/** The canonical text of the first window target the window falls under (class by instance or class name). */
export function matchWindow(targets: Target[], win: { instance: string; className: string; title: string }): string | null {
  const names = [win.instance.toLowerCase(), win.className.toLowerCase()];
  for (const t of targets) {
    if (t.kind !== 'window' || !names.includes(t.windowClass)) continue;
    if (t.title === null || globMatch(t.title, win.title)) return t.text;
  }
  return null;
}

/**
 * `*` matches any run, everything else is literal, over the whole title. Matched piece by piece (leftmost fit
 * is always right for `*`-only globs) rather than through a RegExp, which many stars would make backtrack badly.
 */
function globMatch(glob: string, title: string): boolean {
  const pieces = glob.split('*');
  if (pieces.length === 1) return glob === title;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (title.length < first.length + last.length || !title.startsWith(first) || !title.endsWith(last)) return false;
  let at = first.length;
  const end = title.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = title.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
