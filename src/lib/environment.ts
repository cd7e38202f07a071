// Where the data hooks (use-resource.ts, the traces panel's poll) learn whether the tab is visible, hear
// about focus and keep time. The browser's by default; tests swap in a manual one, so they neither patch
// `document` nor wait on real time.

/** Visibility, focus and time as the data hooks see them (swr's initFocus/isVisible, plus timers). */
export type Environment = {
  isVisible: () => boolean;
  /** Calls back on window focus and on visibilitychange; returns the unsubscribe. */
  onFocus: (callback: () => void) => () => void;
  /** Calls back on visibilitychange; returns the unsubscribe. */
  onVisibilityChange: (callback: () => void) => () => void;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (id: unknown) => void;
  now: () => number;
};

export const BROWSER_ENVIRONMENT: Environment = {
  // A missing visibilityState counts as visible, as in swr's web preset.
  isVisible: () => typeof document === 'undefined' || document.visibilityState !== 'hidden',
  onFocus(callback) {
    document.addEventListener('visibilitychange', callback);
    window.addEventListener('focus', callback);
    return () => {
      document.removeEventListener('visibilitychange', callback);
      window.removeEventListener('focus', callback);
    };
  },
  onVisibilityChange(callback) {
    document.addEventListener('visibilitychange', callback);
    return () => document.removeEventListener('visibilitychange', callback);
  },
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

let current: Environment = BROWSER_ENVIRONMENT;

/** The environment in use; read per call, so a test may swap it between renders. */
export const env: Environment = {
  isVisible: () => current.isVisible(),
  onFocus: (callback) => current.onFocus(callback),
  onVisibilityChange: (callback) => current.onVisibilityChange(callback),
  setTimeout: (fn, ms) => current.setTimeout(fn, ms),
  clearTimeout: (id) => current.clearTimeout(id),
  now: () => current.now(),
};

/** Swap the environment (tests: a manual clock, visibility and focus; BROWSER_ENVIRONMENT to go back). */
export function configureEnvironment(next: Environment): void {
  current = next;
}
