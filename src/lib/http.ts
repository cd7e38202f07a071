// Fetch wrapper for the API: base URL, JSON/auth/impersonation headers, timeouts, one 401 refresh-and-retry,
// typed errors and the spec §8 error normalisation. Deliberately no UI and no other retries: a 401 that
// survives the refresh goes to the `onUnauthorized` callback, everything else to the caller.

import { IMPERSONATE_HEADER, impersonatedUserId } from './impersonation.ts';
import { xhrFetch, type UploadProgress } from './xhr-fetch.ts';

export { IMPERSONATE_KEY } from './impersonation.ts';
export type { UploadProgress } from './xhr-fetch.ts';

/** `from_server` says whether `detail` is the server's own words or the client's (a status line, a network error). */
export type ApiError = { detail: string; status_code: number | string; from_server: boolean };

/** Spec §9: default 10 s; agent create/delete and file upload 300 s; full audio upload 120 s. */
export const TIMEOUTS = { default: 10_000, long: 300_000, audio: 120_000 };

export type HttpConfig = {
  /** @default '/api' */
  baseUrl: string;
  /** The sign-in provider's token; `refresh: true` asks for a new one after a 401. @default () => null */
  getToken: (opts?: { refresh?: boolean }) => Promise<string | null>;
  /** Called when a request still ends in 401 after the one refresh-and-retry. */
  onUnauthorized: () => void;
  /** @default globalThis.fetch, looked up per call */
  fetch: typeof fetch;
  /** Sends the requests that ask for upload progress. @default globalThis.XMLHttpRequest, looked up per call */
  XMLHttpRequest: () => typeof XMLHttpRequest;
  /** Where `impersonateUserId` is read from. @default localStorage when present */
  storage: Pick<Storage, 'getItem'> | null;
  /** Quiet logger for expected failures (spec §8: a 401 is logged quietly). @default console.debug */
  debug: (...args: unknown[]) => void;
};

export type RequestOptions = {
  /** @default 'GET' */
  method?: string;
  /** null, undefined and '' values are dropped. */
  query?: Record<string, string | number | boolean | null | undefined>;
  /** Plain object/array/number/boolean/null → JSON; FormData, Blob, ArrayBuffer, string… sent as is. */
  body?: unknown;
  /** Win over the defaults, compared case-insensitively. */
  headers?: Record<string, string>;
  /** ms; 0 or Infinity disables it. @default TIMEOUTS.default */
  timeout?: number;
  signal?: AbortSignal;
  /**
   * @default 'json' (a 204 or empty body gives null; 'none' gives undefined). 'stream': the body as it arrives (a
   * ReadableStream, null when there is none); the timeout then covers the wait for the answer's head, and the
   * caller's signal still aborts the rest.
   */
  parse?: 'json' | 'blob' | 'text' | 'none' | 'stream';
  /** Upload progress of the body; such a request goes through XMLHttpRequest, fetch cannot report it. */
  onUploadProgress?: (progress: UploadProgress) => void;
};

export const DEFAULTS: HttpConfig = {
  baseUrl: '/api',
  getToken: async () => null,
  onUnauthorized: () => {},
  // Looked up per call (tests register happy-dom late) and called unbound-safe: a detached
  // `window.fetch` throws "Illegal invocation" in browsers.
  fetch: (input, init) => globalThis.fetch(input, init),
  XMLHttpRequest: () => globalThis.XMLHttpRequest,
  storage: { getItem: (key) => globalThis.localStorage?.getItem(key) ?? null },
  debug: (...args) => console.debug(...args),
};

let config: HttpConfig = { ...DEFAULTS };

/** Merge into the current configuration (app start-up registers the token getter and 401 handler here). */
export function configureHttp(partial: Partial<HttpConfig>): void {
  config = { ...config, ...partial };
}

// --- errors

// HTTP/2 responses have an empty statusText, so messages fall back to the usual phrases.
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 413: 'Payload Too Large', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout', 507: 'Insufficient Storage',
};

export class HttpError extends Error {
  override name = 'HttpError';
  status: number;
  method: string;
  url: string;
  /** Parsed error body: JSON when it parses, else the text (null when empty). */
  body: unknown;
  response: Response;
  /** True once the 401 refresh-and-retry has been used for this request. */
  retried: boolean;

  constructor(response: Response, method: string, url: string, body: unknown, retried = false) {
    const text = response.statusText || STATUS_TEXT[response.status] || 'Error';
    super(`${response.status} ${text}: ${method} ${url}`);
    this.status = response.status;
    this.method = method;
    this.url = url;
    this.body = body;
    this.response = response;
    this.retried = retried;
  }
}

