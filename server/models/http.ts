// POST JSON to a model API with retries: 429, 5xx and 529 (overloaded) are retried with
// exponential backoff and jitter, honouring retry-after (seconds or an HTTP date, capped).
// Aborting the signal ends a request or a wait at once. No SDKs: plain fetch.
import { isAbort, ModelError } from './types.ts';

export type RetryOptions = {
  /** Attempts in all, the first included. @default 5 */
  attempts?: number;
  /** First backoff; doubles each retry. @default 1000 */
  baseDelayMs?: number;
  /** Longest single wait, retry-after included. @default 60000 */
  maxDelayMs?: number;
  /** Per-attempt timeout. @default 300000 */
  timeoutMs?: number;
  /** Injected in tests to observe waits without waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
};

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

export type PostResult = { status: number; body: any; attempts: number };

export async function postJson(
  provider: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
  options: RetryOptions = {},
  describeError: (status: number, body: any) => string = defaultDescribe,
): Promise<PostResult> {
  const attempts = options.attempts ?? 5;
  const base = options.baseDelayMs ?? 1000;
  const maxDelay = options.maxDelayMs ?? 60_000;
  const sleep = options.sleep ?? abortableSleep;
  const doFetch = options.fetch ?? fetch;
  const text = JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 300_000);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    let parsed: any;
    try {
      res = await doFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text, signal: both });
      const raw = await res.text();
      try {
        parsed = raw ? JSON.parse(raw) : null;
      } catch {
        parsed = raw.slice(0, 2000);
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : abortError();
      const timedOut = timeout.aborted;
      const message = timedOut ? `timed out after ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s` : (err as Error).message;
      if (attempt >= attempts || (isAbort(err) && !timedOut)) {
        throw new ModelError(`${provider} API unreachable at ${url}: ${message}`, { provider, cause: err });
      }
      await sleep(backoff(attempt, base, maxDelay), signal);
      continue;
    }
    if (res.ok) return { status: res.status, body: parsed, attempts: attempt };
    const describe = describeError(res.status, parsed);
    if (!RETRYABLE.has(res.status) || attempt >= attempts) {
      const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
      throw new ModelError(`${describe}${tries}`, { provider, status: res.status, response: parsed });
    }
    const after = retryAfterMs(res.headers.get('retry-after'));
    await sleep(Math.min(after ?? backoff(attempt, base, maxDelay), maxDelay), signal);
  }
}

function defaultDescribe(status: number, body: any): string {
  const message = body?.error?.message ?? (typeof body === 'string' ? body : '');
  return `HTTP ${status}${message ? `: ${message}` : ''}`;
}

/** Full jitter over an exponential ceiling. */
function backoff(attempt: number, base: number, max: number): number {
  const ceiling = Math.min(max, base * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

export function retryAfterMs(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : abortError());
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal!.reason instanceof Error ? signal!.reason : abortError());
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortError(message = 'Aborted'): Error {
  const err = new Error(message);
  err.name = 'AbortError';
  return err;
}
