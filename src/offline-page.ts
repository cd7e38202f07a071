// The offline page's script (offline.html, served by the service worker when a page cannot be fetched): the theme the
// app chose, and the page the visitor asked for again as soon as the browser is back online. Self-contained on purpose:
// importing src/lib/theme.ts would share a chunk with the app's entry and cost every first load a request.

// The same choice as initialTheme() in src/lib/theme.ts: the stored toggle, else the system's preference.
let theme: string | null = null;
try {
  theme = localStorage.getItem('theme');
} catch {
  // no storage (some private modes): the system's preference
}
if (theme !== 'light' && theme !== 'dark') theme = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
document.documentElement.dataset.theme = theme;
document.documentElement.style.colorScheme = theme;

addEventListener('online', () => location.reload());
