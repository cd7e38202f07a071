// A screen's own stylesheet (the agent screen's, replay, admin, reports, settings), loaded with its chunk rather
// than with the app (issue 26's first-load budget). build.mjs lists their hashed names in <meta name="screen-styles">
// ("agent-page-H4SH replay-H4SH ..."); without it (the unit tests, which render no styles) there is nothing to load.
const loading = new Map<string, Promise<void>>();

function styleUrl(screen: string): string | null {
  const stems = document.querySelector<HTMLMetaElement>('meta[name="screen-styles"]')?.content.split(' ') ?? [];
  const stem = stems.find((s) => s.slice(0, s.lastIndexOf('-')) === screen);
  return stem ? `/assets/${stem}.css` : null;
}

/** Resolves once the screen's stylesheet applies (or failed: the screen then shows unstyled rather than not at all). */
export function loadScreenStyle(screen: string): Promise<void> {
  let done = loading.get(screen);
  if (!done) {
    const href = styleUrl(screen);
    done = !href ? Promise.resolve() : new Promise<void>((resolve) => {
      const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href });
      link.addEventListener('load', () => resolve(), { once: true });
      link.addEventListener('error', () => (loading.delete(screen), resolve()), { once: true });
      document.head.append(link);
    });
    loading.set(screen, done);
  }
  return done;
}