export class TimeoutError extends Error {
  override name = 'TimeoutError';
  code = 'ETIMEDOUT' as const;
  constructor(timeout: number, method: string, url: string, cause?: unknown) {
    super(`Request timed out after ${timeout} ms: ${method} ${url}`, { cause });
  }
}

export class NetworkError extends Error {
  override name = 'NetworkError';
  code = 'ERR_NETWORK' as const;
  constructor(method: string, url: string, cause?: unknown) {
    const reason = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
    super(`Network request failed: ${method} ${url}${reason}`, { cause });
  }
}

// --- request

type Encoded = { body: BodyInit | undefined; json: boolean };
type Attempt = { response: Response; payload: unknown };

export async function request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await send(path, options, false)).payload as T;
}

/** What a conditional GET brought: the same as the copy named by the ETag, or new data with its ETag. */
export type Revalidated<T> = { notModified: true; etag: string } | { notModified: false; data: T; etag: string | null };

/**
 * A GET that sends `etag` as If-None-Match (when given) and reports a 304 instead of throwing. A browser
 * passes a 304 through only when the page asked conditionally itself; without If-None-Match it may
 * revalidate from its own HTTP cache and hand over a 200 with the stored body, which arrives as new data.
 */
export async function requestIfChanged<T = unknown>(path: string, etag: string | null, options: RequestOptions = {}): Promise<Revalidated<T>> {
  const headers = etag ? { ...options.headers, 'If-None-Match': etag } : options.headers;
  const { response, payload } = await send(path, { ...options, headers }, true);
  const tag = response.headers.get('ETag');
  if (response.status === 304) return { notModified: true, etag: tag ?? etag ?? '' };
  return { notModified: false, data: payload as T, etag: tag };
}

async function send(path: string, options: RequestOptions, takeNotModified: boolean): Promise<Attempt> {
  const method = (options.method ?? 'GET').toUpperCase();
  const url = buildUrl(config.baseUrl, path, options.query);
  const encoded = encodeBody(options.body);
  const go = (token: string | null) => attempt(url, method, encoded, token, options);

  let result = await go(await readToken());
  if (result.response.status === 401) {
    const fresh = await readToken({ refresh: true });
    if (fresh) result = await go(fresh);
    if (result.response.status === 401) {
      config.debug(`401 after token refresh: ${method} ${url}`);
      config.onUnauthorized();
      throw new HttpError(result.response, method, url, withAuthDetail(result.payload), true);
    }
  }
  if (result.response.status === 304 && takeNotModified) return result;
  if (!result.response.ok) throw new HttpError(result.response, method, url, result.payload);
  return result;
}

function buildUrl(baseUrl: string, path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== null && value !== undefined && value !== '') params.append(name, String(value));
  }
  const search = params.toString();
  const url = baseUrl + path;
  return search ? `${url}${url.includes('?') ? '&' : '?'}${search}` : url;
}

function encodeBody(body: unknown): Encoded {
  if (body === undefined) return { body: undefined, json: true };
  if (typeof body === 'string') return { body, json: true }; // pre-serialised JSON
  if (isJsonValue(body)) return { body: JSON.stringify(body), json: true };
  // FormData must not get a Content-Type: the browser adds the multipart boundary itself.
  return { body: body as BodyInit, json: false };
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value)) return true;
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

async function readToken(opts?: { refresh?: boolean }): Promise<string | null> {
  try {
    return (await config.getToken(opts)) || null;
  } catch (error) {
    config.debug('getToken failed, sending the request without a token', error);
    return null;
  }
}

function buildHeaders(encoded: Encoded, token: string | null, custom: Record<string, string> = {}) {
  const headers: Record<string, string> = {};
  if (encoded.json) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  const impersonate = impersonatedUserId(config.storage);
  if (impersonate) headers[IMPERSONATE_HEADER] = impersonate;
  for (const [name, value] of Object.entries(custom)) {
    for (const existing of Object.keys(headers)) {
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    }
    headers[name] = value;
  }
  return headers;
}

