// Screenshot addresses point into the API, which wants the Bearer token that an <img> cannot send,
// so the image is fetched through request() and shown from a blob: URL (the CSP allows blob: images).
// Addresses outside the API are used as they are.
import { useEffect, useState } from 'react';
import { normalizeError, request } from './http.ts';

const API_PREFIX = '/api/';

/**
 * An image source for the screenshot, or null while there is none (or it could not be loaded). While
 * `hold` is true the address last taken stays in use, so the image shown stays and a new address is not
 * fetched: the agent screen holds it while the live view covers it (the address changes as the desktop does,
 * and each new one costs the server a PNG of the whole screen, on the event loop that relays the person's keys).
 */
export function useScreenshot(url: string | null, hold = false): string | null {
  const [held, setHeld] = useState(url);
  if (!hold && held !== url) setHeld(url); // React re-renders at once with the address taken
  const source = hold ? held : url;
  const direct = source && !source.startsWith(API_PREFIX) ? source : null;
  const [blobUrl, setBlobUrl] = useState<string | null>(null);

  useEffect(() => {
    if (!source || direct) {
      setBlobUrl(null);
      return;
    }
    let cancelled = false;
    // request() adds the '/api' base itself; the previous image stays up until this one arrives.
    request<Blob>(source.slice(API_PREFIX.length - 1), { parse: 'blob' }).then(
      (blob) => !cancelled && setBlobUrl(URL.createObjectURL(blob)),
      (error) => console.debug('screenshot not loaded', normalizeError(error)),
    );
    return () => {
      cancelled = true;
    };
  }, [source, direct]);

  // Each blob: URL pins its image in memory until revoked: drop one once it is replaced or unmounted.
  useEffect(() => () => {
    if (blobUrl) URL.revokeObjectURL(blobUrl);
  }, [blobUrl]);

  if (!source) return null;
  return direct ?? blobUrl;
}
