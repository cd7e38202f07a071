import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { THEME_KEY, applyTheme, initialTheme, useTheme } from '../../src/lib/theme.ts';

const stored = (value: string | null) => ({ getItem: (key: string) => (key === THEME_KEY ? value : null) });
const os = (dark: boolean) => () => dark;

// ---

const initial = suite('theme: initialTheme');
initial.before.each(reset);

initial('follows the OS preference when nothing is stored', () => {
  assert.is(initialTheme({ storage: stored(null), prefersDark: os(true) }), 'dark');
  assert.is(initialTheme({ storage: stored(null), prefersDark: os(false) }), 'light');
});

initial('lets a stored choice win over the OS preference', () => {
  assert.is(initialTheme({ storage: stored('light'), prefersDark: os(true) }), 'light');
  assert.is(initialTheme({ storage: stored('dark'), prefersDark: os(false) }), 'dark');
});

initial('ignores stored values other than light and dark', () => {
  for (const value of ['blue', '', 'DARK', '"dark"']) {
    assert.is(initialTheme({ storage: stored(value), prefersDark: os(true) }), 'dark', value);
  }
});

initial('falls back to the OS preference when storage throws', () => {
  const storage = { getItem: () => { throw new DOMException('denied', 'SecurityError'); } };
  assert.is(initialTheme({ storage, prefersDark: os(true) }), 'dark');
});

initial('reads localStorage and matchMedia by default', () => {
  assert.is(initialTheme(), matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  localStorage.setItem(THEME_KEY, 'dark');
  assert.is(initialTheme({ prefersDark: os(false) }), 'dark');
});

initial.run();

// ---

let root: Root | null = null;

function Toggle({ id }: { id: string }) {
  const [theme, toggle] = useTheme();
  return createElement('button', { id, onClick: toggle }, theme);
}

const hook = suite('theme: applyTheme and useTheme');
const cleanup = () => {
  if (root) act(() => root!.unmount());
  root = null;
  reset();
};
hook.before.each(cleanup);
hook.after.each(cleanup);

async function render(): Promise<void> {
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render([createElement(Toggle, { id: 'a', key: 'a' }), createElement(Toggle, { id: 'b', key: 'b' })]));
}

const button = (id: string) => document.getElementById(id) as HTMLButtonElement;
const click = (id: string) => act(async () => button(id).click());

hook('applyTheme sets data-theme and color-scheme on <html>', () => {
  applyTheme('dark');
  assert.is(document.documentElement.dataset.theme, 'dark');
  assert.is(document.documentElement.style.colorScheme, 'dark');
  applyTheme('light');
  assert.is(document.documentElement.getAttribute('data-theme'), 'light');
});

hook('starts from the stored theme and applies it', async () => {
  localStorage.setItem(THEME_KEY, 'dark');
  await render();
  assert.is(button('a').textContent, 'dark');
  assert.is(document.documentElement.dataset.theme, 'dark');
});

hook('toggling persists the choice, applies it and updates every user of the hook', async () => {
  localStorage.setItem(THEME_KEY, 'light');
  await render();
  await click('a');
  assert.is(localStorage.getItem(THEME_KEY), 'dark');
  assert.is(document.documentElement.dataset.theme, 'dark');
  assert.is(button('a').textContent, 'dark');
  assert.is(button('b').textContent, 'dark');
  await click('b');
  assert.is(localStorage.getItem(THEME_KEY), 'light');
  assert.is(button('a').textContent, 'light');
});

hook.run();
