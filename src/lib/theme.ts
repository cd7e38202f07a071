// Light/dark theme: stored choice, else the OS preference; applied as <html data-theme> and color-scheme.
// Leaves out following later OS changes and syncing other tabs: an explicit toggle is the only writer.

import { useEffect, useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';
export const THEME_KEY = 'theme';

export type ThemeEnv = { storage?: Pick<Storage, 'getItem'>; prefersDark?: () => boolean };

const listeners = new Set<() => void>();

export function initialTheme(env: ThemeEnv = {}): Theme {
  const stored = read(() => (env.storage ?? localStorage).getItem(THEME_KEY));
  if (stored === 'light' || stored === 'dark') return stored;
  const prefersDark = env.prefersDark ?? (() => matchMedia('(prefers-color-scheme: dark)').matches);
  return read(prefersDark) ? 'dark' : 'light';
}

/** The title bar's colour (--surface) in each theme, for the browser's and the installed app's own bar (meta theme-color). */
const THEME_COLOR: Record<Theme, string> = { light: '#ffffff', dark: '#171a21' };

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  root.dataset.theme = theme;
  root.style.colorScheme = theme;
  document.querySelector('meta[name="theme-color"]')?.setAttribute('content', THEME_COLOR[theme]);
  for (const listener of listeners) listener();
}

// The <html> attribute is the single source of truth: main.tsx can apply the theme before React renders
// (no flash of the wrong theme) and every useTheme() caller sees the same value.
function currentTheme(): Theme {
  const applied = document.documentElement.dataset.theme;
  return applied === 'light' || applied === 'dark' ? applied : initialTheme();
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/** The current theme and a toggle that persists the choice to localStorage and applies it. */
export function useTheme(): [Theme, () => void] {
  const theme = useSyncExternalStore(subscribe, currentTheme, () => 'light' as Theme);
  useEffect(() => {
    if (document.documentElement.dataset.theme !== theme) applyTheme(theme);
  }, [theme]);
  return [theme, toggleTheme];
}

/** Switch light ↔ dark, persist the choice and apply it. */
export function toggleTheme(): void {
  const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark';
  // Storage can be unavailable (privacy modes, quota); the toggle still works for this page view.
  read(() => localStorage.setItem(THEME_KEY, next));
  applyTheme(next);
}

function read<T>(get: () => T): T | null {
  try {
    return get();
  } catch {
    return null;
  }
}
