// Uploads a recording's audio to POST /screenshare/audio-final (spec §7, §9): the raw body with
// X-Session-Id and the recording's content type (audio/ogg when it has none), through http.ts (auth
// refresh, HttpError). Each attempt may take 120 s; failures that may pass (network, timeout, 5xx, 408,
// 429) are retried after 2 s, 4 s, then every 8 s, until 30 s have gone by since the first attempt
// (counted like an exponential backoff's max elapsed time). Timers and clock are injectable for tests.
import { AUDIO_PATH, postAudio, type AudioReceipt } from './desktop-api.ts';
import { HttpError, TimeoutError, TIMEOUTS } from './http.ts';

export { AUDIO_PATH, type AudioReceipt } from './desktop-api.ts';
export const RETRY = { firstDelay: 2000, maxDelay: 8000, giveUpAfter: 30_000 };

export type UploadTimers = {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (id: unknown) => void;
  now: () => number;
};

export type UploadOptions = {
  /** @default the global timers and Date.now */
  timers?: UploadTimers;
  /** Per attempt. @default TIMEOUTS.audio (120 s) */
  timeout?: number;
  /** Called before each retry with the attempt that failed and the wait. */
  onRetry?: (attempt: number, delay: number, error: unknown) => void;
};

const DEFAULT_TIMERS: UploadTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

/** Whether another attempt may succeed where this one failed. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof HttpError) return error.status >= 500 || error.status === 408 || error.status === 429;
  return true; // timeouts, network failures
}

/** Delay before retry n (1-based): 2 s doubling, at most 8 s. */
export const retryDelay = (n: number) => Math.min(RETRY.firstDelay * 2 ** (n - 1), RETRY.maxDelay);

export async function uploadAudio(sessionId: string, audio: Blob, options: UploadOptions = {}): Promise<AudioReceipt> {
  const timers = options.timers ?? DEFAULT_TIMERS;
  const timeout = options.timeout ?? TIMEOUTS.audio;
  const started = timers.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(sessionId, audio, timeout, timers);
    } catch (error) {
      const delay = retryDelay(attempt);
      if (!isRetryable(error) || timers.now() + delay - started > RETRY.giveUpAfter) throw error;
      options.onRetry?.(attempt, delay, error);
      await new Promise<void>((resolve) => timers.setTimeout(resolve, delay));
    }
  }
}

/** One attempt, cut off after `timeout` by the injected timers (http.ts's own timer is off). */
async function once(sessionId: string, audio: Blob, timeout: number, timers: UploadTimers): Promise<AudioReceipt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = timers.setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`Timed out after ${timeout} ms`, 'TimeoutError'));
  }, timeout);
  try {
    return await postAudio(sessionId, audio, controller.signal);
  } catch (error) {
    if (timedOut) throw new TimeoutError(timeout, 'POST', `/api${AUDIO_PATH}`, error);
    throw error;
  } finally {
    timers.clearTimeout(timer);
  }
}
