// swr-like data hook: a module-level cache keyed by URL, one request in flight per key, last-started wins,
// polling that skips background tabs, revalidation on focus, optional retries of a failed fetch. As in swr,
// an answer deep-equal to the cached one keeps the cached object, and a hook re-renders only when a field it
// read (data, error, isValidating) changed, so a poll that brings nothing new re-renders nothing;
// keepPreviousData shows the last key's data while a new key loads. The default fetcher asks
// conditionally (If-None-Match with the ETag of the data it last got) and a 304 keeps that data: an
// unchanged poll costs a few hundred bytes. Visibility, focus and timers come
// from the injectable environment (environment.ts) instead of document and window. Leaves out offline
// detection, suspense and cache providers.

import { useCallback, useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';
import { normalizeError, requestIfChanged } from './http.ts';
import type { ApiError } from './http.ts';
import { env } from './environment.ts';

export type ResourceOptions<T> = {
  /** ms between polls; 0/undefined = no polling. Ticks are skipped while the tab is hidden. */
  refreshInterval?: number;
  /** ms a cached value counts as fresh: no refetch on mount/focus while fresh. @default 2000 */
  freshFor?: number;
  /** Revalidate on visibilitychange→visible and window focus, throttled to 5 s per key. @default true */
  revalidateOnFocus?: boolean;
  /** @default (key) => request<T>(key) */
  fetcher?: (key: string) => Promise<T>;
  /** A failed fetch is tried again this many times, `retryDelay` ms apart, before the error shows. @default 0 */
  retry?: number;
  /** @default 1000 */
  retryDelay?: number;
  /** While a new key has no data yet, keep returning the data of the key shown before. @default false */
  keepPreviousData?: boolean;
};

export type Resource<T> = {
  data: T | undefined;
  error: ApiError | undefined;
  /** No data yet and a request is (about to be) in flight. */
  isLoading: boolean;
  /** Any request for the key is in flight. */
  isValidating: boolean;
  /** With data: replace the cached value (every hook on the key re-renders), no request. Without: refetch. */
  mutate: (data?: T | ((current: T | undefined) => T)) => Promise<void>;
};

export const DEFAULTS = { refreshInterval: 0, freshFor: 2000, revalidateOnFocus: true, focusThrottle: 5000, retry: 0, retryDelay: 1000 };

type Fetcher = (key: string) => Promise<unknown>;
type Entry = { data?: unknown; error?: ApiError; updatedAt: number; isValidating: boolean };

const EMPTY: Entry = { updatedAt: 0, isValidating: false };
const cache = new Map<string, Entry>();
const inflight = new Map<string, { id: number; promise: Promise<void> }>();
/** key → id of the newest request or local mutation; responses of older requests are dropped. */
const latest = new Map<string, number>();
const listeners = new Map<string, Set<() => void>>();
/** Fetchers of mounted hooks, so that mutate(key) can refetch from outside React. */
const fetchers = new Map<string, Set<{ current: Fetcher }>>();
const lastFocus = new Map<string, number>();
let lastId = 0;

/** key → the ETag of the last answer the default fetcher got, with that answer's data. */
const validators = new Map<string, { etag: string; data: unknown }>();

const defaultFetcher: Fetcher = async (key) => {
  const known = validators.get(key);
  const answer = await requestIfChanged(key, known?.etag ?? null);
  // A 304 names the copy we sent the ETag of (a local mutate() since then does not count).
  if (answer.notModified) return known ? known.data : Promise.reject(new Error(`304 without a stored copy: GET ${key}`));
  if (answer.etag) validators.set(key, { etag: answer.etag, data: answer.data });
  else validators.delete(key);
  return answer.data;
};

function withRetry(fetcher: Fetcher, retries: number, delay: number): Fetcher {
  if (!(retries > 0)) return fetcher;
  return (key) => new Promise<unknown>((resolve) => resolve(fetcher(key))).catch(async () => {
    await new Promise<void>((resolve) => env.setTimeout(resolve, delay));
    return withRetry(fetcher, retries - 1, delay)(key);
  });
}

function notify(key: string): void {
  for (const listener of listeners.get(key) ?? []) listener();
}

function setEntry(key: string, patch: Partial<Entry>): void {
  cache.set(key, { ...(cache.get(key) ?? EMPTY), ...patch });
  notify(key);
}

function isFresh(entry: Entry | undefined, freshFor: number): boolean {
  return !!entry && entry.data !== undefined && !entry.error && env.now() - entry.updatedAt < freshFor;
}

/** Structural equality of JSON-like values (swr's stable-hash compare, without the hashing). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  return keysA.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** An answer equal to what is cached keeps the cached object, so memos and row components see no change. */
function stable(key: string, data: unknown): unknown {
  const cached = cache.get(key)?.data;
  return deepEqual(cached, data) ? cached : data;
}

function revalidate(key: string, fetcher: Fetcher, { dedupe }: { dedupe: boolean }): Promise<void> {
  const running = inflight.get(key);
  if (dedupe && running) return running.promise;
  const id = ++lastId;
  latest.set(key, id);
  const settle = (patch: Partial<Entry>) => {
    const isCurrent = inflight.get(key)?.id === id;
    if (isCurrent) inflight.delete(key);
    const isLatest = latest.get(key) === id;
    if (isLatest || isCurrent) setEntry(key, { ...(isLatest ? patch : {}), ...(isCurrent ? { isValidating: false } : {}) });
  };
  // new Promise() so a fetcher that throws synchronously becomes an error state, never a throw in render.
  const promise = new Promise<unknown>((resolve) => resolve(fetcher(key))).then(
    (data) => settle({ data: stable(key, data), error: undefined, updatedAt: env.now() }),
    (error) => {
      const normalized = normalizeError(error);
      const cached = cache.get(key)?.error;
      settle({ error: deepEqual(cached, normalized) ? cached : normalized });
    },
  );
  inflight.set(key, { id, promise });
  setEntry(key, { isValidating: true });
  return promise;
}

function setData(key: string, data: unknown): void {
  latest.set(key, ++lastId); // a response already on its way would overwrite this with older data
  setEntry(key, { data: stable(key, data), error: undefined, updatedAt: env.now() });
}

/** Refetch a key from anywhere (e.g. on a socket message). Without a mounted hook it only marks the key stale. */
export function mutate(key: string): Promise<void> {
  const [fetcher] = fetchers.get(key) ?? [];
  if (fetcher) return revalidate(key, fetcher.current, { dedupe: false });
  const entry = cache.get(key);
  if (entry) cache.set(key, { ...entry, updatedAt: 0 });
  return Promise.resolve();
}

/**
 * Starts loading a key with the default fetcher before any hook asks for it (e.g. the home screen's list
 * while its code and the profile are still on their way), unless it is fresh or already loading.
 */
export function preload(key: string): void {
  if (!isFresh(cache.get(key), DEFAULTS.freshFor)) void revalidate(key, defaultFetcher, { dedupe: true });
}

/** Forget every cached value (sign-out, impersonation, tests). Responses still in flight are dropped. */
export function clearResourceCache(): void {
  const keys = [...cache.keys()];
  cache.clear();
  validators.clear();
  inflight.clear();
  latest.clear();
  lastFocus.clear();
  for (const key of keys) notify(key);
}

export function useResource<T>(key: string | null, options: ResourceOptions<T> = {}): Resource<T> {
  const refreshInterval = options.refreshInterval ?? DEFAULTS.refreshInterval;
  const freshFor = options.freshFor ?? DEFAULTS.freshFor;
  const revalidateOnFocus = options.revalidateOnFocus ?? DEFAULTS.revalidateOnFocus;

  // Inline fetchers change identity every render; effects read the latest one without re-running.
  const retry = options.retry ?? DEFAULTS.retry;
  const retryDelay = options.retryDelay ?? DEFAULTS.retryDelay;
  const fetcherRef = useRef<Fetcher>(withRetry(options.fetcher ?? defaultFetcher, retry, retryDelay));
  useLayoutEffect(() => {
    fetcherRef.current = withRetry(options.fetcher ?? defaultFetcher, retry, retryDelay);
  });
  // Lets the very first render report isLoading before the mount effect has started the request.
  const startedFor = useRef<string | null>(null);

  const subscribe = useCallback(
    (onChange: () => void) => {
      if (key === null) return () => {};
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(onChange);
      return () => {
        set.delete(onChange);
        if (set.size === 0) listeners.delete(key);
      };
    },
    [key],
  );
  // swr's dependency tracking: the snapshot only moves on when a field this hook has read changed.
  const used = useRef({ data: false, error: false, isValidating: false }).current;
  const snapshot = useRef<{ key: string | null; entry: Entry } | null>(null);
  const getSnapshot = () => {
    const entry = key === null ? EMPTY : (cache.get(key) ?? EMPTY);
    const previous = snapshot.current;
    if (previous && previous.key === key && sameForReader(used, previous.entry, entry)) return previous.entry;
    snapshot.current = { key, entry };
    return entry;
  };
  const entry = useSyncExternalStore(subscribe, getSnapshot);

  useEffect(() => {
    if (key === null) return;
    startedFor.current = key;
    let registered = fetchers.get(key);
    if (!registered) fetchers.set(key, (registered = new Set()));
    registered.add(fetcherRef);
    if (!isFresh(cache.get(key), freshFor)) void revalidate(key, fetcherRef.current, { dedupe: true });
    return () => {
      registered.delete(fetcherRef);
      if (registered.size === 0) fetchers.delete(key);
    };
    // freshFor only matters at mount; changing it must not refetch.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  useEffect(() => {
    if (key === null || !revalidateOnFocus) return;
    return env.onFocus(() => {
      if (!env.isVisible()) return;
      const now = env.now();
      if (now - (lastFocus.get(key) ?? -Infinity) < DEFAULTS.focusThrottle) return;
      lastFocus.set(key, now);
      if (!isFresh(cache.get(key), freshFor)) void revalidate(key, fetcherRef.current, { dedupe: true });
    });
  }, [key, revalidateOnFocus, freshFor]);

  useEffect(() => {
    if (key === null || !(refreshInterval > 0)) return;
    let timer: unknown;
    let active = true;
    // Chained timeouts, not setInterval: the next tick waits for the current request to settle.
    const schedule = () => {
      env.clearTimeout(timer);
      if (active) timer = env.setTimeout(tick, refreshInterval);
    };
    const tick = async () => {
      if (env.isVisible()) await revalidate(key, fetcherRef.current, { dedupe: true });
      schedule();
    };
    schedule();
    const stopListening = env.onVisibilityChange(async () => {
      if (!env.isVisible()) return;
      const cached = cache.get(key);
      if (cached && !cached.error && env.now() - cached.updatedAt < refreshInterval) return;
      env.clearTimeout(timer);
      await revalidate(key, fetcherRef.current, { dedupe: true });
      schedule();
    });
    return () => {
      active = false;
      env.clearTimeout(timer);
      stopListening();
    };
  }, [key, refreshInterval]);

  const boundMutate = useCallback(
    async (data?: T | ((current: T | undefined) => T)) => {
      if (key === null) return;
      if (data === undefined) return revalidate(key, fetcherRef.current, { dedupe: false });
      const current = cache.get(key)?.data as T | undefined;
      setData(key, typeof data === 'function' ? (data as (current: T | undefined) => T)(current) : data);
    },
    [key],
  );

  const isValidating =
    entry.isValidating || (key !== null && startedFor.current !== key && !isFresh(entry, freshFor));
  const previousData = useRef<unknown>(undefined);
  if (entry.data !== undefined) previousData.current = entry.data;
  const data = entry.data !== undefined || !options.keepPreviousData ? entry.data : previousData.current;
  // Getters record what the caller reads, for getSnapshot above.
  return {
    get data() {
      used.data = true;
      return data as T | undefined;
    },
    get error() {
      used.error = true;
      return entry.error;
    },
    get isLoading() {
      used.data = used.isValidating = true;
      return entry.data === undefined && isValidating;
    },
    get isValidating() {
      used.isValidating = true;
      return isValidating;
    },
    mutate: boundMutate,
  };
}

function sameForReader(used: { data: boolean; error: boolean; isValidating: boolean }, a: Entry, b: Entry): boolean {
  if (a === b) return true;
  return (!used.data || a.data === b.data) && (!used.error || a.error === b.error) && (!used.isValidating || a.isValidating === b.isValidating);
}
