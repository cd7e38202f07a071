// fetch() cannot report upload progress, so http.ts sends a request that asks for it through this
// XMLHttpRequest-backed stand-in with fetch's signature. Everything else (headers, the 401 refresh,
// timeouts via the signal, HttpError) stays http.ts's, so an upload fails exactly like any other call.

export type UploadProgress = { loaded: number; total: number | null };

export function xhrFetch(Xhr: typeof XMLHttpRequest, onProgress: (progress: UploadProgress) => void): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(abortReason(signal));
      const xhr = new Xhr();
      xhr.open(init.method ?? 'GET', String(input));
      for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) xhr.setRequestHeader(name, value);
      const onAbort = () => xhr.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = <T,>(fn: (value: T) => void, value: T) => {
        signal?.removeEventListener('abort', onAbort);
        fn(value);
      };
      xhr.upload.onprogress = (ev) => onProgress({ loaded: ev.loaded, total: ev.lengthComputable ? ev.total : null });
      xhr.onload = () => settle(resolve, toResponse(xhr));
      xhr.onerror = () => settle(reject, new TypeError('Network request failed'));
      xhr.onabort = () => settle(reject, abortReason(signal));
      xhr.send((init.body ?? null) as XMLHttpRequestBodyInit | null);
    });
}

function toResponse(xhr: XMLHttpRequest): Response {
  const text = typeof xhr.responseText === 'string' ? xhr.responseText : '';
  const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
  return new Response(empty ? null : text, { status: xhr.status, statusText: xhr.statusText });
}

function abortReason(signal: AbortSignal | null | undefined): unknown {
  const reason = signal?.reason;
  return reason instanceof Error || reason instanceof DOMException ? reason : new DOMException('The request was aborted', 'AbortError');
}
