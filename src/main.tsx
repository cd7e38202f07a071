// Mounts the app; the theme is applied before the first render to avoid a flash, and the opened
// page's screen starts loading while sign-in is checked. The service worker registers a few seconds after the load.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, preloadScreen } from './app.tsx';
import { startServiceWorker } from './lib/service-worker.ts';
import { applyTheme, initialTheme } from './lib/theme.ts';
import '../styles/index.css';

applyTheme(initialTheme());
preloadScreen(location.pathname);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
// Only the built app runs this file (the unit tests render screens, never main.tsx), on a secure context only.
startServiceWorker();
