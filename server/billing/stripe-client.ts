// A small client for Stripe's REST API over fetch: form-encoded bodies (nested keys as a[b][c]),
// the secret key as Bearer token, a pinned API version, and Stripe's error replies
// ({error: {type, message, code}} with 4xx/5xx) turned into StripeError. No SDK.
export const STRIPE_API_VERSION = '2024-06-20'; // before basil: GET /v1/invoices/upcoming still exists
const TIMEOUT_MS = 15_000;

export type StripeParams = { [key: string]: string | number | boolean | null | undefined | StripeParams | (string | number | StripeParams)[] };

export class StripeError extends Error {
  constructor(readonly status: number, readonly type: string, readonly code: string | null, message: string) {
    super(message);
    this.name = 'StripeError';
  }
}

/** 'a[b][0]=x&…' as Stripe reads nested parameters; null/undefined are left out. */
export function formEncode(params: StripeParams, prefix = ''): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    const name = prefix ? `${prefix}[${key}]` : key;
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        if (typeof item === 'object') parts.push(formEncode(item, `${name}[${i}]`));
        else parts.push(`${encodeURIComponent(`${name}[]`)}=${encodeURIComponent(String(item))}`);
      });
    } else if (typeof value === 'object') {
      parts.push(formEncode(value, name));
    } else {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.filter(Boolean).join('&');
}

export type StripeClient = {
  get<T = any>(path: string, query?: StripeParams): Promise<T>;
  post<T = any>(path: string, body?: StripeParams, options?: { idempotencyKey?: string }): Promise<T>;
};

export function stripeClient(options: { secretKey: string; apiBase: string; fetch?: typeof fetch }): StripeClient {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  async function send<T>(method: 'GET' | 'POST', path: string, params: StripeParams = {}, idempotencyKey?: string): Promise<T> {
    const encoded = formEncode(params);
    const url = `${options.apiBase}${path}${method === 'GET' && encoded ? `?${encoded}` : ''}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${options.secretKey}`, 'Stripe-Version': STRIPE_API_VERSION };
    if (method === 'POST') headers['Content-Type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body: method === 'POST' ? encoded : undefined, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new StripeError(0, 'api_connection_error', null,
        timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : `cannot reach Stripe (${(err as Error).message})`);
    }
    const text = await res.text();
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // a proxy's HTML error page: reported by status below
    }
    if (res.ok && body) return body as T;
    const e = body?.error;
    throw new StripeError(res.status, e?.type ?? 'api_error', e?.code ?? null, e?.message || `HTTP ${res.status} from Stripe`);
  }
  return {
    get: (path, query) => send('GET', path, query),
    post: (path, body, o) => send('POST', path, body, o?.idempotencyKey),
  };
}
