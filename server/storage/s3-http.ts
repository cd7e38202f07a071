// One HTTP exchange with the bucket, over node:http(s) rather than fetch: fetch copies a Uint8Array body before
// sending it (the Fetch standard's "copy of the bytes"), 8 MB of garbage per part that a 100 MB upload piles up
// faster than the collector returns it; here a part's chunks are written as they are. Kept-alive connections; the
// deadline covers the wait for the answer and, as an idle limit, its body.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';

/** A request's body: one buffer, or the chunks of one (a part as it arrived), written as they are. */
export type S3Body = Buffer | readonly Buffer[];

export type S3Answer = {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  body: Readable;
  text(): Promise<string>;
};

const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 32 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 32 }) };

export class NoAnswer extends Error {
  override name = 'NoAnswer';
}

export function exchange(url: URL, init: { method: string; headers: Record<string, string>; body?: S3Body; timeoutMs: number }): Promise<S3Answer> {
  const secure = url.protocol === 'https:';
  const chunks = init.body === undefined ? [] : Buffer.isBuffer(init.body) ? [init.body] : init.body;
  const headers = { ...init.headers, 'content-length': String(chunks.reduce((sum, c) => sum + c.length, 0)) };
  const req = (secure ? httpsRequest : httpRequest)(url, { method: init.method, headers, agent: secure ? agents.https : agents.http });
  const answer = answerOf(req, init.timeoutMs);
  req.cork(); // the chunks go out together (one writev), not one write each
  for (const chunk of chunks) req.write(chunk);
  req.end();
  return answer;
}

// Apart from exchange(): these closures live as long as the request and its answer, and there they would close over
// `init` and keep the body sent alive with them.
function answerOf(req: ClientRequest, timeoutMs: number): Promise<S3Answer> {
  return new Promise<S3Answer>((resolve, reject) => {
    const deadline = setTimeout(() => req.destroy(new NoAnswer(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.setTimeout(timeoutMs, () => req.destroy(new NoAnswer(`nothing received for ${timeoutMs} ms`)));
    req.on('error', (err) => {
      clearTimeout(deadline);
      reject(err instanceof NoAnswer ? err : new NoAnswer((err as NodeJS.ErrnoException).code ?? err.message));
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(deadline);
      resolve({
        status: res.statusCode ?? 0,
        ok: (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300,
        headers: { get: (name) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : String(v); } },
        body: res,
        text: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of res) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        },
      });
    });
  });
}
