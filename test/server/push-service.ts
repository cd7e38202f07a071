// A Web Push service for the tests: a real HTTP server on loopback that plays the push service of every fake
// browser ("device") the test makes. Each push must carry a VAPID JWT that verifies (jose) against the server's
// public key for this service's origin, and its body is decrypted with the device's own keys by the http_ece
// package (Martin Thomson's reference implementation of RFC 8188): code that is not ours reads our encryption.
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { importJWK, jwtVerify, type JWTPayload } from 'jose';

const ece = createRequire(import.meta.url)('http_ece') as { decrypt(body: Buffer, params: Record<string, unknown>): Buffer };

export type Push = {
  path: string; headers: IncomingHttpHeaders; body: Buffer; at: number;
  /** The decrypted notification, or why it could not be read. */
  note: any; error: string | null;
  jwt: JWTPayload | null;
};
export type Reply = (path: string, count: number) => number;

/** A browser's subscription: its keys stay here; the server gets endpoint and the public half. */
export type Device = { path: string; ecdh: ECDH; auth: Buffer; subscription: { endpoint: string; keys: { p256dh: string; auth: string } } };

/** `publicKey`: the server's (GET /api/push/key), which every push's JWT must verify with. */
export async function startPushService(publicKey: string) {
  const got: Push[] = [];
  const devices = new Map<string, Device>();
  let reply: Reply = () => 201;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks);
      const push: Push = { path, headers: req.headers, body, at: Date.now(), note: null, error: null, jwt: null };
      try {
        push.jwt = await checkVapid(String(req.headers.authorization ?? ''), publicKey, origin);
        const device = devices.get(path);
        if (!device) throw new Error(`no device at ${path}`);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${req.headers['content-encoding']}`);
        const plain = ece.decrypt(body, { version: 'aes128gcm', privateKey: device.ecdh, authSecret: device.auth.toString('base64url') });
        push.note = JSON.parse(plain.toString('utf8'));
      } catch (err) {
        push.error = (err as Error).message;
      }
      got.push(push);
      res.writeHead(push.error ? 400 : reply(path, got.filter((g) => g.path === path).length));
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    got,
    origin,
    /** A new browser subscribed at this path of the service. */
    device(path: string): Device {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const device = {
        path, ecdh, auth,
        subscription: { endpoint: origin + path, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } },
      };
      devices.set(path, device);
      return device;
    },
    /** The status the service answers a readable push with (201 unless told). */
    answer: (r: Reply) => void (reply = r),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** RFC 8292: `vapid t=<JWT>, k=<key>`; the key is the server's, the JWT verifies with it, for this origin, within 24 hours. */
async function checkVapid(header: string, publicKey: string, origin: string): Promise<JWTPayload> {
  const m = /^vapid t=([^,\s]+), k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`Authorization is not vapid: ${header.slice(0, 40)}`);
  if (m[2] !== publicKey) throw new Error('k is not the server\'s public key');
  const point = Buffer.from(publicKey, 'base64url');
  const key = await importJWK({
    kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url'),
  }, 'ES256');
  const { payload, protectedHeader } = await jwtVerify(m[1], key, { audience: origin, algorithms: ['ES256'] });
  if (protectedHeader.typ !== 'JWT') throw new Error(`typ ${protectedHeader.typ}`);
  if (!payload.exp || payload.exp > Date.now() / 1000 + 24 * 3600) throw new Error('exp missing or over 24 hours away');
  if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) throw new Error(`sub ${payload.sub}`);
  return payload;
}
