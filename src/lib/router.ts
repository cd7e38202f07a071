// History-API router in the manner of wouter: the location is an external store read with
// useSyncExternalStore, navigate() pushes/replaces, <Link> is a plain <a>. As in wouter, the store is
// swappable: setLocationSource(memoryLocation('/path')) gives tests a location of their own without
// touching window.history. No nested routers, no hash routing.

import { createElement, useSyncExternalStore } from 'react';
import type { AnchorHTMLAttributes, JSX, MouseEvent } from 'react';

export type Location = { path: string; search: string };

/** Where the location lives: the browser's history (default) or memory (tests). */
export type LocationSource = {
  subscribe: (onChange: () => void) => () => void;
  /** The same object while the URL is unchanged (useSyncExternalStore needs a stable snapshot). */
  getSnapshot: () => Location;
  navigate: (to: string, options: { replace?: boolean }) => void;
};

// pushState/replaceState fire no event of their own, so each history object is patched once to dispatch one.
// See: https://github.com/molefrog/wouter (use-browser-location.js)
const EVENTS = ['popstate', 'pushState', 'replaceState', 'hashchange'] as const;
const patched = new WeakSet<History>();

function patchHistory(): void {
  if (typeof history === 'undefined' || patched.has(history)) return;
  patched.add(history);
  for (const type of ['pushState', 'replaceState'] as const) {
    const original = history[type];
    history[type] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      dispatchEvent(new Event(type));
      return result;
    };
  }
}

function subscribeBrowser(onChange: () => void): () => void {
  patchHistory();
  for (const type of EVENTS) addEventListener(type, onChange);
  return () => {
    for (const type of EVENTS) removeEventListener(type, onChange);
  };
}

// useSyncExternalStore needs a stable snapshot, so the same object is returned while the URL is unchanged.
let snapshot: Location = { path: '/', search: '' };

export const browserLocation: LocationSource = {
  subscribe: subscribeBrowser,
  getSnapshot() {
    const { pathname, search } = location;
    if (snapshot.path !== pathname || snapshot.search !== search) snapshot = { path: pathname, search };
    return snapshot;
  },
  navigate(to, options) {
    patchHistory();
    history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  },
};

/** A location in memory (wouter's memoryLocation): `entries` records every URL it was sent to. */
export function memoryLocation(initial = '/'): LocationSource & { entries: string[] } {
  const listeners = new Set<() => void>();
  const entries = [initial];
  let current = parse(initial);
  return {
    entries,
    subscribe(onChange) {
      listeners.add(onChange);
      return () => void listeners.delete(onChange);
    },
    getSnapshot: () => current,
    navigate(to, options) {
      const next = parse(new URL(to, `http://memory${current.path}`).href.slice('http://memory'.length));
      if (options.replace) entries[entries.length - 1] = next.path + next.search;
      else entries.push(next.path + next.search);
      current = next;
      for (const listener of [...listeners]) listener();
    },
  };
}

function parse(url: string): Location {
  const at = url.search(/[?#]/);
  const path = at === -1 ? url : url.slice(0, at);
  const search = at === -1 ? '' : (url.slice(at).split('#')[0] === '?' ? '' : url.slice(at).split('#')[0]);
  return { path: path || '/', search };
}

let source: LocationSource = browserLocation;

/** Swap where the location lives (tests: memoryLocation(...); browserLocation to go back), before rendering. */
export function setLocationSource(next: LocationSource): void {
  source = next;
}

const SERVER_SNAPSHOT: Location = { path: '/', search: '' };
// Read the source per call, so every hook and navigate() use whichever is set.
const subscribe = (onChange: () => void) => source.subscribe(onChange);
const getSnapshot = () => source.getSnapshot();

/** The current path and search string (`location.search`: '' or starting with '?'); re-renders on navigation. */
export function useLocation(): Location {
  return useSyncExternalStore(subscribe, getSnapshot, () => SERVER_SNAPSHOT);
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  source.navigate(to, options);
}

export type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/** A plain <a>: a primary click without modifier keys navigates in-app; anything else is left to the browser. */
export function Link(props: LinkProps): JSX.Element {
  const { onClick, ...rest } = props;
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || !isPlainClick(event) || !isInApp(props)) return;
    event.preventDefault();
    navigate(props.href);
  };
  return createElement('a', { ...rest, onClick: handleClick });
}

function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}

function isInApp({ href, target, download }: LinkProps): boolean {
  if ((target && target !== '_self') || download !== undefined) return false;
  try {
    return new URL(href, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/**
 * Match '/agent/:id' style patterns; a trailing '*' segment matches the rest (param '*').
 * Trailing slashes are tolerated on both sides. Params are URI-decoded; a malformed escape means no match.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = segments(pattern);
  const have = segments(path);
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i];
    if (part === '*' && i === want.length - 1) {
      const rest = decode(have.slice(i).join('/'));
      if (rest === null) return null;
      params['*'] = rest;
      return params;
    }
    if (i >= have.length) return null;
    if (part.startsWith(':')) {
      const value = decode(have[i]);
      if (!value) return null;
      params[part.slice(1)] = value;
    } else if (part !== have[i]) {
      return null;
    }
  }
  return want.length === have.length ? params : null;
}

function segments(path: string): string[] {
  const trimmed = path.replace(/^\/+/, '').replace(/\/$/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

// Like wouter's unescape(): fails safe instead of throwing URIError on input such as '%E0%A4%A'.
function decode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
