// Signatures of calls between instances (server/desktop/place/signature.ts): good once, for their own method,
// instance, path and query, and body, for 60 s; refused when expired, claimed good for too long, made with another
// secret, moved elsewhere, replayed, or sent with another body.
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { bodyTrailer, SeenNonces, signedHeaders, STREAMED, verifySignature, type InternalRequest } from '../../server/desktop/place/signature.ts';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const NOW = 1_800_000_000_000;
const B = 'http://10.0.0.2:8080';
const FILES: InternalRequest = { method: 'POST', to: B, path: '/internal/desktops/7/files?name=a.txt' };
const RFB: InternalRequest = { method: 'GET', to: B, path: '/internal/desktops/7/rfb' };
const request = (method: string, url: string, headers: Record<string, string>) => ({ method, url, headers }) as unknown as IncomingMessage;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Verifies on instance B with a fresh memory of nonces (each case a first use unless it says otherwise). */
const verify = (req: IncomingMessage, now = NOW, to = B, seen = new SeenNonces()) => verifySignature(SECRET, req, to, now, seen);
/** Reads `body` through a verified request's check; the error it refuses with, or null. */
function read(check: ReturnType<typeof verifySignature>, body: string, trailers: Record<string, string> = {}): Error | null {
  check!.update(Buffer.from(body));
  try {
    check!.end(trailers);
    return null;
  } catch (err) {
    return err as Error;
  }
}

const sig = suite('internal signature');

sig('a signature opens its own method, instance and path (query included) within 60 s', () => {
  const headers = signedHeaders(SECRET, RFB, undefined, NOW);
  assert.ok(verify(request('GET', RFB.path, headers)));
  assert.ok(verify(request('GET', RFB.path, headers), NOW + 59_000));
});

sig('expired, or claimed good for much longer than 60 s: refused', () => {
  const headers = signedHeaders(SECRET, RFB, undefined, NOW);
  assert.not.ok(verify(request('GET', RFB.path, headers), NOW + 61_000));
  const far = signedHeaders(SECRET, RFB, undefined, NOW + 3_600_000);
  assert.not.ok(verify(request('GET', RFB.path, far)));
});

sig('another secret, method, instance, path or query, or no signature: refused', () => {
  const headers = signedHeaders(SECRET, FILES, sha256('x'), NOW);
  assert.not.ok(verifySignature(`${SECRET}x`, request('POST', FILES.path, headers), B, NOW, new SeenNonces()));
  assert.not.ok(verify(request('DELETE', FILES.path, headers)));
  assert.not.ok(verify(request('POST', FILES.path, headers), NOW, 'http://10.0.0.3:8080'), 'signed for another instance');
  assert.not.ok(verify(request('POST', '/internal/desktops/8/files?name=a.txt', headers)));
  assert.not.ok(verify(request('POST', '/internal/desktops/7/files?name=b.txt', headers)));
  assert.not.ok(verify(request('POST', FILES.path, {})));
  const bearer = { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.x' };
  assert.not.ok(verify(request('POST', FILES.path, bearer)));
});

sig('a signature seen once is refused the second time, on the same instance', () => {
  const seen = new SeenNonces();
  const headers = signedHeaders(SECRET, RFB, undefined, NOW);
  assert.ok(verify(request('GET', RFB.path, headers), NOW, B, seen));
  assert.not.ok(verify(request('GET', RFB.path, headers), NOW + 1000, B, seen), 'replayed');
  // Once expired it is forgotten, and refused for its age.
  assert.not.ok(verify(request('GET', RFB.path, headers), NOW + 61_000, B, seen));
  assert.ok(verify(request('GET', RFB.path, signedHeaders(SECRET, RFB, undefined, NOW + 61_000)), NOW + 61_000, B, seen), 'a new one');
});

sig('the body must be the one whose hash was signed; the hash itself is signed', () => {
  const headers = signedHeaders(SECRET, FILES, sha256('the file'), NOW);
  assert.is(read(verify(request('POST', FILES.path, headers)), 'the file'), null);
  assert.match(read(verify(request('POST', FILES.path, headers)), 'another file')?.message ?? '', /not the one signed/);
  const swapped = { ...headers, 'x-internal-body-sha256': sha256('another file') };
  assert.not.ok(verify(request('POST', FILES.path, swapped)), 'a hash the signature does not cover');
  assert.match(read(verify(request('GET', RFB.path, signedHeaders(SECRET, RFB, undefined, NOW))), 'x')?.message ?? '', /not the one signed/,
    'signed without a body, sent with one');
});

sig('a streamed body: its hash comes signed in a trailer, with this call\'s nonce', () => {
  const headers = signedHeaders(SECRET, FILES, STREAMED, NOW);
  const trailer = bodyTrailer(SECRET, FILES, headers, sha256('streamed audio'));
  assert.is(read(verify(request('POST', FILES.path, headers)), 'streamed audio', trailer), null);
  assert.ok(read(verify(request('POST', FILES.path, headers)), 'other audio', trailer), 'another body');
  assert.ok(read(verify(request('POST', FILES.path, headers)), 'streamed audio'), 'no trailer');
  const other = bodyTrailer(SECRET, FILES, signedHeaders(SECRET, FILES, STREAMED, NOW), sha256('streamed audio'));
  assert.ok(read(verify(request('POST', FILES.path, headers)), 'streamed audio', other), "another call's trailer");
});

sig.run();
