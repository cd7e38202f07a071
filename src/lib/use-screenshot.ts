// Screenshot addresses point into the API, which wants the Bearer token that an <img> cannot send,
// so the image is fetched through request() and shown from a blob: URL (the CSP allows blob: images).
// Addresses outside the API are used as they are.
import { useEffect, useRef, useState } from 'react';
import { normalizeError, request } from './http.ts';

const API_PREFIX = '/api/';

/**
 * An image source for the screenshot, or null while there is none (or it could not be loaded). While
 * `hold` is true the image shown stays and a new address is not fetched: the agent screen holds it while the
 * live view covers it (the address changes as the desktop does, and each new one costs the server a PNG of
 * the whole screen, on the event loop that relays the person's keys).
 */
export function useScreenshot(url: string | null, hold = false): string | null {
  const direct = url && !url.startsWith(API_PREFIX) ? url : null;
  const [blobUrl, setBlobUrl] = useState<string | null>(null);
  const asked = useRef<string | null>(null);

  useEffect(() => {
    if (hold) return;
    if (!url || direct) {
      asked.current = null;
      setBlobUrl(null);
      return;
    }
    if (asked.current === url) return; // held, and let go with the address unchanged
    asked.current = url;
    let cancelled = false;
    let answered = false;
    // request() adds the '/api' base itself; the previous image stays up until this one arrives.
    request<Blob>(url.slice(API_PREFIX.length - 1), { parse: 'blob' }).then(
      (blob) => {
        answered = true;
        if (!cancelled) setBlobUrl(URL.createObjectURL(blob));
      },
      (error) => {
        answered = true;
        console.debug('screenshot not loaded', normalizeError(error));
      },
    );
    return () => {
      cancelled = true;
      if (!answered && asked.current === url) asked.current = null; // dropped unanswered: asked again when next wanted
    };
  }, [url, direct, hold]);

  // Each blob: URL pins its image in memory until revoked: drop one once it is replaced or unmounted.
  useEffect(() => () => {
    if (blobUrl) URL.revokeObjectURL(blobUrl);
  }, [blobUrl]);

  if (!url && !hold) return null;
  return direct ?? blobUrl;
}
