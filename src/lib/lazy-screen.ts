// A lazily loaded screen that can be fetched ahead of its first render. main.tsx preloads the
// screen of the page being opened while sign-in is checked, so it renders without suspending:
// React holds back content revealed in a Suspense boundary until 300 ms after its fallback showed. A screen with a
// stylesheet of its own (`style`: its file name) renders once both arrived, never unstyled.
import { createElement, lazy, useState, type ComponentType, type ReactElement } from 'react';
import { loadScreenStyle } from './screen-style.ts';

export type Preloadable = { preload: () => Promise<void> };

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>, style?: string): ((props: P) => ReactElement) & Preloadable {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<void> | undefined;
  const preload = () =>
    (loading ??= Promise.all([load(), style && loadScreenStyle(style)]).then(
      ([component]) => void (loaded = component),
      (err: unknown) => {
        loading = undefined; // a later render tries again
        throw err;
      },
    ));
  const Suspending = lazy(async () => {
    await preload();
    return { default: loaded! };
  });
  function Screen(props: P) {
    // Chosen once per mount: switching component types later would remount the screen.
    const [Component] = useState<ComponentType<P>>(() => loaded ?? Suspending);
    return createElement(Component, props);
  }
  return Object.assign(Screen, { preload });
}