async function attempt(url: string, method: string, encoded: Encoded, token: string | null, options: RequestOptions): Promise<Attempt> {
  const timeout = options.timeout ?? TIMEOUTS.default;
  const signal = options.signal;
  const controller = new AbortController();
  let timedOut = false;
  const timer = timeout > 0 && Number.isFinite(timeout)
    ? setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException(`Timed out after ${timeout} ms`, 'TimeoutError'));
      }, timeout)
    : undefined;
  const forwardAbort = () => controller.abort(signal?.reason);
  let streaming = false;
  if (signal?.aborted) forwardAbort();
  else signal?.addEventListener('abort', forwardAbort, { once: true });

  // Timeout, the caller's abort and a dropped connection look alike from fetch; tell them apart here.
  const fail = (error: unknown): never => {
    if (timedOut) throw new TimeoutError(timeout, method, url, error);
    if (signal?.aborted) throw error;
    throw new NetworkError(method, url, error);
  };
  try {
    const init: RequestInit = {
      method,
      headers: buildHeaders(encoded, token, options.headers),
      body: encoded.body,
      signal: controller.signal,
    };
    const transport = options.onUploadProgress ? xhrFetch(config.XMLHttpRequest(), options.onUploadProgress) : config.fetch;
    const response = await transport(url, init).catch(fail);
    const parse = response.ok ? (options.parse ?? 'json') : 'error';
    streaming = parse === 'stream';
    const raw = parse === 'none' ? undefined
      : parse === 'stream' ? response.body
      : parse === 'blob' ? await response.blob().catch(fail)
      : response.status === 204 || response.status === 205 ? ''
      : await response.text().catch(fail);
    return { response, payload: decode(parse, raw) };
  } finally {
    clearTimeout(timer);
    if (!streaming) signal?.removeEventListener('abort', forwardAbort);
  }
}

function decode(parse: RequestOptions['parse'] | 'error', raw: unknown): unknown {
  if (parse === 'none' || parse === 'blob' || parse === 'text' || parse === 'stream') return raw;
  const text = raw as string;
  if (text.trim() === '') return null;
  if (parse === 'json') return JSON.parse(text); // a 2xx that is not JSON is a server bug: let it surface
  try {
    return JSON.parse(text);
  } catch {
    return text; // proxies answer errors with HTML or plain text
  }
}

function withAuthDetail(body: unknown): unknown {
  if (isRecord(body) && body.detail) return body;
  return isRecord(body) ? { ...body, detail: 'Authentication required' } : { detail: 'Authentication required' };
}

// --- normalisation (spec §8)

/**
 * Turn any failure into `{ detail, status_code }`.
 * detail: the server's `detail` (list → each item's `msg` joined with '; ', object → its `message` or `error`),
 * else the error's message, else 'An error occurred'.
 * status_code: the HTTP status; 'ETIMEDOUT' / 'ERR_NETWORK' for timeouts and network failures; 'ERR_CANCELED'
 * for an abort; an existing `status_code` (normalising twice is harmless); otherwise 500, because anything
 * else is an unexpected failure, the client-side equivalent of a server's unhandled error.
 */
export function normalizeError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  const body = error instanceof HttpError ? error.body : error;
  const said = readDetail(body);
  return {
    detail: said || messageOf(error) || 'An error occurred',
    status_code: statusOf(error),
    from_server: Boolean(said),
  };
}

/** The server's detail, else the spec's fallback text for the situation (never a raw status line, spec §8). */
export function detailOr(error: unknown, fallback: string): string {
  const normalized = isApiError(error) ? error : normalizeError(error);
  return normalized.from_server ? normalized.detail : fallback;
}

function isApiError(value: unknown): value is ApiError {
  return isRecord(value) && typeof value.detail === 'string' && typeof value.from_server === 'boolean';
}

function readDetail(body: unknown): string {
  if (!isRecord(body)) return '';
  const detail = body.detail;
  if (typeof detail === 'string') return detail;
  if (typeof detail === 'number') return String(detail);
  if (Array.isArray(detail)) {
    return detail
      .map((item) => (typeof item === 'string' ? item : isRecord(item) && typeof item.msg === 'string' ? item.msg : ''))
      .filter(Boolean)
      .join('; ');
  }
  if (isRecord(detail)) {
    if (typeof detail.message === 'string' && detail.message) return detail.message;
    if (typeof detail.error === 'string') return detail.error;
  }
  return '';
}

function messageOf(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return '';
}

function statusOf(error: unknown): number | string {
  if (error instanceof HttpError) return error.status;
  if (error instanceof TimeoutError || error instanceof NetworkError) return error.code;
  if (!isRecord(error)) return 500;
  if (error.name === 'AbortError') return 'ERR_CANCELED';
  if (typeof error.status_code === 'number' || typeof error.status_code === 'string') return error.status_code;
  if (typeof error.status === 'number' && error.status >= 100) return error.status;
  return 500;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
