// Signatures of calls between instances (server/desktop/place/signature.ts): good for their own method, path and
// query for 60 s; refused when expired, claimed good for too long, made with another secret, or moved elsewhere.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { signedHeaders, verifySignature } from '../../server/desktop/index.ts';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const NOW = 1_800_000_000_000;
const request = (method: string, url: string, headers: Record<string, string>) => ({ method, url, headers }) as unknown as IncomingMessage;

const sig = suite('internal signature');

sig('a signature opens its own method and path (query included) within 60 s', () => {
  const headers = signedHeaders(SECRET, 'POST', '/internal/desktops/7/files?name=a.txt', NOW);
  assert.ok(verifySignature(SECRET, request('POST', '/internal/desktops/7/files?name=a.txt', headers), NOW));
  assert.ok(verifySignature(SECRET, request('POST', '/internal/desktops/7/files?name=a.txt', headers), NOW + 59_000));
});

sig('expired, or claimed good for much longer than 60 s: refused', () => {
  const headers = signedHeaders(SECRET, 'GET', '/internal/desktops/7/rfb', NOW);
  assert.not.ok(verifySignature(SECRET, request('GET', '/internal/desktops/7/rfb', headers), NOW + 61_000));
  const far = signedHeaders(SECRET, 'GET', '/internal/desktops/7/rfb', NOW + 3_600_000);
  assert.not.ok(verifySignature(SECRET, request('GET', '/internal/desktops/7/rfb', far), NOW));
});

sig('another secret, method, path or query, or no signature: refused', () => {
  const headers = signedHeaders(SECRET, 'POST', '/internal/desktops/7/files?name=a.txt', NOW);
  assert.not.ok(verifySignature(`${SECRET}x`, request('POST', '/internal/desktops/7/files?name=a.txt', headers), NOW));
  assert.not.ok(verifySignature(SECRET, request('DELETE', '/internal/desktops/7/files?name=a.txt', headers), NOW));
  assert.not.ok(verifySignature(SECRET, request('POST', '/internal/desktops/8/files?name=a.txt', headers), NOW));
  assert.not.ok(verifySignature(SECRET, request('POST', '/internal/desktops/7/files?name=b.txt', headers), NOW));
  assert.not.ok(verifySignature(SECRET, request('POST', '/internal/desktops/7/files?name=a.txt', {}), NOW));
  const bearer = { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.x' };
  assert.not.ok(verifySignature(SECRET, request('POST', '/internal/desktops/7/files?name=a.txt', bearer), NOW));
});

sig.run();
