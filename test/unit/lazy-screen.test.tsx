import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, Suspense, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { lazyScreen } from '../../src/lib/lazy-screen.ts';
import { waitFor } from './helpers/screen-harness.tsx';

const test = suite('lazyScreen');
let root: Root | undefined;
let container: HTMLElement;

test.before.each(() => {
  reset();
  container = document.createElement('div');
  document.body.append(container);
});
test.after.each(async () => {
  await act(async () => root?.unmount());
  root = undefined;
});

function Hello({ name }: { name: string }) {
  const [count, setCount] = useState(0);
  return <button onClick={() => setCount(count + 1)}>Hello {name} {count}</button>;
}

/** Renders `screen` in a Suspense boundary that logs every time its fallback is shown. */
async function render(node: React.ReactNode, fallbacks: string[]) {
  function Fallback() {
    fallbacks.push('fallback');
    return <p>loading</p>;
  }
  await act(async () => {
    root = createRoot(container);
    root.render(<Suspense fallback={<Fallback />}>{node}</Suspense>);
  });
}

test('a preloaded screen renders at once, never showing the fallback', async () => {
  let loads = 0;
  const Screen = lazyScreen(async () => (loads++, Hello));
  await Screen.preload();
  await Screen.preload(); // loading twice fetches once
  const fallbacks: string[] = [];
  await render(<Screen name="Ada" />, fallbacks);
  assert.is(container.textContent, 'Hello Ada 0');
  assert.equal(fallbacks, []);
  assert.is(loads, 1);
});

test('a screen not yet loaded suspends, then renders and keeps its state across renders', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const Screen = lazyScreen(async () => (await gate, Hello));
  const fallbacks: string[] = [];
  await render(<Screen name="Bo" />, fallbacks);
  assert.is(container.textContent, 'loading');
  await act(async () => release());
  assert.is(container.textContent, 'Hello Bo 0');
  await act(async () => container.querySelector('button')!.click());
  await act(async () => root!.render(<Suspense fallback={null}><Screen name="Bo" /></Suspense>));
  assert.is(container.textContent, 'Hello Bo 1', 'same component instance: state kept');
  assert.ok(fallbacks.length >= 1);
});

test('a failed load is tried again by the next preload', async () => {
  let attempts = 0;
  const Screen = lazyScreen(async () => {
    if (++attempts === 1) throw new Error('chunk failed');
    return Hello;
  });
  await Screen.preload().then(() => assert.unreachable('first load fails'), (err: Error) => assert.is(err.message, 'chunk failed'));
  await Screen.preload();
  await render(<Screen name="Cy" />, []);
  assert.is(container.textContent, 'Hello Cy 0');
  assert.is(attempts, 2);
});

test('a screen with a stylesheet of its own shows once that stylesheet applies; two screens sharing it load it once', async () => {
  // happy-dom fetches the stylesheet the page links (its fetch settings answer it here, held until told).
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const asked: string[] = [];
  const meta = Object.assign(document.createElement('meta'), { name: 'screen-styles', content: 'other-AAAA sheet-B2C3 sheets-DDDD' });
  document.head.append(meta);
  const settings = (window as unknown as { happyDOM: { settings: any } }).happyDOM.settings;
  const before = { css: { ...settings }, interceptor: settings.fetch.interceptor };
  Object.assign(settings, { enableCSSFileLoading: true, disableCSSFileLoading: false }); // happy-dom fetches none by default
  settings.fetch.interceptor = {
    beforeAsyncRequest: async ({ request }: { request: Request }) => {
      asked.push(new URL(request.url).pathname);
      await held;
      return new Response('.hello-sheet { color: rgb(1, 2, 3); }', { headers: { 'Content-Type': 'text/css' } });
    },
  };
  try {
    const First = lazyScreen(async () => Hello, 'sheet');
    const Second = lazyScreen(async () => Hello, 'sheet');
    let shown = false;
    const loading = First.preload().then(() => (shown = true));
    const second = Second.preload();
    await waitFor(() => asked.length === 1);
    assert.equal(asked, ['/assets/sheet-B2C3.css'], 'its own, by its hashed name');
    assert.is(shown, false, 'not before the stylesheet applies');
    release();
    await Promise.all([loading, second]);
    assert.is(asked.length, 1, 'one stylesheet for both');
    await act(async () => (root = createRoot(container)).render(<p className="hello-sheet"><First name="Di" /></p>));
    assert.is(container.textContent, 'Hello Di 0');
    assert.is(getComputedStyle(container.querySelector('.hello-sheet')!).color, 'rgb(1, 2, 3)');
  } finally {
    Object.assign(settings, { enableCSSFileLoading: before.css.enableCSSFileLoading, disableCSSFileLoading: before.css.disableCSSFileLoading });
    settings.fetch.interceptor = before.interceptor;
    meta.remove();
    for (const link of document.head.querySelectorAll('link[rel="stylesheet"]')) link.remove();
  }
});

test('without the build\'s list of stylesheets (development, tests) a screen loads no stylesheet', async () => {
  const Screen = lazyScreen(async () => Hello, 'elsewhere');
  await Screen.preload();
  assert.is(document.head.querySelectorAll('link[rel="stylesheet"]').length, 0);
});

test.run();
