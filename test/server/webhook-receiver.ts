// A webhook receiver for the tests: a real HTTP server on loopback that keeps every request (its headers and the
// exact body) and answers as the test says, per path: a status, a delay, a huge body or a redirect.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Received = { path: string; headers: IncomingHttpHeaders; body: string; json: any; at: number };
export type Answer = (path: string, count: number) => { status: number; body?: string; delayMs?: number; location?: string } | 'hang';

export async function startReceiver(answer: Answer = () => ({ status: 204 })) {
  const got: Received[] = [];
  const open = new Set<ServerResponse>();
  let current = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      got.push({ path, headers: req.headers, body, json: JSON.parse(body || 'null'), at: Date.now() });
      const a = current(path, got.filter((g) => g.path === path).length);
      if (a === 'hang') return void open.add(res);
      const send = () => {
        res.writeHead(a.status, a.location ? { location: a.location } : {});
        res.end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    got,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    answer: (a: Answer) => void (current = a),
    /** What the standardwebhooks package makes of a request: its payload, or it throws when the signature is wrong. */
    verify: (r: Received, secret: string) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>),
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
