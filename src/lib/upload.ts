// File upload to POST /api/agents/{id}/upload_file with upload progress, which fetch cannot report, so
// this one call uses XMLHttpRequest. Same headers as http.ts (Bearer token, X-Impersonate-User-Id), the
// 300 s upload timeout, one 401 refresh-and-retry; failures reject with the spec §8 {detail, status_code}.
import { getToken as authToken } from './auth.tsx';
import { DEFAULTS as HTTP_DEFAULTS, IMPERSONATE_KEY, NetworkError, TIMEOUTS, TimeoutError, normalizeError } from './http.ts';

export type UploadResult = { file_path: string; file_name: string; size: number };

export type UploadOptions = {
  /** Upload progress: bytes sent of the request body's total. */
  onProgress?: (progress: { loaded: number; total: number; fraction: number }) => void;
  signal?: AbortSignal;
  /** ms. @default TIMEOUTS.long (300 s) */
  timeout?: number;
  /** @default the signed-in user's access token (src/lib/auth.tsx) */
  getToken?: (opts?: { refresh?: boolean }) => Promise<string | null>;
  /** @default globalThis.XMLHttpRequest */
  XMLHttpRequest?: typeof XMLHttpRequest;
  /** @default '/api' */
  baseUrl?: string;
  /** Where impersonateUserId is read from. @default localStorage */
  storage?: Pick<Storage, 'getItem'> | null;
};

type Answer = { status: number; statusText: string; text: string };

export async function uploadFile(agentId: number, file: Blob & { name?: string }, options: UploadOptions = {}): Promise<UploadResult> {
  if (!(agentId > 0)) throw normalizeError({ detail: 'Uploads need an agent', status_code: 400 });
  const url = `${options.baseUrl ?? HTTP_DEFAULTS.baseUrl}/agents/${agentId}/upload_file`;
  const readToken = options.getToken ?? authToken;
  const token = async (refresh?: boolean) => {
    try {
      return await readToken(refresh ? { refresh } : undefined);
    } catch {
      return null; // sent without a token; the server's 401 says the rest
    }
  };
  try {
    let answer = await send(url, file, await token(), options);
    if (answer.status === 401) {
      const fresh = await token(true);
      if (fresh) answer = await send(url, file, fresh, options);
    }
    const body = parse(answer.text);
    if (answer.status < 200 || answer.status >= 300) {
      const reason = `${answer.status} ${answer.statusText || 'Error'}: POST ${url}`;
      const fallback = answer.status === 401 ? 'Authentication required' : undefined;
      throw normalizeError({ detail: fallback, ...(isRecord(body) ? body : {}), status: answer.status, message: reason });
    }
    return body as UploadResult;
  } catch (error) {
    throw normalizeError(error);
  }
}

function send(url: string, file: Blob & { name?: string }, token: string | null, options: UploadOptions): Promise<Answer> {
  const Xhr = options.XMLHttpRequest ?? globalThis.XMLHttpRequest;
  const timeout = options.timeout ?? TIMEOUTS.long;
  const { signal, onProgress } = options;
  return new Promise<Answer>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const xhr = new Xhr();
    xhr.open('POST', url);
    xhr.timeout = timeout;
    // No Content-Type: the browser writes the multipart boundary itself.
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    const impersonate = readStorage(options.storage === undefined ? HTTP_DEFAULTS.storage : options.storage);
    if (impersonate) xhr.setRequestHeader('X-Impersonate-User-Id', impersonate);
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    if (onProgress) {
      xhr.upload.onprogress = (ev) => {
        const total = ev.lengthComputable ? ev.total : file.size;
        onProgress({ loaded: ev.loaded, total, fraction: total > 0 ? Math.min(1, ev.loaded / total) : 0 });
      };
    }
    xhr.onload = () => {
      done();
      resolve({ status: xhr.status, statusText: xhr.statusText, text: typeof xhr.responseText === 'string' ? xhr.responseText : '' });
    };
    xhr.onerror = () => {
      done();
      reject(new NetworkError('POST', url));
    };
    xhr.ontimeout = () => {
      done();
      reject(new TimeoutError(timeout, 'POST', url));
    };
    xhr.onabort = () => {
      done();
      reject(abortError(signal));
    };
    const form = new FormData();
    form.append('file', file, file.name ?? 'file');
    xhr.send(form);
  });
}

function abortError(signal?: AbortSignal): unknown {
  const reason = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('The upload was aborted', 'AbortError');
}

function readStorage(storage: Pick<Storage, 'getItem'> | null): string | null {
  try {
    return storage?.getItem(IMPERSONATE_KEY) ?? null;
  } catch {
    return null;
  }
}

function parse(text: string): unknown {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
