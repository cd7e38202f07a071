// Screenshot addresses point into the API, which wants the Bearer token that an <img> cannot send,
// so the image is fetched through request() and shown from a blob: URL (the CSP allows blob: images).
// Addresses outside the API are used as they are.
import { useEffect, useState } from 'react';
import { normalizeError, request } from './http.ts';

const API_PREFIX = '/api/';

/** An image source for the screenshot, or null while there is none (or it could not be loaded). */
export function useScreenshot(url: string | null): string | null {
  const direct = url && !url.startsWith(API_PREFIX) ? url : null;
  const [blobUrl, setBlobUrl] = useState<string | null>(null);

  useEffect(() => {
    if (!url || direct) {
      setBlobUrl(null);
      return;
    }
    let cancelled = false;
    // request() adds the '/api' base itself; the previous image stays up until this one arrives.
    request<Blob>(url.slice(API_PREFIX.length - 1), { parse: 'blob' }).then(
      (blob) => !cancelled && setBlobUrl(URL.createObjectURL(blob)),
      (error) => console.debug('screenshot not loaded', normalizeError(error)),
    );
    return () => {
      cancelled = true;
    };
  }, [url, direct]);

  // Each blob: URL pins its image in memory until revoked: drop one once it is replaced or unmounted.
  useEffect(() => () => {
    if (blobUrl) URL.revokeObjectURL(blobUrl);
  }, [blobUrl]);

  if (!url) return null;
  return direct ?? blobUrl;
}
