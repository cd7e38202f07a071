// The one home of impersonation on the client (spec §2): which user an admin acts as is kept in local
// storage under IMPERSONATE_KEY and takes effect on a fresh page load. http.ts sends it as a header,
// realtime-url.ts puts it in socket URLs, auth.tsx clears it; nothing else touches the key.

export const IMPERSONATE_KEY = 'impersonateUserId';
export const IMPERSONATE_HEADER = 'X-Impersonate-User-Id';

export type ImpersonationStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** localStorage, looked up per call (tests register happy-dom late); access throws in sandboxed iframes. */
const browserStorage: ImpersonationStorage = {
  getItem: (key) => attempt(() => globalThis.localStorage?.getItem(key) ?? null, null),
  setItem: (key, value) => attempt(() => globalThis.localStorage?.setItem(key, value), undefined),
  removeItem: (key) => attempt(() => globalThis.localStorage?.removeItem(key), undefined),
};

function attempt<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** The impersonated user's id, or null. */
export function impersonatedUserId(storage: Pick<Storage, 'getItem'> | null = browserStorage): string | null {
  return attempt(() => storage?.getItem(IMPERSONATE_KEY) || null, null);
}

/** Forgets the impersonation without reloading; true when there was one (a stale target, sign-out). */
export function clearImpersonation(storage: ImpersonationStorage = browserStorage): boolean {
  const had = impersonatedUserId(storage) !== null;
  storage.removeItem(IMPERSONATE_KEY);
  return had;
}

export type ImpersonationEnv = { storage: ImpersonationStorage; reload: () => void };
const browserEnv: ImpersonationEnv = { storage: browserStorage, reload: () => location.reload() };

export function startImpersonating(userId: number, env: ImpersonationEnv = browserEnv): void {
  env.storage.setItem(IMPERSONATE_KEY, String(userId));
  env.reload();
}

export function stopImpersonating(env: ImpersonationEnv = browserEnv): void {
  clearImpersonation(env.storage);
  env.reload();
}
