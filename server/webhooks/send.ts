// One delivery attempt: a POST to the address address-guard.ts checked (the name is not looked up again), no
// redirects followed, 10 s for the whole exchange, at most 64 KB of the answer read. Anything but a 2xx within
// those bounds is a failure whose reason goes to the delivery log.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Resolved } from './address-guard.ts';

export const SEND_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;

export type Attempt = { ok: boolean; status: number | null; latencyMs: number; error: string | null };

/** `headers` may replace the JSON content type and the user agent (a push sends encrypted bytes, server/push). */
export function send(url: URL, address: Resolved, headers: Record<string, string>, body: string | Buffer, timeoutMs = SEND_TIMEOUT_MS): Promise<Attempt> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  // The checked address, whatever the name resolves to now; TLS still verifies the certificate against the name.
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as any)(null, [address]);
    else callback(null, address.address, address.family);
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ok: error === null, status, latencyMs: latency(), error });
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST', agent: false, lookup: pinned,
      headers: { 'content-type': 'application/json', 'user-agent': 'AgentWorkspace-Webhooks/1', ...headers, 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) return finish(status, `redirects are not followed (${status} to ${res.headers.location ?? 'nowhere'})`);
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) finish(status, 'the answer was larger than 64 KB');
      });
      res.on('end', () => finish(status, status >= 200 && status < 300 ? null : `the endpoint answered ${status}`));
      res.on('error', (err) => finish(status, `the answer broke off: ${err.message}`));
    });
    const timer = setTimeout(() => finish(null, `no answer within ${timeoutMs / 1000} s`), timeoutMs);
    req.on('error', (err) => finish(null, err.message));
    req.end(body);
  });
}
