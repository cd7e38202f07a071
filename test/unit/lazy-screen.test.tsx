import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, Suspense, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { lazyScreen } from '../../src/lib/lazy-screen.ts';

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

test.run();
