// swr-like data hook: a module-level cache keyed by URL, one request in flight per key, last-started wins,
// polling that skips background tabs, revalidation on focus, optional retries of a failed fetch. Leaves
// out offline detection, suspense and cache providers.

import { useCallback, useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';
import { normalizeError, request } from './http.ts';
import type { ApiError } from './http.ts';

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

const defaultFetcher: Fetcher = (key) => request(key);

function withRetry(fetcher: Fetcher, retries: number, delay: number): Fetcher {
  if (!(retries > 0)) return fetcher;
  return (key) => new Promise<unknown>((resolve) => resolve(fetcher(key))).catch(async () => {
    await new Promise((resolve) => setTimeout(resolve, delay));
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
  return !!entry && entry.data !== undefined && !entry.error && Date.now() - entry.updatedAt < freshFor;
}

// A missing visibilityState counts as visible, as in swr's web preset.
function isVisible(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
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
    (data) => settle({ data, error: undefined, updatedAt: Date.now() }),
    (error) => settle({ error: normalizeError(error) }),
  );
  inflight.set(key, { id, promise });
  setEntry(key, { isValidating: true });
  return promise;
}

function setData(key: string, data: unknown): void {
  latest.set(key, ++lastId); // a response already on its way would overwrite this with older data
  setEntry(key, { data, error: undefined, updatedAt: Date.now() });
}

/** Refetch a key from anywhere (e.g. on a socket message). Without a mounted hook it only marks the key stale. */
export function mutate(key: string): Promise<void> {
  const [fetcher] = fetchers.get(key) ?? [];
  if (fetcher) return revalidate(key, fetcher.current, { dedupe: false });
  const entry = cache.get(key);
  if (entry) cache.set(key, { ...entry, updatedAt: 0 });
  return Promise.resolve();
}

/** Forget every cached value (sign-out, impersonation, tests). Responses still in flight are dropped. */
export function clearResourceCache(): void {
  const keys = [...cache.keys()];
  cache.clear();
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
  const entry = useSyncExternalStore(subscribe, () => (key === null ? EMPTY : (cache.get(key) ?? EMPTY)));

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
    const onFocus = () => {
      if (!isVisible()) return;
      const now = Date.now();
      if (now - (lastFocus.get(key) ?? 0) < DEFAULTS.focusThrottle) return;
      lastFocus.set(key, now);
      if (!isFresh(cache.get(key), freshFor)) void revalidate(key, fetcherRef.current, { dedupe: true });
    };
    document.addEventListener('visibilitychange', onFocus);
    window.addEventListener('focus', onFocus);
    return () => {
      document.removeEventListener('visibilitychange', onFocus);
      window.removeEventListener('focus', onFocus);
    };
  }, [key, revalidateOnFocus, freshFor]);

  useEffect(() => {
    if (key === null || !(refreshInterval > 0)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let active = true;
    // Chained timeouts, not setInterval: the next tick waits for the current request to settle.
    const schedule = () => {
      clearTimeout(timer);
      if (active) timer = setTimeout(tick, refreshInterval);
    };
    const tick = async () => {
      if (isVisible()) await revalidate(key, fetcherRef.current, { dedupe: true });
      schedule();
    };
    const onVisible = async () => {
      if (!isVisible()) return;
      const cached = cache.get(key);
      if (cached && !cached.error && Date.now() - cached.updatedAt < refreshInterval) return;
      clearTimeout(timer);
      await revalidate(key, fetcherRef.current, { dedupe: true });
      schedule();
    };
    schedule();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      active = false;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
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
  return {
    data: entry.data as T | undefined,
    error: entry.error,
    isLoading: entry.data === undefined && isValidating,
    isValidating,
    mutate: boundMutate,
  };
}
